"""Exactly once, fenced (storage.fencing, bot.cluster) against the real PostgreSQL: a press's action and its
inbox update are stored together or not at all; a press Telegram sends again, or that a dying worker had begun,
is stored once by the shard's next owner; and a worker that lost its shard without knowing it can no longer
store anything for its tables."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, cast

import asyncpg
import pytest
from telegram import Bot, Update
from telegram.ext import Application

from bot.cluster.consumer import Consumer
from bot.cluster.ownership import Ownership
from bot.cluster.shards import SHARDS, shard_of
from bot.config import Config
from bot.host.edge import Edge
from bot.outbox import Outbox
from bot.table import effects as fx
from bot.table.key import TableKey
from bot.table.state import Table
from game.actions import Action
from storage.cluster import Coordinator
from storage.database import Database
from storage.errors import ActionOrderError, FencedError, StorageUnavailableError
from storage.matches import Seat
from tests.cluster.conftest import empty_tables

GROUP = -1001
SHARD = shard_of(TableKey(GROUP))


def _press(update_id: int, counter: int) -> tuple[int, int | None, str]:
    """An inbox row: a press in the group for the prompt offered when the hand had ``counter`` actions."""
    chat = {"id": GROUP, "type": "supergroup", "title": "g"}
    sender = {"id": 7, "is_bot": False, "first_name": "Ann"}
    message = {"message_id": update_id, "date": 0, "chat": chat, "from": sender, "text": f"press {counter}"}
    return update_id, SHARD, json.dumps({"update_id": update_id, "message": message})


async def _hand(db: Database, group: int = GROUP) -> int:
    await db.players.upsert(7, "Ann")
    match = await db.matches.create(group, 1, "kaikoufan", [Seat.human(7)] + [Seat.auto()] * 3, 1)
    return (await db.hands.start(match.id, seed=1, dealer=0)).id


async def _actions(db: Database, hand_id: int) -> int:
    return len(await db.hands.actions(hand_id))


async def _done(db: Database, update_id: int) -> bool:
    rows = await db.fetchall("SELECT done_at FROM inbox WHERE update_id = ?", (update_id,))
    return rows[0]["done_at"] is not None


@pytest.fixture(autouse=True)
def nothing_to_resume(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables here are stubs over the stored hand (its actions made up): no worker resumes a table."""

    async def resume(*args: object, **kwargs: object) -> int:
        return 0

    monkeypatch.setattr("bot.cluster.ownership.resume_tables", resume)


def _url(db: Database) -> str:
    return cast(str, db.backend.dsn)  # type: ignore[attr-defined]


async def test_a_press_and_its_update_are_stored_together_or_not_at_all(cluster_db: Database) -> None:
    hand = await _hand(cluster_db)
    [fence] = await cluster_db.shard_owners.take([SHARD])
    fenced = cluster_db.fenced(fence)
    await cluster_db.inbox.store([_press(n, 0) for n in (1, 2, 3)])

    await fenced.hands.append_action(hand, 0, {"s": 0, "k": "discard", "t": "5m"}, done=1)
    assert await _actions(cluster_db, hand) == 1 and await _done(cluster_db, 1)

    # The press met again (its prompt moved on): refused, and its update is not marked done by the refusal.
    with pytest.raises(ActionOrderError):
        await fenced.hands.append_action(hand, 0, {"s": 0, "k": "discard", "t": "5m"}, done=2)
    assert not await _done(cluster_db, 2)

    # The update's mark refused (here by a trigger; in life the connection lost): the action is not stored either.
    await cluster_db.execute(
        """CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN RAISE EXCEPTION 'the worker''s connection ended'; END $$"""
    )
    await cluster_db.execute(
        "CREATE TRIGGER cut BEFORE UPDATE ON inbox FOR EACH ROW WHEN (OLD.update_id = 3) EXECUTE FUNCTION refuse()"
    )
    with pytest.raises(StorageUnavailableError):
        await fenced.hands.append_action(hand, 1, {"s": 1, "k": "pass"}, done=3)
    assert await _actions(cluster_db, hand) == 1 and not await _done(cluster_db, 3)


