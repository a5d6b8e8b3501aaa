"""The persona's apps as tools, in process and over MCP, and the agent setting."""
