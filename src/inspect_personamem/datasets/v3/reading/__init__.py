"""How PersonaMem-v3 reads a reply (`reply`: the JSON it carries, its text, the
substantive gate, a judge's object) and puts a row's headline on the authors' 0-100
(`scale`): the lowest scoring layer, which rules, judges and task types read."""
