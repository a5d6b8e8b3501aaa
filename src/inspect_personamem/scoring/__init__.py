"""Answers to scores: the official extraction, the scorer, the metrics."""
