"""Three workers in webhook mode with the live table (bot.cluster.hook, bot.cluster.live_relay) on the real
PostgreSQL and Redis, through the loopback Bot API: Telegram's posts are spread over the workers (as a reverse
proxy does: the next worker that answers), and two people play one table on live pages opened on the two workers
that do not own it (the WebSocket spoken directly, as live.js does). Then:

- a person seated at one worker's table cannot open another on another worker (the database says where each
  person sits);
- every page gets its seat's frames, and a press from each page is applied once: every action of a person's seat
  is a press of theirs, none stored twice (a press sent twice is refused the second time);
- the worker of one page is SIGKILLed mid-hand: the page reconnects to another worker and is current again (a
  view of the hand as it stands, its next press applied) within 10 s; the match plays to its end, every hand
  replaying from its seed, settled once, every press in the inbox handled.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
from tornado.websocket import WebSocketClientConnection, websocket_connect

from bot.callbacks import BadCallback, Stamp, parse_action_code
from bot.cluster.consumer import POLL_S
from bot.cluster.shards import shard_of
from bot.i18n import t
from bot.live.auth import table_token
from bot.table.key import TableKey
from game.actions import Action
from sandbox import FakeTelegram
from sandbox.records import Chat
from sandbox.users import SimUser
from sandbox.web_apps import sign
from storage.copy_to_postgres import check_hands
from storage.database import Database
from tests.e2e.players import BotProcess, on_postgres, pg_query, post_update
from tests.e2e.policy import pick
from tests.e2e.test_workers import _balanced, _owners, _pid, _wait
from tests.requires import skip_or_fail
from tests.sandbox.page_client import free_port

SECRET = "workers-hook-secret"
REDIS_URL = os.environ.get("MAHJONG_TEST_REDIS", "redis://127.0.0.1:6379/15")
CURRENT_WITHIN_S = 10.0
ACTIONS = """SELECT h.id AS hand, a.seq, a.action FROM actions a JOIN hands h ON h.id = a.hand_id
JOIN matches m ON m.id = h.match_id WHERE m.chat_id = $1 ORDER BY h.id, a.seq"""


def _redis_or_skip() -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except (redis.RedisError, OSError):
        reason = f"Redis tests did not run: no Redis at {REDIS_URL}"
        skip_or_fail(reason)


class Spreader(threading.Thread):
    """Telegram posting each update to the webhook, through a proxy that spreads the posts over the workers: each
    to the next worker in turn, the one after it when that one does not answer 200 (a dead worker is skipped)."""

    def __init__(self, tg: FakeTelegram, urls: list[str]) -> None:
        super().__init__(name="webhook spreader", daemon=True)
        self.tg, self.urls, self.stopped, self.posted = tg, urls, False, 0

    def run(self) -> None:
        turn = 0
        while not self.stopped:
            for update in self.tg.take_for_webhook(0.2):
                while not self.stopped:
                    turn += 1
                    if post_update(self.urls[turn % len(self.urls)], update, SECRET) == 200:
                        self.posted += 1
                        break


class LivePage:
    """One person's live page, its WebSocket spoken as live.js speaks it."""

    def __init__(self, user: SimUser, token: str, bot_token: str) -> None:
        self.user, self.token = user, token
        fields = {
            "user": json.dumps({"id": user.id, "first_name": user.first_name}),
            "auth_date": str(int(time.time())),
        }
        self.init_data = sign(fields, bot_token)
        self.frames: list[tuple[float, dict[str, Any]]] = []  # (when, frame)
        self.presses: list[tuple[Stamp, str]] = []
        self.ws: WebSocketClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None

    async def open(self, port: int) -> None:
        self.ws = await websocket_connect(f"ws://127.0.0.1:{port}/ws")
        await self.ws.write_message(json.dumps({"type": "hello", "init_data": self.init_data, "table": self.token}))
        self.reader = asyncio.create_task(self._read(self.ws))

    async def _read(self, ws: WebSocketClientConnection) -> None:
        while (text := await ws.read_message()) is not None:
            assert isinstance(text, str)
            self.frames.append((time.monotonic(), json.loads(text)))

    @property
    def open_now(self) -> bool:
        return self.reader is not None and not self.reader.done()

    def views(self, since: float = 0.0) -> list[dict[str, Any]]:
        return [f for at, f in self.frames if f["type"] == "view" and at >= since]

    async def step(self) -> bool:
        """Press their move on the newest view, once a prompt; whether it did."""
        views = self.views()
        if not views or self.ws is None or not self.open_now:
            return False
        view = views[-1]
        if not view["actions"] or any(s.encode() == view["stamp"] for s, _ in self.presses):
            return False
        offered: dict[Action, str] = {}
        for a in view["actions"]:
            try:
                offered[parse_action_code(a["code"], view["seat"])] = a["code"]
            except BadCallback:  # 托管, not a move
                continue
        code = offered[pick(list(offered), lambda _a: True)]
        await self.press(view["stamp"], code)
        return True

    async def press(self, stamp: str, code: str) -> None:
        assert self.ws is not None
        await self.ws.write_message(json.dumps({"type": "press", "stamp": stamp, "code": code}))
        self.presses.append((Stamp.decode(stamp), code))


