"""Local stand-ins of the web APIs the package talks to, each on a free loopback port
for the length of a test: `local` (serving a handler), `anthropic_api` (Anthropic's
Messages API), `hf_hub` (the Hugging Face hub's file endpoint), `openai_api` (OpenAI's
embeddings and chat completions, for embeddings and Mem0), `openai_chat` (OpenAI's chat
completions and Batch API, answering as the offline oracle) and `mcp_memory`, an MCP
memory server run as a process of its own (stdio, or HTTP on a loopback port)."""
