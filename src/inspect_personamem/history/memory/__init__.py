"""External memory (paper §4.4): retrieval over the history, and any memory system.

- `interface`: what a memory system is (add messages, search) and what it returns.
- `pool`: one memory per shared context, fed incrementally and leak-free.
- `embeddings`: dense embedders (sentence-transformers, OpenAI-compatible) and their
  on-disk cache.
- `retrievers`: the built-in RAG memories, `dense` and `bm25`.
- `mem0`: the Mem0 memory system (the `memory` extra).
- `mcp`, `mcp_config`, `mcp_templates`, `mcp_results`: an MCP server as the memory
  (the `memory` extra); its config; the tool calls' argument templates; a search
  result read into items.
- `prompts`: the retrieved items as a history, and the authors' `paper` prompt.

The `rag` and `memory` history sources that use them are in `../retrieved.py`.
"""
