"""bot.live: Telegram's initData checked as its documentation says, table tokens that cannot be forged, a seat's
frames holding nothing it may not see (checked against the engine over a whole hand), and the Mini App's server
in-process: who is let in, who is refused, and a press going to the table as a button's would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from telegram import Bot
from tornado.websocket import WebSocketClientConnection, websocket_connect

from bot.callbacks import PlayButton, Stamp
from bot.config import Config, ConfigError
from bot.host.edge import Edge, table_options
from bot.host.registry import Answer, Tables
from bot.i18n import t
from bot.live import web
from bot.live.auth import InitDataError, check_init_data, table_of, table_token
from bot.live.frames import seat_frame, spectator_frame
from bot.live.hub import Hub
from bot.live.web import BROWSER_CONNECTIONS, LiveServer, Services
from bot.outbox import Outbox
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.core import step
from bot.table.key import TableKey
from bot.table.state import Table
from bot.views.public_view import shown_view
from game.match import Match
from game.rules import Rules
from game.tiles import tile_name
from sandbox import FakeTelegram
from sandbox.records import Message
from sandbox.web_apps import sign
from storage.database import Database
from tests.e2e.players import game_buttons
from tests.e2e.policy import pick

TOKEN = "123456:test-token-for-the-live-table-xyz"
KEY = TableKey(-100777)
PASSIVE = 20.0  # how lazily a player with nothing to decide sees the table, in the two-screens test
SEAT_KEYS = {"type", "seat", "state", "title", "hand_number", "names", "winds", "totals", "auto", "dealer", "laizi",
             "laizi_label", "indicator", "wall", "phase", "turn", "hand_sizes", "melds", "rivers", "last_discard",
             "gangs", "revealed", "hand", "drawn", "waits", "stamp", "actions", "seconds_left", "tuoguan", "ready",
             "status", "result"}  # fmt: skip


def init_data(user_id: int, auth_date: float | None = None, token: str = TOKEN, **extra: str) -> str:
    user = json.dumps({"id": user_id, "first_name": f"P{user_id}", "language_code": "en"})
    fields = {"user": user, "auth_date": str(int(time.time() if auth_date is None else auth_date)), **extra}
    return sign(fields, token)


# --- initData and table tokens --------------------------------------------------------------------------------
def test_good_init_data_names_its_user() -> None:
    user = check_init_data(init_data(7, query_id="AAF"), TOKEN, time.time())
    assert (user.user_id, user.first_name, user.language_code) == (7, "P7", "en")


def test_init_data_with_a_changed_field_or_another_bots_hash_is_refused() -> None:
    good = init_data(7)
    forged = good.replace("%22id%22%3A+7", "%22id%22%3A+8")
    assert forged != good
    with pytest.raises(InitDataError, match="hash"):
        check_init_data(forged, TOKEN, time.time())
    with pytest.raises(InitDataError, match="hash"):
        check_init_data(init_data(7, token="999:another-bot-token-abcdefghijk"), TOKEN, time.time())
    with pytest.raises(InitDataError):
        check_init_data(good + "&hash=0", TOKEN, time.time())  # a field twice
    with pytest.raises(InitDataError):
        check_init_data("", TOKEN, time.time())


def test_stale_init_data_is_refused() -> None:
    with pytest.raises(InitDataError, match="old"):
        check_init_data(init_data(7, auth_date=time.time() - 25 * 3600), TOKEN, time.time())
    assert check_init_data(init_data(7, auth_date=time.time() - 23 * 3600), TOKEN, time.time()).user_id == 7


def test_the_hash_is_telegrams_documented_one() -> None:
    """secret_key = HMAC_SHA256(key "WebAppData", bot token); hash = hex HMAC_SHA256(secret_key, sorted lines)."""
    import hashlib
    import hmac
    from urllib.parse import parse_qsl

    fields = dict(parse_qsl(init_data(7, query_id="Q")))
    lines = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    assert fields["hash"] == hmac.new(secret, lines.encode(), hashlib.sha256).hexdigest()


def test_table_tokens_cannot_be_forged_or_moved_to_another_table() -> None:
    token = table_token(TableKey(-100123, 42), TOKEN)
    assert table_of(token, TOKEN) == TableKey(-100123, 42)
    assert table_of(token, "1:other-bot") is None
    assert table_of(token[:16] + "-100124_42", TOKEN) is None
    assert table_of("-100123_42", TOKEN) is None
    assert all(c.isalnum() or c in "-_" for c in token) and len(token) <= 64  # a startapp parameter


# --- frames against the engine --------------------------------------------------------------------------------
def seated_table(seed: int = 852) -> Table:
    table = Table(key=KEY, title="Club", creator_id=1, creator_name="P1")
    for user in range(1, 5):
        table.sit(user, f"P{user}")
    table.match = Match(Rules(), seed)
    table.start_hand(table.match.new_hand(), hand_id=3, now=0.0)
    table.state = "playing"
    return table


def _concealed(table: Table, seat: int) -> list[str]:
    hand = table.hand
    assert hand is not None
    counts = hand.concealed_counts(seat)
    return sorted(tile_name(k) for k in range(len(counts)) for _ in range(counts[k]))


def _check_frame(table: Table, seat: int) -> None:
    hand = table.hand
    assert hand is not None
    frame = seat_frame(table, seat, 0.0, 0.6)
    assert set(frame) == SEAT_KEYS
    own = frame["hand"] + ([frame["drawn"]] if frame["drawn"] else [])
    if hand.phase not in ("claim", "rob") or seat in hand.claim_asked:
        assert sorted(own) == _concealed(table, seat)  # exactly the seat's own tiles
    assert frame["revealed"] is None  # nobody's hand before the end
    for s, melds in enumerate(hand.view(seat).melds):
        for i, meld in enumerate(melds):
            if meld.kind == "an_gang" and s != seat:
                assert frame["melds"][s][i]["tiles"] == [None] * 4  # another seat's concealed kong stays face down
    text = json.dumps(frame)
    assert str(hand.seed) not in text
    upcoming = hand.wall.tiles_left()[:6]
    if len(upcoming) == 6:
        assert json.dumps([tile_name(x) for x in upcoming])[1:-1] not in text  # the wall's next tiles, in order
    spectator = spectator_frame(table)
    assert spectator["hand"] == [] and spectator["drawn"] is None and spectator["actions"] == []


def test_seat_frames_never_hold_another_seats_tiles_over_a_whole_hand() -> None:
    table = seated_table()
    hand = table.hand
    assert hand is not None
    steps = 0
    while not hand.finished:
        for seat in range(4):
            _check_frame(table, seat)
        seat = hand.waiting_on()[0]
        table.apply(pick(hand.legal_actions(seat), lambda _a: True), now=0.0)
        steps += 1
    assert steps > 20
    end = seat_frame(table, 0, 0.0, 0.6)
    assert end["revealed"] is not None and end["result"] is not None and end["actions"] == []


def test_a_frames_actions_are_the_seats_prompt_with_its_stamp() -> None:
    table = seated_table()
    hand = table.hand
    assert hand is not None
    seat = hand.waiting_on()[0]
    frame = seat_frame(table, seat, 10.0, 0.6)
    assert frame["stamp"] == table.stamp(seat).encode()
    assert len(frame["actions"]) == len(hand.legal_actions(seat))
    assert frame["seconds_left"] == pytest.approx(max(0.0, table.turn_seconds - 10.0))
    other = seat_frame(table, (seat + 1) % 4, 10.0, 0.6)
    assert other["actions"] == [] and other["stamp"] is None


# --- the hub --------------------------------------------------------------------------------------------------
@dataclass(eq=False)
class FakePage:
    key: TableKey
    user_id: int
    lang: str = "en"
    frames: list[dict[str, Any]] = field(default_factory=list)

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))


async def test_the_hub_sends_each_page_what_its_effect_concerns_and_owes_pictures() -> None:
    hub = Hub(Config(token=TOKEN), lambda: 0.0)
    table = seated_table()
    pages = [FakePage(KEY, user) for user in (1, 2, 99)]
    for page in pages:
        hub.join(page, table)
    await asyncio.sleep(0)
    assert [p.frames[-1]["seat"] for p in pages] == [0, 1, None]
    hub.shown(table, fx.ShowSeat(0, urgent=True))
    await asyncio.sleep(0)
    assert [len(p.frames) for p in pages] == [2, 1, 1]  # only the seat's own page
    hub.shown(table, fx.ShowGroup("spectator"))
    await asyncio.sleep(0)
    assert [len(p.frames) for p in pages] == [3, 2, 2]
    hub.owe(KEY, 1)
    assert not hub.leave(pages[1])
    assert hub.leave(pages[0])  # owed: their picture is to be brought up to date
    assert not hub.live(KEY, 1) and hub.live(KEY, 99)
    moved = TableKey(-100888)  # the group migrated: the page follows, its presses too
    hub.rekey(KEY, moved)
    assert pages[2].key == moved and hub.live(moved, 99) and not hub.live(KEY, 99)
    hub.closed(moved)
    await asyncio.sleep(0)
    assert pages[2].frames[-1] == {"type": "closed"} and hub.count() == 0


async def test_while_a_haidi_is_decided_only_the_deciding_seat_is_shown_anything() -> None:
    table = seated_table(seed=60)  # match seed 60, nobody winning: its first hand reaches a 海底 one seat may win
    hand = table.hand
    assert hand is not None
    while hand.phase != "haidi":
        table.apply(pick(hand.legal_actions(hand.waiting_on()[0]), lambda _a: False), now=0.0)
    deciding = hand.waiting_on()[0]
    hub = Hub(Config(token=TOKEN), lambda: 0.0)
    pages = [FakePage(KEY, user) for user in (1, 2, 3, 4, 99)]
    for page in pages:  # pages opened now: only the deciding seat's gets its view
        hub.join(page, table)
    await asyncio.sleep(0)
    assert [bool(p.frames) for p in pages] == [seat == deciding for seat in (0, 1, 2, 3, None)]
    assert list(step(table, msg.Refresh(1 + (deciding + 1) % 4), 0.0, table_options(Config(token=TOKEN)))) == []


def test_a_player_back_from_the_page_is_shown_their_picture() -> None:
    table = seated_table()
    effects = list(step(table, msg.Refresh(1), 0.0, table_options(Config(token=TOKEN))))
    assert effects == [fx.ShowSeat(0, urgent=True)]
    assert list(step(table, msg.Refresh(99), 0.0, table_options(Config(token=TOKEN)))) == []


# --- the server, in-process -----------------------------------------------------------------------------------
class FakeTables:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.asked: list[tuple[TableKey, msg.Message]] = []

    def get(self, key: TableKey) -> Table | None:
        return self.table if key == self.table.key else None

    async def ask(self, key: TableKey, message: msg.Message) -> Answer:
        self.asked.append((key, message))
        return Answer(t("press_stale", "en"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


UNANSWERED = 51  # a group member whom Telegram cannot confirm now (getChatMember answered 429 or 500)


@contextlib.asynccontextmanager
async def serving(tmp_path: Any, **settings: Any) -> AsyncIterator[tuple[str, FakeTables]]:
    """The live server on a free loopback port (``settings``: Config's), with a seated table; its /ws address."""
    port = _free_port()
    config = Config(token=TOKEN, webapp_url="http://127.0.0.1/", webapp_listen=("127.0.0.1", port), **settings)
    tables = FakeTables(seated_table())
    db = await Database.open(str(tmp_path / "live.sqlite3"))

    async def may_watch(chat_id: int, user_id: int) -> bool | None:
        if user_id == UNANSWERED:
            return None  # getChatMember answered 500: bot.app's may_watch cannot say (chat_checks.Unanswered)
        return user_id == 50  # a member of the group

    live = LiveServer(Services(config, tables, Hub(config, time.monotonic), db, may_watch))  # type: ignore[arg-type]
    live.start()
    try:
        yield f"ws://127.0.0.1:{port}/ws", tables
    finally:
        live.stop()
        await db.close()


@pytest.fixture
async def server(tmp_path: Any) -> AsyncIterator[tuple[str, FakeTables]]:
    async with serving(tmp_path) as served:
        yield served


async def _hello(url: str, data: str, table: str | None) -> tuple[WebSocketClientConnection, list[dict[str, Any]]]:
    ws = await websocket_connect(url)
    await ws.write_message(json.dumps({"type": "hello", "init_data": data, "table": table}))
    frames = []
    for _ in range(2):
        text = await asyncio.wait_for(ws.read_message(), 5)
        if text is None:
            break
        frames.append(json.loads(text))
        if frames[-1]["type"] == "refused":
            break
    return ws, frames


async def test_the_server_lets_in_a_seated_player_and_takes_their_press(server: tuple[str, FakeTables]) -> None:
    url, tables = server
    ws, frames = await _hello(url, init_data(1), table_token(KEY, TOKEN))
    assert [f["type"] for f in frames] == ["hello", "view"] and frames[1]["seat"] == 0
    stamp = frames[1]["stamp"]
    await ws.write_message(json.dumps({"type": "press", "stamp": stamp, "code": frames[1]["actions"][0]["code"]}))
    notice = json.loads(await asyncio.wait_for(ws.read_message(), 5) or "{}")
    assert notice == {"type": "notice", "text": t("press_stale", "en")}
    key, press = tables.asked[0]
    code = frames[1]["actions"][0]["code"]
    assert key == KEY and press == msg.Press(1, Stamp.decode(stamp), code, "en", from_page=True)
    ws.close()


async def test_a_socket_from_another_site_is_refused(server: tuple[str, FakeTables]) -> None:
    from tornado.httpclient import HTTPClientError, HTTPRequest

    url, _ = server
    with pytest.raises(HTTPClientError, match="403"):
        await websocket_connect(HTTPRequest(url, headers={"Origin": "https://evil.example"}))
    ws = await websocket_connect(HTTPRequest(url, headers={"Origin": "http://127.0.0.1"}))  # the public address
    ws.close()


async def test_a_group_member_watches_the_spectator_view(server: tuple[str, FakeTables]) -> None:
    url, _ = server
    start = table_token(KEY, TOKEN)  # from a t.me link: the start parameter Telegram signed
    ws, frames = await _hello(url, init_data(50, start_param=start), None)
    assert frames[1]["seat"] is None and frames[1]["hand"] == [] and frames[1]["actions"] == []
    ws.close()


def _claiming(user_id: int, other: int) -> str:
    """``user_id``'s initData with the id changed to ``other``'s after Telegram signed it."""
    good = init_data(user_id)
    forged = good.replace(f"%22id%22%3A+{user_id}%2C", f"%22id%22%3A+{other}%2C")
    assert forged != good
    return forged


@pytest.mark.parametrize(
    ("data", "table", "refusal"),
    [
        (init_data(1).replace("P1", "P2"), "ok", "live_bad_init_data"),  # a bad hash
        (_claiming(1, 2), "ok", "live_bad_init_data"),  # another user's id (seated too) over player 1's hash
        (init_data(1, auth_date=time.time() - 2 * 86400), "ok", "live_bad_init_data"),  # old
        (init_data(1, token="42:someone-elses-bot-token-xyz"), "ok", "live_bad_init_data"),  # another bot's
        (init_data(77), "ok", "live_not_at_table"),  # neither seated nor in the group
        (init_data(1), "forged", "live_no_table"),
    ],
)
async def test_the_server_refuses_what_it_cannot_trust(
    server: tuple[str, FakeTables], data: str, table: str, refusal: str
) -> None:
    url, tables = server
    token = table_token(KEY, TOKEN) if table == "ok" else "A" * 16 + KEY.token
    ws, frames = await _hello(url, data, token)
    assert frames == [{"type": "refused", "text": t(refusal, "en" if refusal != "live_bad_init_data" else "zh")}]
    assert await asyncio.wait_for(ws.read_message(), 5) is None  # closed
    assert tables.asked == []


async def test_the_page_and_its_tiles_are_served_by_the_bot(server: tuple[str, FakeTables]) -> None:
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError

    base = server[0].replace("ws://", "http://").removesuffix("ws")
    client = AsyncHTTPClient()
    page = await client.fetch(base)
    assert b"static/live.js" in page.body and b"https://" not in page.body  # nothing from elsewhere
    script = await client.fetch(base + "static/live.js")
    assert b"tgWebAppData" in script.body and b"https://" not in script.body
    tile = await client.fetch(base + "tile/5m.png?laizi=1")
    assert tile.headers["Content-Type"] == "image/png" and tile.body.startswith(b"\x89PNG")
    with pytest.raises(HTTPClientError):
        await client.fetch(base + "tile/8z.png")
    health = await client.fetch(base + "healthz")  # one process: well while it serves (a worker's: bot.cluster.hook)
    assert (health.code, health.body) == (200, b"ok\n")


async def _closed(ws: WebSocketClientConnection, seconds: float = 5) -> list[dict[str, Any]]:
    """The frames a socket gets until the server closes it (within ``seconds``)."""
    frames = []
    while (text := await asyncio.wait_for(ws.read_message(), seconds)) is not None:
        frames.append(json.loads(text))
    return frames


async def test_a_socket_that_never_says_hello_is_closed(
    server: tuple[str, FakeTables], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web, "HELLO_SECONDS", 0.5)
    ws = await websocket_connect(server[0])
    assert await _closed(ws) == [] and ws.close_code == 1008


async def test_a_page_pressing_faster_than_anyone_plays_is_answered_then_cut_off(
    server: tuple[str, FakeTables],
) -> None:
    url, tables = server
    ws, frames = await _hello(url, init_data(1), table_token(KEY, TOKEN))
    press = json.dumps({"type": "press", "stamp": frames[1]["stamp"], "code": frames[1]["actions"][0]["code"]})
    for _ in range(300):  # at once, as a client pressing 900 times a second
        await ws.write_message(press)
    answers = await _closed(ws)
    assert answers[0] == {"type": "notice", "text": t("press_stale", "en")}  # the first ones are answered
    assert answers[-1] == {"type": "notice", "text": t("live_too_fast", "en")} and ws.close_code == 1008
    assert len(tables.asked) <= web.FRAME_BURST


async def test_a_frame_nested_thousands_deep_is_refused_before_it_is_parsed(server: tuple[str, FakeTables]) -> None:
    ws = await websocket_connect(server[0])
    await ws.write_message("[" * 3000 + "]" * 3000)
    assert await _closed(ws) == [] and ws.close_code == 1003  # refused, not an uncaught RecursionError


async def test_a_member_telegram_cannot_confirm_now_is_asked_to_try_again(server: tuple[str, FakeTables]) -> None:
    """getChatMember answered 429 or 500 (chat_checks raises Unanswered): the page is told to try again and the
    socket closed cleanly (1013: the page reconnects by itself), not dropped by an uncaught exception."""
    url, _ = server
    start = table_token(KEY, TOKEN)
    ws, frames = await _hello(url, init_data(UNANSWERED, start_param=start), None)
    assert frames == [{"type": "notice", "text": t("check_later", "en")}] and ws.close_code == 1013  # closed


async def test_sockets_from_one_address_are_capped_whatever_address_a_header_claims(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three sockets from one address at most; X-Forwarded-For names no other address (no proxy configured), so
    a client cannot write addresses into the logs or get round the cap. The log says how to trust a proxy."""
    from tornado.httpclient import HTTPClientError, HTTPRequest

    monkeypatch.setattr(web._too_many, "last", float("-inf"))  # said now, whatever an earlier test made it say
    async with serving(tmp_path, webapp_per_address=3) as (url, _):

        def claiming(n: int) -> HTTPRequest:
            return HTTPRequest(url, headers={"X-Forwarded-For": f"203.0.113.{n}", "X-Real-IP": f"198.51.100.{n}"})

        sockets = [await websocket_connect(claiming(n)) for n in range(3)]
        with pytest.raises(HTTPClientError, match="429"):
            await websocket_connect(claiming(3))
        sockets.pop().close()
        await asyncio.sleep(0.2)  # its close reaches the server
        sockets.append(await websocket_connect(claiming(4)))  # a place again
        for ws in sockets:
            ws.close()
    assert web.PROXY_HINT in caplog.text and "203.0.113" not in caplog.text and "198.51.100" not in caplog.text


async def test_a_proxy_named_address_counts_when_the_proxy_is_trusted(tmp_path: Path) -> None:
    """Behind a reverse proxy (MAHJONG_WEBAPP_PROXY=1) every page comes from the proxy's address: the cap counts
    the address the proxy names."""
    from tornado.httpclient import HTTPRequest

    async with serving(tmp_path, webapp_per_address=1, webapp_proxy=True) as (url, _):
        sockets = [
            await websocket_connect(HTTPRequest(url, headers={"X-Real-IP": f"198.51.100.{n}"})) for n in range(3)
        ]
        for ws in sockets:
            ws.close()


async def test_open_connections_in_all_are_capped(tmp_path: Path) -> None:
    """MAHJONG_WEBAPP_CONNECTIONS=5: a sixth connection is accepted and closed at once; one closed, there is room
    for another (and the page is served on it)."""
    async with serving(tmp_path, webapp_connections=5) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        held = [_raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n") for _ in range(5)]  # headers half-sent
        await asyncio.sleep(0.2)
        sixth = _raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        with contextlib.suppress(ConnectionResetError):  # closed unanswered (reset: its request was never read)
            assert await asyncio.to_thread(sixth.recv, 1000) == b""
        held.pop().close()
        await asyncio.sleep(0.2)
        again = _raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await asyncio.to_thread(again.recv, 1000)).startswith(b"HTTP/1.1 200")
        for sock in (*held, sixth, again):
            sock.close()


def _raw_request(port: int, head: bytes, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    sock.sendall(head)
    sock.settimeout(20)
    return sock


async def test_a_huge_body_is_refused_from_its_headers_and_half_sent_requests_are_closed(tmp_path: Path) -> None:
    """A 100 MB body is refused (400) as soon as its headers arrive, before any of it is sent; a request whose
    headers or body stop half-way is closed after the listener's timeouts."""
    async with serving(tmp_path) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        huge = _raw_request(port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n")
        half_headers = _raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n")
        half_body = _raw_request(port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
        answer = await asyncio.to_thread(huge.recv, 1000)
        assert answer.startswith(b"HTTP/1.1 400")
        assert await asyncio.to_thread(huge.recv, 1000) == b""  # and closed
        started = time.monotonic()
        for sock in (half_headers, half_body):  # closed, without an answer, by the timeouts (10 s each)
            assert await asyncio.to_thread(sock.recv, 1000) == b""
        assert time.monotonic() - started < 15
        for sock in (huge, half_headers, half_body):
            sock.close()


def test_the_mini_app_is_off_unless_its_https_address_is_set() -> None:
    env = {"TELEGRAM_BOT_TOKEN": TOKEN}
    assert Config.from_env(env).webapp_url is None
    config = Config.from_env(env | {"MAHJONG_WEBAPP_URL": "https://x.org/m", "MAHJONG_WEBAPP_NAME": "table"})
    assert (config.webapp_url, config.webapp_name, config.webapp_listen) == (
        "https://x.org/m/",
        "table",
        ("127.0.0.1", 8090),
    )
    for bad in ({"MAHJONG_WEBAPP_URL": "http://x.org/"}, {"MAHJONG_WEBAPP_NAME": "no spaces"}):
        with pytest.raises(ConfigError):
            Config.from_env(env | bad)


async def test_one_table_on_two_screens(fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    """The real registry, edge, outbox and live server, over the loopback Bot API and a WebSocket: while Alice's
    page is open her chat's picture follows lazily (a player with nothing to decide's pace, PASSIVE s); a press on
    it is the same table's press, taken when legal now, and either way the picture is brought up to date at once;
    so is it when she closes the page."""
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("g", members=[alice])
    db = await Database.open(tmp_path / "db.sqlite3")
    port = _free_port()
    config = Config(token=tg.token, api_base_url=tg.base_url, match_seed=852, bot_delay=0.3, private_interval=0.0,
                    group_interval=0.0, webapp_url="https://x.org/m/", webapp_name="table",
                    webapp_listen=("127.0.0.1", port))  # fmt: skip
    hub = Hub(config, time.monotonic)
    outbox = Outbox(bot, private_interval=0.0, group_interval=0.0, passive_interval=PASSIVE)
    tables = Tables(config, Edge(config, db, outbox, bot, hub=hub))
    key = TableKey(group.id)

    async def may_watch(chat_id: int, user_id: int) -> bool:
        return True

    live = LiveServer(Services(config, tables, hub, db, may_watch))
    live.start()
    frames: list[dict[str, Any]] = []

    async def read(ws: WebSocketClientConnection) -> None:
        while (text := await ws.read_message()) is not None:
            frames.append(json.loads(text))

    def view() -> dict[str, Any]:
        return next(f for f in reversed(frames) if f["type"] == "view")

    def pictures() -> list[Message]:
        return [m for m in tg.messages(alice.id) if m.photo is not None]

    try:
        await tables.ask(key, msg.Open(alice.id, "Alice", "g"))
        ws, frames[:] = await _hello(
            f"ws://127.0.0.1:{port}/ws", init_data(alice.id, token=tg.token), table_token(key, tg.token)
        )
        assert [f["type"] for f in frames] == ["hello", "waiting"], frames  # the lobby
        reader = asyncio.create_task(read(ws))
        await tables.ask(key, msg.Begin(alice.id))
        first_view = await tg.wait_until_async(lambda: frames[-1].get("actions") and frames[-1], timeout=10)
        assert first_view["seat"] == 0  # her first decision, on the page at once
        # In the chat, lazily: the same decision, its buttons the page's.
        chat = await tg.wait_until_async(lambda: pictures() and pictures()[-1], timeout=PASSIVE + 15)
        first = PlayButton.decode(game_buttons(chat, group)[-1].callback_data or "")
        assert first.stamp.encode() == first_view["stamp"]
        # A legal press in the chat while the page is open is taken, and the chat shows it at once.
        taken = msg.Press(alice.id, first.stamp, first.code, "en")
        assert (await tables.ask(key, taken)).text is None
        edits = chat.edits
        shown = await tg.wait_until_async(lambda: (m := pictures()[-1]).edits > edits and m, timeout=PASSIVE / 2)
        assert not game_buttons(shown, group)  # her discard made: nothing for her to press
        # Her next decision comes to the page; she plays it there; the chat lags behind.
        frame = await tg.wait_until_async(
            lambda: (f := view()).get("actions") and f["stamp"] != first_view["stamp"] and f, timeout=30
        )
        edits = pictures()[-1].edits
        played = len(frames)
        await ws.write_message(
            json.dumps({"type": "press", "stamp": frame["stamp"], "code": frame["actions"][-1]["code"]})
        )
        await tg.wait_until_async(lambda: len(frames) > played and view()["stamp"] != frame["stamp"], timeout=10)
        assert not [f for f in frames[played:] if f["type"] == "notice"]  # taken
        # A stale press in the chat is answered so, and followed at once by the table as it is now.
        assert (await tables.ask(key, taken)).text == t("press_stale", "en")
        now = tables.get(key)
        assert now is not None and now.hand is not None
        wall = f"余 {shown_view(now.hand, 0, now.held).wall_remaining} 张"
        await tg.wait_until_async(
            lambda: (m := pictures()[-1]).edits > edits and wall in (m.caption or "") and m, timeout=PASSIVE / 2
        )
        # Her next decision, on the page; closing it brings the chat's picture to it at once, with the page's button.
        later = await tg.wait_until_async(
            lambda: (f := view()).get("actions") and f["stamp"] != frame["stamp"] and f, timeout=30
        )
        ws.close()
        await reader
        picture = await tg.wait_until_async(
            lambda: (m := pictures()[-1]) and game_buttons(m, group) and m, timeout=PASSIVE / 2
        )
        assert PlayButton.decode(game_buttons(picture, group)[0].callback_data or "").stamp.encode() == later["stamp"]
        assert picture.buttons[-1].web_app == f"https://x.org/m/?table={table_token(key, tg.token)}"
    finally:
        live.stop()
        await tables.close()
        await outbox.close()
        await db.close()


async def test_open_connections_from_one_address_are_capped(tmp_path: Path) -> None:
    """Not behind a proxy, one address holds at most MAHJONG_WEBAPP_PER_ADDRESS connections and a browser's own
    besides (plain HTTP included, not only the pages' sockets): one more is closed at once, while another address
    is served; one closed, there is room again."""
    async with serving(tmp_path, webapp_per_address=1) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        cap = 1 + BROWSER_CONNECTIONS
        held = [_raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n") for _ in range(cap)]  # headers half-sent
        await asyncio.sleep(0.2)
        one_more = _raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        with contextlib.suppress(ConnectionResetError):  # closed unanswered (reset: its request was never read)
            assert await asyncio.to_thread(one_more.recv, 1000) == b""
        elsewhere = _raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", source="127.0.0.2")
        assert (await asyncio.to_thread(elsewhere.recv, 1000)).startswith(b"HTTP/1.1 200")
        held.pop().close()
        await asyncio.sleep(0.2)
        again = _raw_request(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await asyncio.to_thread(again.recv, 1000)).startswith(b"HTTP/1.1 200")
        for sock in (*held, one_more, elsewhere, again):
            sock.close()


async def test_a_frame_whose_page_closed_while_it_was_written_logs_no_traceback() -> None:
    """A page closing while its frame is on the wire fails the write's future: taken by ``send``'s callback, it
    is never reported as an exception nobody retrieved (a traceback in the log, seen under load)."""
    import gc

    from tornado.websocket import WebSocketClosedError

    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: reported.append(context))
    try:
        for taken in (True, False):  # the frame sent by send(), and one whose failure nobody took: the contrast
            written: asyncio.Future[None] = loop.create_future()
            if taken:
                written.add_done_callback(web._closed_meanwhile)
            written.set_exception(WebSocketClosedError())
            await asyncio.sleep(0)  # its callbacks run
            del written
            gc.collect()
            assert len(reported) == (0 if taken else 1)
    finally:
        loop.set_exception_handler(None)
    assert "never retrieved" in reported[0]["message"]
