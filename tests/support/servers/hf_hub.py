"""A local stand-in for the Hugging Face hub's file-resolve endpoint, for tests.

Serves `HEAD`/`GET /datasets/{repo_id}/resolve/{revision}/{filename}` from a folder
with the headers huggingface_hub reads (X-Repo-Commit, ETag, Content-Length), so that
the real `hf_hub_download` runs against it unchanged through `HF_ENDPOINT`. A branch
(`revision="main"`) is served as the hub serves one: at the commit it points to, which
answers by its own name too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.servers.local import QuietHandler, serve


@contextmanager
def serve_hub(
    folder: Path, repo_id: str, revision: str, commit: str | None = None
) -> Iterator[tuple[str, list[str]]]:
    """Serve `folder` as `repo_id` at `revision`, a branch at `commit` where one is given
    (else `revision` is the commit); yield the endpoint URL and the request log."""
    requests: list[str] = []
    served = commit or revision
    prefixes = {f"/datasets/{repo_id}/resolve/{name}/" for name in (revision, served)}

    class Handler(QuietHandler):
        def _file(self) -> Path | None:
            requests.append(f"{self.command} {self.path}")
            prefix = next((p for p in prefixes if self.path.startswith(p)), None)
            if prefix is None:
                return None
            path = folder / self.path[len(prefix) :]
            return path if path.is_file() else None

        def _headers(self, path: Path | None) -> bytes:
            if path is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("X-Error-Message", "Entry not found")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return b""
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("X-Repo-Commit", served)
            self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return body

        def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
            self._headers(self._file())

        def do_GET(self) -> None:  # noqa: N802
            body = self._headers(self._file())
            self.wfile.write(body)

    with serve(Handler) as url:
        yield url, requests
