"""Scoring a reply: by rule or through a judge, the actions of an agent run, and the metrics."""