async def test_the_appends_of_many_tables_go_in_one_statement_each_with_its_own_outcome(cluster_db: Database) -> None:
    groups = [-2001, -2002, -2003, -2004, -2005]
    hands = [await _hand(cluster_db, g) for g in groups]
    shards = sorted({shard_of(TableKey(g)) for g in groups[:4]})
    fences = {f.shard: f for f in await cluster_db.shard_owners.take(shards)}
    [stale] = await cluster_db.shard_owners.take([shard_of(TableKey(groups[4]))])
    await cluster_db.shard_owners.take([stale.shard])  # another worker's now
    await cluster_db.inbox.store([(1, shard_of(TableKey(groups[0])), "{}")])
    await cluster_db.hands.append_action(hands[3], 0, {"s": 0, "k": "pass"})  # the last table's #0 was stored

    def append(n: int, seq: int, done: int | None = None) -> Awaitable[None]:
        fence = fences.get(shard_of(TableKey(groups[n])), stale)
        return cluster_db.fenced(fence).hands.append_action(hands[n], seq, {"s": 0, "k": "pass"}, done=done)

    before = cluster_db.appends.statements
    outcomes = await asyncio.gather(
        append(0, 0, done=1), append(1, 0), append(2, 0), append(3, 0), append(4, 0), return_exceptions=True
    )
    assert cluster_db.appends.statements == before + 1  # asked together: one statement, one commit
    assert list(outcomes)[:3] == [None, None, None]
    assert isinstance(outcomes[3], ActionOrderError)  # #0 again: refused alone
    assert isinstance(outcomes[4], FencedError)  # its shard taken over: refused alone
    assert [await _actions(cluster_db, h) for h in hands] == [1, 1, 1, 1, 0]
    assert await _done(cluster_db, 1)  # the press's update, with its action

    # The next action of the same hand waits for the statement of the one before, and goes in the next.
    both = await asyncio.gather(append(0, 1), append(0, 2), append(1, 1))
    assert list(both) == [None, None, None] and cluster_db.appends.statements == before + 3
    assert [await _actions(cluster_db, h) for h in hands[:2]] == [3, 2]


class Table1:
    """What the consumer needs of an Application: a table whose state is its stored actions (as a resumed one
    is), taking a press only for the prompt it shows now, storing it under its worker's fence. ``die_at``: the
    press at which this worker is killed, before or after storing it."""

    bot = None

    def __init__(self, db: Database, ownership: Ownership, hand: int, die_at: tuple[int, str] | None = None) -> None:
        self.db, self.ownership, self.hand, self.die_at = db, ownership, hand, die_at
        self.stored: list[int] = []
        self.dead = asyncio.Event()  # reached the point where it is killed

    async def process_update(self, update: Update) -> None:
        assert update.message is not None and update.message.text is not None
        counter = int(update.message.text.split()[1])
        if counter != await _actions(self.db, self.hand):
            return  # a stale press: nothing stored
        if self.die_at == (update.update_id, "before"):
            self.dead.set()
            await asyncio.Event().wait()
        view = self.db.fenced(self.ownership.fences.fence(TableKey(GROUP)))
        await view.hands.append_action(self.hand, counter, {"s": 0, "k": "pass"}, done=update.update_id)
        self.stored.append(update.update_id)
        if self.die_at == (update.update_id, "after"):
            self.dead.set()
            await asyncio.Event().wait()


async def _until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    for _ in range(300):
        if await check():
            return
        await asyncio.sleep(0.01)
    pytest.fail(what)


def _worker(db: Database, app: Callable[[Ownership], Table1]) -> tuple[Ownership, Table1, Consumer]:
    wake = asyncio.Event()
    ownership = Ownership(lambda: Coordinator.connect(_url(db), lambda _payload: wake.set()), empty_tables(), db, wake)
    table = app(ownership)
    application = cast(Application[Any, Any, Any, Any, Any, Any], table)
    return ownership, table, Consumer(application, db, ownership, wake)


