"""The authors' judges: their prompts and how a judgement is read."""
