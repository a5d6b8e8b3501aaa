"""The rules that score a reply without a judge."""