@contextmanager
def _workers(tg: FakeTelegram, tmp_path: Path, url: str) -> Iterator[tuple[list[BotProcess], list[int], list[str]]]:
    hook_ports, page_ports = [free_port() for _ in range(3)], [free_port() for _ in range(3)]
    proxy = free_port()  # the proxy's address: what Telegram and the pages are told (the test is the proxy)
    common = {
        "MAHJONG_DB": url,
        "MAHJONG_WORKERS": "1",
        "MAHJONG_REDIS": REDIS_URL,
        "MAHJONG_WEBHOOK_URL": f"http://127.0.0.1:{proxy}/hook",
        "MAHJONG_WEBHOOK_SECRET": SECRET,
        "MAHJONG_WEBAPP_URL": f"http://127.0.0.1:{proxy}/",
        "MAHJONG_SEED": "83",
    }
    workers = [
        BotProcess(
            tg,
            tmp_path / f"worker{n}.sqlite3",
            **common,
            MAHJONG_WEBHOOK_LISTEN=f"127.0.0.1:{hook_ports[n]}",
            MAHJONG_WEBAPP_LISTEN=f"127.0.0.1:{page_ports[n]}",
        ).start(wait=False)
        for n in range(3)
    ]
    try:
        yield workers, page_ports, [f"http://127.0.0.1:{port}/hook" for port in hook_ports]
    finally:
        for w in workers:
            if w.proc is not None and w.proc.poll() is None:
                w.stop()


def _group_owned_by(tg: FakeTelegram, url: str, pid: int, people: list[SimUser]) -> Chat:
    owners = _owners(url)
    for n in range(1000):
        group = tg.add_group(f"牌桌 {n}")
        if owners[shard_of(TableKey(group.id))] == pid:
            for person in people:
                tg.add_member(group, person)
            return group
    raise AssertionError("no group on that worker")


def _one_hand_of_easy_players(url: str, group: Chat) -> None:
    async def run() -> None:
        async with await Database.open(url) as db:
            await db.chats.update(group.id, hands_per_game=1, auto_level="easy")

    asyncio.run(run())


def _open_table(tg: FakeTelegram, group: Chat, alice: SimUser, bob: SimUser) -> None:
    alice.say(group, "/newgame")
    tg.wait_for_message(group.id, lambda m: "Alice" in (m.text or "") and bool(m.buttons), timeout=30)
    bob.say(group, "/join")
    tg.wait_for_message(group.id, lambda m: "Bob" in (m.text or "") and bool(m.buttons), timeout=30)
    alice.say(group, "/begin")


def _done(url: str, group: Chat) -> bool:
    rows = pg_query(url, "SELECT COUNT(*) FROM matches WHERE status = 'done' AND chat_id = $1", group.id)
    return int(rows[0][0]) == 1


def test_three_webhook_workers_live_pages_on_two_a_page_worker_killed(
    fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str
) -> None:
    _redis_or_skip()
    tg, url = fake_telegram, postgres_url
    alice, bob = tg.add_user("Alice", language_code="en"), tg.add_user("Bob", language_code="en")
    with _workers(tg, tmp_path, url) as (workers, page_ports, hooks):
        for worker in workers:
            worker.wait_until_up(1)
        _wait(lambda: _balanced(_owners(url)), 30)
        tg.wait_until(lambda: len(tg.calls("setWebhook")) == 3, timeout=15, what="every worker's setWebhook")
        assert tg.calls("getUpdates") == []  # nobody polls
        spreader = Spreader(tg, hooks)
        spreader.start()
        try:
            owner = workers[0]
            group = _group_owned_by(tg, url, _pid(owner.log()), [alice, bob])
            _one_hand_of_easy_players(url, group)
            _open_table(tg, group, alice, bob)
            # One table a person across workers: Alice, seated at worker 0's table, opens none on worker 1's.
            other = _group_owned_by(tg, url, _pid(workers[1].log()), [alice])
            alice.say(other, "/newgame")
            refusal = t("seated_elsewhere", "en", table=group.title)
            tg.wait_for_message(other.id, lambda m: m.text == refusal, timeout=15)
            pages, killed_at, reconnected = asyncio.run(_play(tg, url, group, [alice, bob], workers, page_ports))
            # A page's press applied through the direct route (bot.cluster.live_relay) before its inbox row was
            # stored is marked done by the owner's consumer in its next look (bot.cluster.consumer.POLL_S).
            _wait(lambda: not pg_query(url, "SELECT 1 FROM inbox WHERE done_at IS NULL"), 5 * POLL_S)
        finally:
            spreader.stopped = True
            spreader.join()
    # Updates came in through every worker's webhook (the spreader's turns), each stored once and handled.
    assert spreader.posted >= 3 and not pg_query(url, "SELECT 1 FROM inbox WHERE done_at IS NULL")
    assert reconnected - killed_at <= CURRENT_WITHIN_S
    _check_pages(url, group, pages, killed_at)
    assert on_postgres(url, check_hands) == 1  # the hand replays from its seed, zero-sum
    assert [r["n"] for r in pg_query(url, "SELECT COUNT(*) AS n FROM settlements GROUP BY hand_id")] == [4]
    survivors = [w for w in workers if not w.killed]
    assert not any("Traceback" in w.log() for w in survivors)


