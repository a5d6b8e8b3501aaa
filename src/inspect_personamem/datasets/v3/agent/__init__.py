"""The persona's apps as tools, in process and over MCP, and the apps agent
(`history=apps`)."""
