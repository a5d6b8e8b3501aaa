"""A persona at a query's time: its streams read once, masked at T, and the long-context text."""
