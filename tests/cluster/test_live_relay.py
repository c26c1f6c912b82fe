"""The live table across workers (bot.cluster.live_relay) on the real Redis: a page on one worker whose table runs
on another is checked by the table's owner and gets its frames from it; a page the owner refuses is told so and
closed; a page no owner answers is told there is no such table; a page that closes is let go by the owner."""

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
from bot.config import Config
from bot.host.registry import Tables
from bot.i18n import t
from bot.live.hub import Hub
from bot.table import effects as fx
from bot.table.key import TableKey
from bot.table.state import Table

KEY = TableKey(-100555)


@dataclass
class FakeTables:
    """What the relay needs of a registry: the tables here, and messages posted to them."""

    here: dict[TableKey, Table] = field(default_factory=dict)
    posted: list[Any] = field(default_factory=list)

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
async def _worker(redis_url: str, bot_id: str, tables: FakeTables, member: bool | None) -> AsyncIterator[Relay]:
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
