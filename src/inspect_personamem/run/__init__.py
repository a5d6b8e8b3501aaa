"""Running a dataset version: its tasks built from the registry and the axis tables
(`tasks`), their arguments checked (`arguments`), and old logs' arguments in today's
terms (`migration`)."""