async def _play(
    tg: FakeTelegram, url: str, group: Chat, people: list[SimUser], workers: list[BotProcess], ports: list[int]
) -> tuple[list[LivePage], float, float]:
    """The two pages (Alice's on worker 1, Bob's on worker 2) play the match; worker 1 is killed after Alice's
    second press. When it was killed, and when Alice's page, reconnected to worker 2, was current again."""
    token = table_token(TableKey(group.id), tg.token)
    alice, bob = (LivePage(p, token, tg.token) for p in people)
    await alice.open(ports[1])
    await bob.open(ports[2])
    killed_at = reconnected = 0.0
    end = time.monotonic() + 60
    while not await asyncio.to_thread(_done, url, group):
        assert time.monotonic() < end, "the match did not end in time"
        stepped = await alice.step() + await bob.step()
        if len(bob.presses) == 1:  # sent twice (a page's retry): refused the second time, applied once
            await bob.press(*_encoded(bob.presses[0]))
        if not killed_at and len(alice.presses) >= 2:
            await asyncio.sleep(0.3)  # its press on its way through the inbox, or lost with the worker
            workers[1].kill()
            killed_at = time.monotonic()
            while alice.open_now:  # the page sees its socket end, and reconnects through the proxy to another
                await asyncio.sleep(0.05)
            await alice.open(ports[2])
        if killed_at and not reconnected and alice.views(since=killed_at):
            reconnected = time.monotonic()
        if not stepped:
            await asyncio.sleep(0.02)
    assert killed_at and reconnected, "the page's worker was not killed, or the page never current again"
    return [alice, bob], killed_at, reconnected


def _encoded(press: tuple[Stamp, str]) -> tuple[str, str]:
    return press[0].encode(), press[1]


def _check_pages(url: str, group: Chat, pages: list[LivePage], killed_at: float) -> None:
    """Each page saw its own seat's views; every action of a person's seat is one of their presses (the move
    pressed at or before it), and no press made two actions."""
    stored = [
        (int(r["hand"]), int(r["seq"]), Action.from_json(json.loads(r["action"])))
        for r in pg_query(url, ACTIONS, group.id)
    ]
    for page in pages:
        seats = {v["seat"] for v in page.views()}
        assert len(seats) == 1 and None not in seats, f"{page.user.first_name} saw {seats}"
        seat = seats.pop()
        mine = [(hand, seq, a) for hand, seq, a in stored if a.seat == seat]
        assert mine and len(page.presses) >= len(mine)
        used: set[int] = set()
        for hand, seq, action in mine:
            pressed = [
                n
                for n, (stamp, code) in enumerate(page.presses)
                if stamp.hand == hand and (stamp.counter or 0) <= seq and parse_action_code(code, seat) == action
            ]
            assert pressed, f"{action} at {seq} was not pressed by {page.user.first_name}"
            assert pressed[-1] not in used, f"one press, two actions: {action}"
            used.add(pressed[-1])
    alice, bob = pages
    assert any(f["type"] == "notice" for _, f in bob.frames)  # the press sent twice: refused
    assert alice.views(since=killed_at) and any(s.counter for s, _ in alice.presses[2:]), "no press after the kill"
    page_presses = pg_query(url, "SELECT update_id, done_at FROM inbox WHERE update_id < 0")
    assert len(page_presses) == sum(len(p.presses) for p in pages)  # every press from a page stored once
    assert all(r["done_at"] for r in page_presses)