@pytest.mark.parametrize("dies", ["before", "after"])
async def test_a_press_a_dying_worker_began_or_telegram_sent_again_is_stored_once(
    cluster_db: Database, dies: str
) -> None:
    hand = await _hand(cluster_db)
    a, a_table, a_consumer = _worker(cluster_db, lambda o: Table1(cluster_db, o, hand, die_at=(2, dies)))
    b, b_table, b_consumer = _worker(cluster_db, lambda o: Table1(cluster_db, o, hand))
    await a.rebalance()
    assert len(a.owned) == SHARDS
    running = asyncio.create_task(a_consumer.run())
    try:
        await cluster_db.inbox.store([_press(1, 0), _press(2, 1)])
        await asyncio.wait_for(a_table.dead.wait(), 5)
        assert a_table.stored == ([1, 2] if dies == "after" else [1])
    finally:
        running.cancel()  # SIGKILL: the worker stops where it is, its connection (and locks) end
        await asyncio.gather(running, return_exceptions=True)
        assert a.coordinator is not None
        await a.coordinator.close()
    assert await _done(cluster_db, 2) == (dies == "after")  # stored: done in the same transaction

    assert await cluster_db.inbox.store([_press(1, 0), _press(2, 1)]) == 0  # Telegram sends both again
    await b.rebalance()
    assert len(b.owned) == SHARDS
    running = asyncio.create_task(b_consumer.run())
    try:
        await _until(lambda: _done(cluster_db, 2), "press 2 handled by the new owner")
        await cluster_db.inbox.store([_press(3, 2)])  # the next press
        await _until(lambda: _done(cluster_db, 3), "press 3 handled")
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await b.close()
    assert b_table.stored == ([3] if dies == "after" else [2, 3])
    assert await _actions(cluster_db, hand) == 3  # presses 1, 2, 3: each once


async def test_a_worker_that_lost_its_shard_cannot_store_for_its_tables(cluster_db: Database) -> None:
    hand = await _hand(cluster_db)
    a = Ownership(lambda: Coordinator.connect(_url(cluster_db)), empty_tables(), cluster_db)
    b = Ownership(lambda: Coordinator.connect(_url(cluster_db)), empty_tables(), cluster_db)
    try:
        await a.rebalance()
        stale = a.fences.fence(TableKey(GROUP))
        await cluster_db.fenced(stale).hands.append_action(hand, 0, {"s": 0, "k": "pass"})
        # A network split: the server ends a's coordinator session (its locks go), a has not looked since.
        assert a.coordinator is not None
        conn = await asyncpg.connect(_url(cluster_db))
        try:
            await conn.execute("SELECT pg_terminate_backend($1)", a.coordinator.pid)
        finally:
            await conn.close()
        await _until(lambda: _taken_by(b), "b takes every shard")
        assert SHARD in a.owned and a.fences.fence(TableKey(GROUP)) == stale  # a still believes it owns the table

        await cluster_db.inbox.store([_press(1, 1)])
        with pytest.raises(FencedError):
            await cluster_db.fenced(stale).hands.append_action(hand, 1, {"s": 1, "k": "pass"}, done=1)
        with pytest.raises(FencedError):  # nor may it mark the shard's updates done: they are b's to handle
            await cluster_db.fenced(stale).inbox.done(1)
        assert await _actions(cluster_db, hand) == 1 and not await _done(cluster_db, 1)

        # Through a's table: the edge's store is refused, which the runner throws into the core as any refusal.
        edge = Edge(Config(token="1:test"), cluster_db, cast(Outbox, None), cast(Bot, None), fences=a.fences)
        table = Table(TableKey(GROUP), "g", 7, "Ann")
        with pytest.raises(FencedError):
            await edge.carry_out(table, fx.AppendAction(hand, 1, Action(1, "pass"), 1))

        await cluster_db.fenced(b.fences.fence(TableKey(GROUP))).hands.append_action(
            hand, 1, {"s": 1, "k": "pass"}, done=1
        )
        assert await _actions(cluster_db, hand) == 2 and await _done(cluster_db, 1)
        await a.rebalance()  # a's round: its connection is gone, it drops every table and fence
        assert not a.owned and a.fences.fence(TableKey(GROUP)).epoch == 0
    finally:
        await a.close()
        await b.close()


async def _taken_by(b: Ownership) -> bool:
    await b.rebalance()
    return len(b.owned) == SHARDS
