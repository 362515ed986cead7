"""A scriptable HTTP server on 127.0.0.1 for crawler tests: real sockets, no mocks.

Routes map a path (without query) to a :class:`Route` that says what to answer:
a status, headers, a body, a delay, a hang, a sequence of answers over
successive requests. Every request is logged so tests can count fetches.

    with LoopbackSite({"/": Route(body=b"<a href='/a'>a</a>"), "/a": Route(body=b"...")}) as site:
        crawl(site.url("/"))
        assert site.hits("/a") == 1
"""

from __future__ import annotations

import gzip
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HTML = "text/html; charset=utf-8"


@dataclass
class Response:
    """One answer of a route."""

    status: int = 200
    body: bytes = b""
    content_type: str | None = HTML
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # before the status line
    hang_s: float = 0.0  # after the headers, before the body: a server that stalls
    gzip_body: bool = False  # Content-Encoding: gzip
    trickle_s: float = 0.0  # a hostile server: the body is sent one byte every trickle_s seconds
    trickle_headers: bool = False  # ... and the status line and headers too


@dataclass
class Route:
    """What a path answers; ``sequence`` answers successive requests in turn (the last one repeats)."""

    status: int = 200
    body: bytes | str = b""
    content_type: str | None = HTML
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    hang_s: float = 0.0
    gzip_body: bool = False
    etag: str | None = None  # answer 304 to If-None-Match with this tag
    sequence: list[Response] | None = None
    handler: Callable[[BaseHTTPRequestHandler], Response] | None = None

    def response_for(self, hit: int, request: BaseHTTPRequestHandler) -> Response:
        if self.handler is not None:
            return self.handler(request)
        if self.sequence:
            return self.sequence[min(hit, len(self.sequence) - 1)]
        body = self.body.encode() if isinstance(self.body, str) else self.body
        headers = dict(self.headers)
        if self.etag:
            headers["ETag"] = self.etag
            if request.headers.get("If-None-Match") == self.etag:
                return Response(304, b"", None, headers)
        return Response(self.status, body, self.content_type, headers, self.delay_s, self.hang_s, self.gzip_body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 would refuse concurrent crawler connections


class LoopbackSite:
    """Serve routes on 127.0.0.1 (an ephemeral port unless one is given) in a background thread; count every request."""

    def __init__(self, routes: dict[str, Route], latency_s: float = 0.0, port: int = 0) -> None:
        self.routes = routes
        self.port = port  # 0: any free port
        self.latency_s = latency_s
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # (method, path with query, headers)
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def __enter__(self) -> LoopbackSite:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                site._answer(self, with_body=True)

            def do_HEAD(self) -> None:  # noqa: N802
                site._answer(self, with_body=False)

            def log_message(self, format, *args) -> None:
                return

        self._server = _Server(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def hits(self, path: str) -> int:
        """Requests received for a path (query ignored)."""
        with self._lock:
            return self._counts[path]

    @property
    def total_requests(self) -> int:
        with self._lock:
            return len(self.requests)

    def _answer(self, request: BaseHTTPRequestHandler, with_body: bool) -> None:
        path = request.path.split("?", 1)[0]
        with self._lock:
            hit = self._counts[path]
            self._counts[path] += 1
            self.requests.append((request.command, request.path, dict(request.headers)))
        route = self.routes.get(path)
        response = route.response_for(hit, request) if route else Response(404, b"not found", "text/plain")
        time.sleep(self.latency_s + response.delay_s)
        body = gzip.compress(response.body) if response.gzip_body else response.body
        if response.trickle_s:
            self._trickle(request, response, body, with_body)
            return
        try:
            request.send_response(response.status)
            if response.content_type:
                request.send_header("Content-Type", response.content_type)
            if response.gzip_body:
                request.send_header("Content-Encoding", "gzip")
            for name, value in response.headers.items():
                request.send_header(name, value)
            if response.status != 304:  # a 304 describes the page it did not send (nginx sends no length)
                request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            if response.hang_s:
                request.wfile.flush()
                time.sleep(response.hang_s)
            if with_body and response.status != 304:
                request.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the crawler gave up on us, as it should

    @staticmethod
    def _trickle(request: BaseHTTPRequestHandler, response: Response, body: bytes, with_body: bool) -> None:
        """Send byte by byte, ``trickle_s`` apart, until done or the client hangs up."""
        head = f"HTTP/1.1 {response.status} X\r\n"
        if response.content_type:
            head += f"Content-Type: {response.content_type}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in response.headers.items())
        head += f"Content-Length: {len(body)}\r\n\r\n"
        slow = (head.encode() if response.trickle_headers else b"") + (body if with_body else b"")
        try:
            if not response.trickle_headers:
                request.wfile.write(head.encode())
            for index in range(len(slow)):
                request.wfile.write(slow[index:index + 1])
                request.wfile.flush()
                time.sleep(response.trickle_s)
        except OSError:
            pass  # the crawler gave up on us, as it should
