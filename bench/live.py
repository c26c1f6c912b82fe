"""Bench: the live table (the Mini App's WebSocket) of the real bot process, against the fake Bot API on loopback.

1. ``ws_own_view_p95_ms``: ``TABLES`` groups, each one person with three automatic players (at the bot's usual
   0.6 s), each person on the page (a WebSocket client here, with correctly signed initData) pressing their move
   ``THINK_S`` seconds after it appears, as people do (bench/bot.py's "thinking" figure): the time from a press to
   the first frame that shows it (the pressed prompt gone), p95 over every press of every table during
   ``WINDOW_S`` seconds. ``ws_tables``: the tables whose page saw a move taken. ``ws_own_view_p95_ms_instant``: the
   same with every person pressing the moment their move appears (a stress test: 100 tables at full speed keep
   the bot's one process busy, so it measures the queue as much as the live table).
   ``BENCH_LIVE_TABLES`` and ``BENCH_LIVE_SECONDS`` make it smaller or shorter.
2. ``ws_next_decision_overhead_ms``: one table, the automatic players' thinking delay set to 0: from the person's
   discard to the frame offering their next decision (three automatic turns and their claims in between), the
   median: what the bot itself adds, the automatic players' own computation included.

    .venv/bin/python bench/live.py        # last line: {"ws_own_view_p95_ms": ..., "ws_tables": ..., ...}
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tornado.websocket import WebSocketClientConnection, websocket_connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.callbacks import parse_action_code  # noqa: E402
from bot.live.auth import table_token  # noqa: E402
from bot.table.key import TableKey  # noqa: E402
from sandbox import FakeTelegram  # noqa: E402
from sandbox.records import Chat  # noqa: E402
from sandbox.users import SimUser  # noqa: E402
from sandbox.web_apps import init_data  # noqa: E402
from tests.e2e.players import PRODUCTION, CommandBotProcess  # noqa: E402
from tests.e2e.policy import pick  # noqa: E402
from tests.sandbox.page_client import free_port  # noqa: E402

TABLES = int(os.environ.get("BENCH_LIVE_TABLES", "100"))
WINDOW_S = float(os.environ.get("BENCH_LIVE_SECONDS", "20"))
NEXT_DECISIONS = 30
THINK_S = 1.0  # a person looks at their move this long before pressing
# A group's pictures at a real group's pace (Telegram allows about 20 writes a minute): the tests' faster pace
# would have the bot draw ten times as many group pictures as it may ever send.
QUIET = {"MAHJONG_LOG_LEVEL": "WARNING", "MAHJONG_CLAIM_SECONDS": "60", "MAHJONG_TURN_SECONDS": "60"} | PRODUCTION


class Page:
    """One person's page: a WebSocket with their initData; their presses and when each showed."""

    def __init__(self, ws: WebSocketClientConnection, seat_user: SimUser, think: float) -> None:
        self.ws, self.user, self.think = ws, seat_user, think
        self.latest: str | None = None  # the newest frame's stamp
        self.thinking: set[str] = set()  # the prompts a press is on its way for
        self.tasks: set[asyncio.Task[None]] = set()
        self.pressed: dict[str, float] = {}  # stamp -> when pressed
        self.shown: list[float] = []  # press -> its frame, seconds
        self.decisions: list[float] = []  # discard -> next decision, seconds
        self.discarded_at: float | None = None
        self.ready: set[int] = set()  # the hands they pressed Ready after

    async def run(self, until: float) -> None:
        while time.monotonic() < until:
            try:
                text = await asyncio.wait_for(self.ws.read_message(), max(0.01, until - time.monotonic()))
            except TimeoutError:
                return
            if text is None:
                return
            await self._take(json.loads(text), time.monotonic())

    async def _take(self, frame: dict[str, Any], now: float) -> None:
        if frame.get("type") != "view":
            return
        if frame["result"] is not None:  # the hand is over: no next decision in it to wait for
            self.discarded_at = None
        if frame["ready"] and frame["hand_number"] not in self.ready:  # the next hand at once
            self.ready.add(frame["hand_number"])
            await self.ws.write_message(json.dumps({"type": "press", "stamp": "0", "code": "ready"}))
        for stamp, at in list(self.pressed.items()):
            if frame["stamp"] != stamp:
                self.shown.append(now - at)
                del self.pressed[stamp]
        stamp = self.latest = frame["stamp"]
        if not frame["actions"] or stamp is None or stamp in self.pressed:
            return
        if self.discarded_at is not None:
            self.decisions.append(now - self.discarded_at)
            self.discarded_at = None
        offered = {parse_action_code(a["code"], frame["seat"]): a["code"] for a in frame["actions"]}
        action = pick(list(offered), lambda _a: True)
        if stamp in self.thinking:
            return
        self.thinking.add(stamp)
        self.tasks.add(asyncio.create_task(self._press(stamp, offered[action], action.kind == "discard")))

    async def _press(self, stamp: str, code: str, discard: bool) -> None:
        """Press ``code`` after thinking, unless the moment passed meanwhile (a claim window closed)."""
        await asyncio.sleep(self.think)
        if self.latest != stamp or self.ws.protocol is None:
            return
        self.pressed[stamp] = time.monotonic()
        self.discarded_at = self.pressed[stamp] if discard else None
        await self.ws.write_message(json.dumps({"type": "press", "stamp": stamp, "code": code}))


