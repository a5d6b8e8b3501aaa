"""HTTP clients for the endpoints the package calls itself (embeddings, completions).

A new `httpx.AsyncClient` builds an SSL context and loads the CA bundle, about 40 ms:
at one client per question that is minutes over a 1M run. Clients here share one
context (made on first use), so a client costs under a millisecond; each call still
opens its own client, which keeps them free of any one event loop.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def async_client(timeout: float) -> httpx.AsyncClient:
    """An async client with httpx's default certificate checks and a shared SSL context."""
    return httpx.AsyncClient(timeout=timeout, verify=_ssl_context())
