"""A persona at a query's time: its streams read, masked at T, kept as a timeline, and the
long-context text."""