async def _connect(url: str, tg: FakeTelegram, user: SimUser, group: Chat, think: float) -> Page:
    ws = await websocket_connect(url)
    hello = {"type": "hello", "init_data": init_data(user, tg.token),
             "table": table_token(TableKey(group.id), tg.token)}  # fmt: skip
    await ws.write_message(json.dumps(hello))
    return Page(ws, user, think)


def _tables(tg: FakeTelegram, n: int) -> list[tuple[SimUser, Chat]]:
    people = [tg.add_user(f"P{i}") for i in range(n)]
    return [(p, tg.add_group(f"t{i}", members=[p])) for i, p in enumerate(people)]


def _deal(tg: FakeTelegram, tables: list[tuple[SimUser, Chat]]) -> None:
    for person, group in tables:
        person.say(group, "/newgame")
    tg.wait_until(lambda: len(tg.calls("sendMessage")) >= 2 * len(tables), timeout=60, what="tables open")
    for person, group in tables:
        person.say(group, "/begin")


async def _play(
    url: str, tg: FakeTelegram, tables: list[tuple[SimUser, Chat]], seconds: float, think: float
) -> list[Page]:
    pages = [await _connect(url, tg, person, group, think) for person, group in tables]
    until = time.monotonic() + seconds
    await asyncio.gather(*(page.run(until) for page in pages))
    for page in pages:
        for task in page.tasks:
            task.cancel()
        page.ws.close()
    return pages


def measure(work: Path, n: int, seconds: float, think: float, **env: str) -> list[Page]:
    port = free_port()
    # One page a table, every one from this machine's address: the cap on pages from one address is lifted.
    live = {"MAHJONG_WEBAPP_URL": f"http://127.0.0.1:{port}/", "MAHJONG_WEBAPP_LISTEN": f"127.0.0.1:{port}",
            "MAHJONG_WEBAPP_PER_ADDRESS": str(n)}  # fmt: skip
    with FakeTelegram() as tg:
        tables = _tables(tg, n)
        with CommandBotProcess(tg, work / f"live-{n}-{think}.sqlite3", **QUIET, **live, **env) as bot:
            _deal(tg, tables)
            pages = asyncio.run(_play(f"ws://127.0.0.1:{port}/ws", tg, tables, seconds, think))
            assert "Traceback" not in bot.log(), bot.log()[-2000:]
            return pages


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 20 else max(values, default=float("nan"))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shown: dict[float, list[float]] = {}
        for think in (THINK_S, 0.0):
            many = measure(work, TABLES, WINDOW_S, think, MAHJONG_BOT_DELAY="0.6")
            shown[think] = [s for page in many for s in page.shown]
            tables = sum(1 for page in many if page.shown)
            print(
                f"{TABLES} tables, people pressing after {think:.1f} s: {len(shown[think])} presses shown on their"
                f" page; p50 {statistics.median(shown[think]) * 1000:.1f} ms, p95 {_p95(shown[think]) * 1000:.1f} ms"
            )
        one = measure(work, 1, WINDOW_S, 0.0, MAHJONG_BOT_DELAY="0")
        decisions = one[0].decisions[:NEXT_DECISIONS]
        print(f"one table: {len(decisions)} discards -> next decision; max {max(decisions) * 1000:.1f} ms")
    result = {
        "ws_own_view_p95_ms": round(_p95(shown[THINK_S]) * 1000, 1),
        "ws_own_view_p95_ms_instant": round(_p95(shown[0.0]) * 1000, 1),
        "ws_next_decision_overhead_ms": round(statistics.median(decisions) * 1000, 1),
        "ws_tables": tables,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
