"""Running a dataset version: its tasks built from the registry and the axis tables
(`tasks`), their arguments checked (`arguments`), what a task writes into its log for
a later reader (`facts`), and old logs' arguments in today's terms (`migration`)."""
