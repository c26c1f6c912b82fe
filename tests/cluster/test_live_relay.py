"""The live table across workers (bot.cluster.live_relay) on the real Redis: a page on one worker whose table runs
on another is checked by the table's owner and gets its frames from it; a page the owner refuses is told so and
closed; a page no owner answers is told there is no such table; a page that closes is let go by the owner. A
press from such a page reaches the owner straight through Redis and through the inbox (the real PostgreSQL), and
is applied once; with Redis down, through the inbox alone."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from bot.cluster.live_relay import NO_TABLE_S, Relay
from bot.cluster.shards import shard_of
from bot.config import Config
from bot.host.registry import Answer, Tables
from bot.i18n import t
from bot.live.hub import Hub
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.key import TableKey
from bot.table.state import Table
from storage.database import Database

KEY = TableKey(-100555)


@dataclass
class FakeTables:
    """What the relay needs of a registry: the tables here, and messages posted to them."""

    here: dict[TableKey, Table] = field(default_factory=dict)
    posted: list[Any] = field(default_factory=list)
    asked: list[msg.Press] = field(default_factory=list)  # the presses taken, in order
    answering: float = 0.0  # how long a press takes

    async def ask(self, key: TableKey, message: msg.Press) -> Answer:
        assert key in self.here
        await asyncio.sleep(self.answering)
        self.asked.append(message)
        return Answer(None)

    def get(self, key: TableKey) -> Table | None:
        return self.here.get(key)

    def post(self, key: TableKey, message: Any) -> None:
        self.posted.append((key, message))


@dataclass(eq=False)
class FakePage:
    id: str
    key: TableKey
    user_id: int
    lang: str = "en"
    closed: bool = False
    heard: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))

    def refuse(self, text: str) -> None:
        self.refused.append(json.loads(text)["text"])


@contextlib.asynccontextmanager
async def _worker(redis_url: str, bot_id: str, tables: FakeTables, member: bool | None = None) -> AsyncIterator[Relay]:
    async def may_watch(_chat: int, _user: int) -> bool | None:
        return member

    hub = Hub(Config(token="1:test"), time.monotonic)
    relay = Relay.connect(redis_url, bot_id, cast(Tables, tables), hub, may_watch)
    running = asyncio.create_task(relay.run())
    await asyncio.sleep(0.2)  # subscribed
    try:
        yield relay
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def _until(done: Callable[[], object], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, "not in time"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("member", [True, False])
async def test_a_page_elsewhere_gets_its_tables_frames_from_the_owner_or_is_refused(
    redis_url: str, member: bool
) -> None:
    bot_id = f"relay-test-{member}-{time.monotonic_ns()}"
    owner_tables = FakeTables({KEY: Table(key=KEY, title="Friday", creator_id=0, creator_name="", state="lobby")})
    async with (
        _worker(redis_url, bot_id, owner_tables, member) as owner,
        _worker(redis_url, bot_id, FakeTables(), None) as elsewhere,
    ):
        page = FakePage("p1", KEY, user_id=7)
        elsewhere.watch(page)
        if not member:  # not seated, not in the group: refused by the owner, never joined
            await _until(lambda: page.refused)
            assert page.refused == [t("live_not_at_table", "en")] and not owner.remote and not page.frames
            return
        await _until(lambda: page.frames)
        assert page.frames == [{"type": "waiting", "state": "lobby", "title": "Friday"}] and page.heard
        owner.hub.shown(owner_tables.here[KEY], fx.ShowGroup("lobby"))  # the table shows itself: the page too
        await _until(lambda: len(page.frames) == 2)
        elsewhere.closed(page)  # the page closed: the owner lets it go
        await _until(lambda: not owner.remote)
        assert owner.hub.count() == 0


async def test_a_page_no_owner_answers_is_told_there_is_no_such_table(redis_url: str) -> None:
    async with _worker(redis_url, f"relay-test-none-{time.monotonic_ns()}", FakeTables(), None) as alone:
        page = FakePage("p2", KEY, user_id=7)
        alone.watch(page)
        alone.round(time.monotonic() + 1)
        assert not page.refused  # still waiting for an owner
        alone.round(time.monotonic() + NO_TABLE_S + 1)
        assert page.refused == [t("live_no_table", "en")]
        assert page.id not in alone.watching


def _lobby() -> FakeTables:
    return FakeTables({KEY: Table(key=KEY, title="Friday", creator_id=0, creator_name="", state="lobby")})


async def _stored(db: Database) -> list[tuple[int, dict[str, Any]]]:
    """The inbox's presses waiting for KEY's owner, as its consumer reads them (bot.cluster.consumer)."""
    rows = await db.inbox.waiting([shard_of(KEY)], 10)
    return [(row.update_id, json.loads(row.body)["live_press"]) for row in rows]


@pytest.mark.parametrize("inbox_first", [False, True])
async def test_a_press_both_routes_bring_is_applied_once(
    redis_url: str, cluster_db: Database, inbox_first: bool
) -> None:
    """Published to the owner and stored in the inbox: whichever the owner meets first applies it, the other is
    answered by the same taking (its consumer then marks it done)."""
    bot_id = f"relay-test-press-{inbox_first}-{time.monotonic_ns()}"
    owner_tables = _lobby()
    owner_tables.answering = 0.3  # the inbox's delivery comes while the direct one is being taken, or after it
    async with _worker(redis_url, bot_id, owner_tables) as owner, _worker(redis_url, bot_id, FakeTables()) as there:
        page = FakePage("p3", KEY, user_id=7)
        if inbox_first:  # the direct route lost (as when Redis dropped it): the inbox's comes first
            there.publish = lambda channel, data: None  # type: ignore[method-assign]
        await there.press(cluster_db, page, "1.2.0", "d5m")
        ((press_id, body),) = await _stored(cluster_db)
        assert press_id < 0 and body["stamp"] == "1.2.0" and body["code"] == "d5m"
        if not inbox_first:
            await _until(lambda: owner._presses)  # the direct route's taking began
        await owner.pressed(press_id, body)  # the consumer's delivery: returns once the press was taken
        assert [(p.user_id, p.stamp.encode(), p.code, p.update_id) for p in owner_tables.asked] == [
            (7, "1.2.0", "d5m", press_id)
        ]
        await owner.pressed(press_id, body)  # the inbox handing it again (a round before it was done) changes nothing
        owner._direct({"id": press_id, "live_press": body})  # nor the direct route's coming late
        await asyncio.sleep(0.5)
        assert len(owner_tables.asked) == 1


async def test_with_redis_down_a_press_reaches_the_owner_through_the_inbox(
    redis_url: str, cluster_db: Database
) -> None:
    dead = "redis://127.0.0.1:1/0"  # nothing listens there: every publish fails
    owner_tables = _lobby()
    bot_id = f"relay-test-down-{time.monotonic_ns()}"
    async with _worker(dead, bot_id, owner_tables) as owner, _worker(dead, bot_id, FakeTables()) as there:
        await there.press(cluster_db, FakePage("p4", KEY, user_id=7), "1.2.0", "d5m")
        await asyncio.sleep(0.3)
        assert not owner_tables.asked  # nothing came straight
        ((press_id, body),) = await _stored(cluster_db)
        await owner.pressed(press_id, body)
        assert [p.update_id for p in owner_tables.asked] == [press_id]
