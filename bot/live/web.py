"""The Mini App's web server, in the bot's own process and event loop (tornado, which PTB's webhooks bring).

    GET  /                the page (``bot/live/static/index.html``); its script and style under /static/
    GET  /tile/<t>.png    a tile face drawn by ``rendering`` (``5m``, ``7z``, ``back``; ``?laizi=1``: the 赖子's)
    WS   /ws              the live table: the first frame proves who is there, then views come and presses go

The socket's first frame is ``{"type": "hello", "init_data": ..., "table": ...}``: Telegram's signed initData
(``bot.live.auth``) and the table token (from the page's address, or the ``startapp`` parameter Telegram signed
with the initData). A person seated at the table gets their seat's view, a member of the group the group's;
anyone else is refused with a short reason in their language, and the socket closed. Then
``{"type": "press", "stamp": "<hand>.<counter>.<seat>", "code": "d5m"}`` is a play button's press, through the
same registry and core as a button in a chat (``Tables.ask(key, Press(...))``): stale or foreign presses get
the same answers (``{"type": "notice", "text": ...}``).

No socket may exhaust the process: one that sends no hello within ``HELLO_SECONDS`` is closed; one address has
at most ``MAHJONG_WEBAPP_PER_ADDRESS`` sockets open (more are refused with 429: its address is the client's, or
what the reverse proxy says it is with ``MAHJONG_WEBAPP_PROXY=1``, never a header anyone may send); a socket
sending frames faster than ``FRAME_RATE`` a second (after a burst of ``FRAME_BURST``) is told so and closed; a
frame nested deeper than ``MAX_BRACKETS`` is refused before it is parsed. The server itself holds to
``bot.listeners`` (timeouts, a small body, ``MAHJONG_WEBAPP_CONNECTIONS`` in all, EMFILE survived).

    server = LiveServer(config, tables, hub, db, may_watch); await server.start(); ...; server.stop()
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import tornado.web
import tornado.websocket
from tornado.http1connection import HTTP1Connection
from tornado.ioloop import IOLoop

from bot.callbacks import BadCallback, Stamp
from bot.config import Config
from bot.host.registry import Tables
from bot.host.runner import StepFailed
from bot.i18n import language_of_code, t
from bot.listeners import BoundedHTTPServer, HealthHandler, Limits, Notices
from bot.live.auth import InitDataError, WebAppUser, check_init_data, table_of
from bot.live.hub import CLOSED, Hub
from bot.table import messages as msg
from bot.table.key import TableKey
from game.tiles import HIDDEN, TileError, parse_tile
from rendering.tile_faces import render_tile
from storage.database import Database
from storage.errors import StorageError

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
TILE_WIDTH = 96  # pixels of a served tile face: sharp on a phone at 3x, shown 30-40 px wide
MAX_FRAME = 16 * 1024  # bytes of one frame from a page: a hello's initData is well under 4 KB
MAX_BRACKETS = 16  # [ and { in one frame: a page's frames are flat objects; json.loads recurses on each
HELLO_SECONDS = 10.0  # a socket that has not said hello by then is closed
FRAME_RATE, FRAME_BURST = 10.0, 30  # frames a second a page may send on average, and at once (a person: ~3)
MAX_BODY = 16 * 1024  # bytes of a request's body: the server takes GETs and the WebSocket only
BROWSER_CONNECTIONS = 6  # the connections a browser keeps to one host (HTTP/1.1) besides a page's socket
# The page's own words, sent with the hello in the person's language (the rest comes in each view).
PAGE_TEXTS = ("live_title", "live_connecting", "live_left", "live_laizi", "live_hand", "live_waits",
              "live_spectator", "live_result_close", "live_closed", "live_offline", "live_waiting", "btn_ready",
              "btn_quick", "btn_back", "btn_auto", "dealer_mark")  # fmt: skip

MayWatch = Callable[[int, int], Awaitable[bool | None]]  # None: Telegram cannot say now (a 429, a 500)
PROXY_HINT = "behind a reverse proxy? set MAHJONG_WEBAPP_PROXY=1 and have it send X-Real-IP"
_too_many = Notices("live: too many sockets from one address, refusing more")
_refused = Notices("live: requests refused")


@functools.cache
def tile_png(name: str, laizi: bool) -> bytes:
    """A tile face as PNG bytes (drawn once per face)."""
    tile = HIDDEN if name == "back" else parse_tile(name)
    buffer = io.BytesIO()
    render_tile(tile, TILE_WIDTH, laizi=laizi).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


class Relaying(Protocol):
    """With several workers, what reaches a table another worker runs (bot.cluster.live_relay.Relay)."""

    def watch(self, page: Page) -> None: ...

    def opened(self, page: Page) -> None: ...

    def closed(self, page: Page) -> None: ...

    async def press(self, db: Database, page: Page, stamp: str, code: str) -> None: ...


class Services:
    """What the handlers reach: the configuration, the tables, the live hub, storage, who may watch; with several
    workers, the relay to the tables of the others (bot.cluster.live_relay) and whether this one is well."""

    def __init__(
        self,
        config: Config,
        tables: Tables,
        hub: Hub,
        db: Database,
        may_watch: MayWatch,
        bot_username: str = "",
        relay: Relaying | None = None,
        healthy: Callable[[], bool] = lambda: True,
    ) -> None:
        self.config, self.tables, self.hub, self.db, self.may_watch = config, tables, hub, db, may_watch
        self.relay, self.healthy = relay, healthy
        # Once a table closes, its page offers a quick match: the bot's /start play (bot.quick); "" offers none.
        self.play = f"/{bot_username}?start=play" if bot_username else ""
        self.sockets: dict[str, int] = {}  # open sockets by address


class PageHandler(tornado.web.RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("Referrer-Policy", "no-referrer")  # the table token stays on this page
        self.write((STATIC / "index.html").read_bytes())


class TileHandler(tornado.web.RequestHandler):
    async def get(self, name: str) -> None:
        try:
            if name != "back":
                parse_tile(name)
        except TileError:
            raise tornado.web.HTTPError(404) from None
        png = await asyncio.to_thread(tile_png, name, self.get_query_argument("laizi", "0") == "1")
        self.set_header("Content-Type", "image/png")
        self.set_header("Cache-Control", "public, max-age=86400")
        self.write(png)


@dataclass(eq=False)
class Page:
    """One person's open page at one table (``bot.live.hub.Connection``; with several workers also
    ``bot.cluster.live_relay.LocalPage``)."""

    key: TableKey
    user_id: int
    lang: str
    socket: LiveSocket
    id: str = field(default_factory=lambda: secrets.token_hex(8))
    closed: bool = False  # its table ended: it hears nothing more
    heard: bool = False

    def send(self, text: str) -> None:
        if text == CLOSED:
            self.closed = True
        self.socket.send(text)

    def refuse(self, text: str) -> None:
        self.socket.send(text)
        self.socket.close(1008, "refused")


class LiveSocket(tornado.websocket.WebSocketHandler):
    """One open page: unproven until its hello, then one person at one table."""

    def initialize(self, services: Services) -> None:
        self.services = services
        self.page: Page | None = None  # who, at which table: set by a good hello
        self.lang = services.config.lang
        self.address = self.request.remote_ip or ""
        self.counted = False  # among its address's open sockets
        self.deadline: object | None = None  # the hello's, until one comes
        self.allowance, self.allowance_at = float(FRAME_BURST), time.monotonic()

    async def get(self, *args: Any, **kwargs: Any) -> None:
        if self.services.sockets.get(self.address, 0) >= self.services.config.webapp_per_address:
            # Behind a reverse proxy that is not trusted, every page has the proxy's address: say how to fix it.
            _too_many(self.address if self.services.config.webapp_proxy else f"{self.address}: {PROXY_HINT}")
            self.set_status(429)
            await self.finish()
            if isinstance(self.request.connection, HTTP1Connection):
                self.request.connection.close()  # not kept alive: its file descriptor is what the cap saves
            return
        await super().get(*args, **kwargs)

    def open(self, *args: str, **kwargs: str) -> None:
        sockets = self.services.sockets
        sockets[self.address] = sockets.get(self.address, 0) + 1
        self.counted = True
        self.deadline = IOLoop.current().call_later(HELLO_SECONDS, self._no_hello)

    def _no_hello(self) -> None:
        self.deadline = None
        self.close(1008, "no hello")

    def _end_deadline(self) -> None:
        """No deadline any more: a hello came (its own checks end it: Telegram's getChatMember may take seconds),
        or the socket closed."""
        if self.deadline is not None:
            IOLoop.current().remove_timeout(self.deadline)
            self.deadline = None

    def _gone(self) -> bool:
        return self.ws_connection is None or self.ws_connection.is_closing()

    def check_origin(self, origin: str) -> bool:
        """The page's own origin: its public address (behind a proxy that may not pass the Host on), or this host.
        (Nothing rides on cookies: each socket proves who it is with its own initData.)"""
        public = urlsplit(self.services.config.webapp_url or "").netloc
        return urlsplit(origin).netloc in (public, self.request.host)

    def send(self, text: str) -> None:
        try:
            written = self.write_message(text)
        except tornado.websocket.WebSocketClosedError:
            return
        written.add_done_callback(_closed_meanwhile)

    async def on_message(self, message: str | bytes) -> None:
        frame = _frame(message)
        if frame is None:
            self.close(1003, "bad frame")
            return
        if not self._within_rate():
            self.send(json.dumps({"type": "notice", "text": t("live_too_fast", self.lang)}, ensure_ascii=False))
            self.close(1008, "too fast")
            return
        kind = frame["type"]
        if self.page is None:
            if kind == "hello":
                self._end_deadline()
                await self._hello(frame)
            else:
                self.close(1008, "hello first")
        elif kind == "press":
            await self._press(frame)

    async def _hello(self, frame: dict[str, Any]) -> None:
        services = self.services
        try:
            user = check_init_data(str(frame.get("init_data", "")), services.config.token, time.time())
        except InitDataError as e:
            log.info("live: initData refused (%s)", e)
            self._refuse("live_bad_init_data")
            return
        self.lang = await self._language(user)
        token = str(frame.get("table") or user.start_param or "")
        key = table_of(token, services.config.token)
        table = services.tables.get(key) if key is not None else None
        # With several workers a table not here may be another's: its owner checks the page (bot.cluster.live_relay).
        if key is None or (table is None and services.relay is None):
            self._refuse("live_no_table")
            return
        if table is not None:
            seated_or_member = table.seat_of(user.user_id) is not None or await services.may_watch(
                key.chat_id, user.user_id
            )
            if seated_or_member is None:  # Telegram could not say now (a 429, a 500): the page tries again by itself
                self.send(json.dumps({"type": "notice", "text": t("check_later", self.lang)}, ensure_ascii=False))
                self.close(1013, "try again")
                return
            if not seated_or_member:
                self._refuse("live_not_at_table")
                return
        if self._gone():  # closed while it was being checked (its hello came too late): nothing to join
            return
        self.page = page = Page(key, user.user_id, self.lang, self)
        texts = {k: t(k, self.lang) for k in PAGE_TEXTS}
        hello = {"type": "hello", "lang": self.lang, "texts": texts, "play": services.play}
        self.send(json.dumps(hello, ensure_ascii=False))
        table = services.tables.get(key)  # still here after the checks
        if table is not None:
            services.hub.join(page, table)
            if services.relay is not None:
                services.relay.opened(page)  # followed should its table move away
        elif services.relay is not None:
            services.relay.watch(page)
        else:
            self._refuse("live_no_table")

    async def _language(self, user: WebAppUser) -> str:
        player = await self.services.db.players.get(user.user_id)
        return player.language if player is not None else language_of_code(user.language_code)

    def _refuse(self, text_key: str) -> None:
        self.send(json.dumps({"type": "refused", "text": t(text_key, self.lang)}, ensure_ascii=False))
        self.close(1008, text_key)

    async def _press(self, frame: dict[str, Any]) -> None:
        page = self.page
        assert page is not None
        try:
            stamp = Stamp.decode(str(frame.get("stamp", "")))
            code = str(frame["code"])[:8]
        except (BadCallback, KeyError):
            self.send(json.dumps({"type": "notice", "text": t("press_stale", self.lang)}, ensure_ascii=False))
            return
        relay = self.services.relay
        text: str | None
        if relay is not None and self.services.tables.get(page.key) is None:  # the owner answers through the relay
            try:
                await relay.press(self.services.db, page, stamp.encode(), code)
                return
            except StorageError:
                text = t("error_apology", self.lang)
        else:
            try:
                answer = await self.services.tables.ask(
                    page.key, msg.Press(page.user_id, stamp, code, self.lang, from_page=True)
                )
            except StepFailed:  # logged by the runner; the table goes on
                text = t("error_apology", self.lang)
            else:
                text = answer.text
        if text:
            self.send(json.dumps({"type": "notice", "text": text}, ensure_ascii=False))

    def _within_rate(self) -> bool:
        """One frame more within FRAME_RATE a second (a bucket of FRAME_BURST)."""
        now = time.monotonic()
        self.allowance = min(FRAME_BURST, self.allowance + (now - self.allowance_at) * FRAME_RATE) - 1
        self.allowance_at = now
        return self.allowance >= 0

    def on_close(self) -> None:
        self._end_deadline()
        if self.counted:
            sockets = self.services.sockets
            sockets[self.address] -= 1
            if not sockets[self.address]:
                del sockets[self.address]
        if self.page is not None and self.services.relay is not None:
            self.services.relay.closed(self.page)
        if self.page is not None and self.services.hub.leave(self.page):  # their picture is brought up to date
            self.services.tables.post(self.page.key, msg.Refresh(self.page.user_id))


def _frame(message: str | bytes) -> dict[str, Any] | None:
    """A page's frame, a JSON object with a type; None for anything else (its nesting bounded before parsing)."""
    if not isinstance(message, str) or message.count("[") + message.count("{") > MAX_BRACKETS:
        return None
    try:
        frame = json.loads(message)
    except ValueError:
        return None
    return frame if isinstance(frame, dict) and isinstance(frame.get("type"), str) else None


class _Application(tornado.web.Application):
    def log_request(self, handler: tornado.web.RequestHandler) -> None:
        """What a client may make the server refuse a thousand times a second is logged as its count."""
        if handler.get_status() < 400:
            super().log_request(handler)
        else:
            request = handler.request
            _refused(f"{handler.get_status()} {request.method} {request.path} from {request.remote_ip}")


class LiveServer:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.app = _Application(
            [
                (r"/", PageHandler),
                (r"/healthz", HealthHandler, {"healthy": services.healthy}),
                (r"/ws", LiveSocket, {"services": services}),
                (r"/tile/(back|[1-9][mps]|[1-7]z)\.png", TileHandler),
                (r"/static/(.*)", tornado.web.StaticFileHandler, {"path": str(STATIC)}),
            ],
            websocket_max_message_size=MAX_FRAME,
            websocket_ping_interval=20,
        )
        self.http: BoundedHTTPServer | None = None

    def start(self) -> None:
        config = self.services.config
        host, port = config.webapp_listen
        # Not behind a proxy, one address's connections are capped too: its pages' sockets and what a browser opens
        # besides (behind one, every connection is the proxy's: its pages are counted by their forwarded address).
        per_address = None if config.webapp_proxy else config.webapp_per_address + BROWSER_CONNECTIONS
        limits = Limits(max_body=MAX_BODY, connections=config.webapp_connections, per_address=per_address)
        self.http = BoundedHTTPServer(self.app, limits=limits, xheaders=config.webapp_proxy)
        self.http.listen(port, host)
        log.info("Mini App listening on %s:%s for %s", host, port, self.services.config.webapp_url)

    def stop(self) -> None:
        if self.http is not None:
            self.http.stop()


def _closed_meanwhile(written: asyncio.Future[None]) -> None:
    """A page that closed while its frame was being written: nobody is left to tell (its exception, taken here, is
    not logged as never retrieved, with a traceback)."""
    if not written.cancelled():
        written.exception()
