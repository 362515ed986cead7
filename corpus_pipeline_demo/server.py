"""Serve a static website folder on loopback, as a real web server would.

Usage: ``python -m corpus_pipeline_demo.server --root data/demo_site --port 8765``

Beyond plain file serving: the ``{{BASE_URL}}`` placeholder is replaced by the
server's own address (also inside gzipped sitemaps), and responses carry ETag
and Last-Modified with ``304 Not Modified`` answers to conditional requests, so
incremental re-crawls can be exercised.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.utils import formatdate, parsedate_to_datetime
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PLACEHOLDER = b"{{BASE_URL}}"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".css": "text/css",
}


class StaticSiteHandler(BaseHTTPRequestHandler):
    """GET/HEAD of files under ``root``; directories serve their index.html."""

    server_version = "DemoSite/1.0"
    # Keep connections open between requests, as real web servers do: a crawler's connection reuse is then
    # exercised, and a benchmark does not pay a TCP handshake per page that no real website would charge.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on, the body of a kept-open connection waits
    # for the client's delayed ACK (~40 ms a response).
    disable_nagle_algorithm = True

    def __init__(
        self, *args, root: Path, latency_s: float = 0.0, request_log: list[str] | None = None, **kwargs
    ) -> None:
        self.root = root
        self.latency_s = latency_s
        self.request_log = request_log
        super().__init__(*args, **kwargs)

    def do_HEAD(self) -> None:  # noqa: N802 (http.server naming)
        self._respond(with_body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._respond(with_body=True)

    def log_message(self, format: str, *args) -> None:  # quiet: tests and demo read their own logs
        return

    def _respond(self, with_body: bool) -> None:
        if self.request_log is not None:
            self.request_log.append(self.path)
        if self.latency_s:
            time.sleep(self.latency_s)
        path = self._resolve()
        if path is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        body = self._render(path)
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        mtime = path.stat().st_mtime
        if self._not_modified(etag, mtime):
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", CONTENT_TYPES.get(path.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", formatdate(mtime, usegmt=True))
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def _resolve(self) -> Path | None:
        relative = self.path.split("?", 1)[0].split("#", 1)[0].lstrip("/")
        candidate = (self.root / relative).resolve()
        if self.root not in candidate.parents and candidate != self.root:
            return None  # no escaping the site folder with ../
        if candidate.is_dir():
            candidate = candidate / "index.html"
        return candidate if candidate.is_file() else None

    def _render(self, path: Path) -> bytes:
        data = path.read_bytes()
        base_url = f"http://{self.server.server_address[0]}:{self.server.server_address[1]}".encode()
        if path.suffix == ".gz":
            return gzip.compress(gzip.decompress(data).replace(PLACEHOLDER, base_url), mtime=0)
        if path.suffix in (".html", ".xml", ".txt"):
            return data.replace(PLACEHOLDER, base_url)
        return data

    def _not_modified(self, etag: str, mtime: float) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            return etag in {tag.strip() for tag in if_none_match.split(",")}
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since:
            try:
                return int(mtime) <= parsedate_to_datetime(if_modified_since).timestamp()
            except (TypeError, ValueError):
                return False
        return False


class _LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 refuses a polite crawler's bursts


@contextmanager
def serve_site(
    root: Path,
    host: str = "127.0.0.1",
    port: int = 0,
    latency_s: float = 0.0,
    request_log: list[str] | None = None,
) -> Iterator[str]:
    """Serve ``root`` in a background thread; yields the base URL (``http://127.0.0.1:PORT``).

    ``latency_s`` delays every answer (a slow website); ``request_log`` receives every requested path.
    """
    handler = partial(StaticSiteHandler, root=Path(root).resolve(), latency_s=latency_s, request_log=request_log)
    server = _LoopbackServer((host, port), handler)
    thread = threading.Thread(target=server.serve_forever, name="demo-site", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a static website folder on loopback.")
    parser.add_argument("--root", default="data/demo_site")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds to wait before each answer")
    args = parser.parse_args()
    handler = partial(StaticSiteHandler, root=Path(args.root).resolve(), latency_s=args.latency)
    server = _LoopbackServer((args.host, args.port), handler)
    print(f"Serving {args.root} on http://{args.host}:{args.port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
