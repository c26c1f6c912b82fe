"""`FakeTelegram`: the fake Bot API served over HTTP on 127.0.0.1, in a background thread.

    with FakeTelegram() as tg:            # binds a free port, serves until the block ends
        tg.base_url                       # "http://127.0.0.1:PORT/bot"  -> PTB's base_url(...)
        tg.base_file_url                  # "http://127.0.0.1:PORT/file/bot" -> PTB's base_file_url(...)
        tg.bot_environment()              # TELEGRAM_BOT_TOKEN / TELEGRAM_API_BASE_URL for `python -m bot`

Requests are `/bot<token>/<method>` (GET or POST; query, urlencoded, JSON or multipart bodies) and
`/file/bot<token>/<file_path>` for downloads; with `start(pages=...)` every other path is the sandbox's web
page and its JSON API (sandbox.pages). Each connection gets a thread, so a long poll never blocks the bot's
other requests. A connection that sends nothing for `request_seconds` (a request's headers or body stopping
half-way, a kept-alive connection left idle) is closed, ending its thread; a body longer than the route takes
(the Bot API's `api_limits.MAX_REQUEST_BYTES`, the page's `pages.MAX_BODY`) or a Content-Length that is not a
number is refused before any of the body is read, and the connection closed.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import unquote, urlsplit

from sandbox import api_limits
from sandbox.bot_api import BotApi
from sandbox.pages import MAX_BODY, Pages
from sandbox.records import JSON, ApiError
from sandbox.request_body import decode_request

API_PATH = re.compile(r"/bot([^/]+)/([A-Za-z]+)/?")
FILE_PATH = re.compile(r"/file/bot([^/]+)/(.+)")
NOT_FOUND = ApiError(404, "Not Found")
# Seconds a connection may send nothing: the bot's own idle connections are dropped by its HTTP client after 5 s,
# a browser's long poll (sandbox.pages) asks again at once.
REQUEST_SECONDS = 60.0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Keep-alive connections idle in their threads; closing the server must not wait for them.
    block_on_close = False
    # The bot opens up to 64 connections at once (a burst of presses): a backlog of 5 would reset some of them.
    request_queue_size = 256

    def __init__(self, api: BotApi, address: tuple[str, int], pages: Pages | None, request_seconds: float) -> None:
        super().__init__(address, _Handler)
        self.api = api
        self.pages = pages
        self.request_seconds = request_seconds
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket) -> None:  # type: ignore[override]
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def hang_up_all(self) -> None:
        """Closes the clients' open keep-alive connections so their threads end with the server."""
        with self.connections_lock:
            for connection in self.connections:
                with contextlib.suppress(OSError):  # already closed by the client
                    connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that gave up (an abandoned long poll, a timed-out request) is not a server fault.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_seconds)

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: object) -> None:  # quiet: ApiCall records are the log
        pass

    def _serve(self) -> None:
        api = self.server.api
        url = urlsplit(self.path)
        path = unquote(url.path)  # PTB percent-encodes download paths (the token's colon)
        length = self.headers.get("Content-Length", "0").strip()
        limit = api_limits.MAX_REQUEST_BYTES if path.startswith(("/bot", "/file/")) else MAX_BODY
        number = length.isascii() and length.isdigit()
        if not number or int(length) > limit:
            status, reason = (413, "Request Entity Too Large") if number else (400, "Bad Content-Length")
            self.close_connection = True  # the body is not read
            self._send_json(status, ApiError(status, reason).to_api())
            return
        body = self.rfile.read(int(length))
        pages = self.server.pages
        page = (
            pages.answer(self.command, path, url.query, body, self.headers.get("X-Sandbox-Key") or "")
            if pages
            else None
        )
        if page is not None:
            self._send(*page)
            return
        download = FILE_PATH.fullmatch(path)
        if download:
            content = api.file_content(download.group(2)) if download.group(1) == api.token else None
            if content is None:
                self._send_json(404, NOT_FOUND.to_api())
            else:
                self._send(200, content, "application/octet-stream")
            return
        request = API_PATH.fullmatch(path)
        if request is None:
            self._send_json(404, NOT_FOUND.to_api())
            return
        try:
            values, files = decode_request(self.headers.get("Content-Type"), body, url.query)
        except ApiError as error:
            self._send_json(error.status, error.to_api())
            return
        answer = api.call(request.group(1), request.group(2), values, files)
        if answer is None:
            self.close_connection = True  # hang up without a response: the client sees a dropped connection
            return
        self._send_json(*answer)

    def _send_json(self, status: int, answer: JSON) -> None:
        self._send(status, json.dumps(answer, ensure_ascii=False).encode(), "application/json")

    def _send(self, status: int, content: bytes, content_type: str, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", cache)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)


class FakeTelegram(BotApi):
    """The fake Bot API on a loopback port; a context manager (or `start()` / `stop()`)."""

    _httpd: _Server | None = None
    _thread: threading.Thread | None = None

    def start(
        self,
        address: tuple[str, int] = ("127.0.0.1", 0),
        pages: Pages | None = None,
        request_seconds: float = REQUEST_SECONDS,
    ) -> FakeTelegram:
        """Serves on `address` (a free loopback port by default); `pages`: the web pages served beside the API;
        `request_seconds`: how long a connection may send nothing."""
        if self._httpd is not None:
            raise RuntimeError("the fake Telegram server is already running")
        self._stopping = False  # long polls wait again after a stop() / start() cycle
        self._httpd = _Server(self, address, pages, request_seconds)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-telegram", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None or self._thread is None:
            return
        self.stop_waiting()
        self._httpd.shutdown()
        self._httpd.hang_up_all()
        self._httpd.server_close()
        self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeTelegram:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the fake Telegram server is not running")
        host, port = self._httpd.server_address[:2]
        if host in ("0.0.0.0", "::"):  # listening everywhere: the bot beside it comes in through loopback
            host = "127.0.0.1"
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """For PTB's `ApplicationBuilder.base_url` / `Bot(base_url=...)`: PTB requests `{base_url}{token}/{method}`."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    def bot_environment(self) -> dict[str, str]:
        """The environment variables that point `python -m bot` at this server."""
        return {"TELEGRAM_BOT_TOKEN": self.token, "TELEGRAM_API_BASE_URL": self.base_url}
