"""Whatever a worker's parts meet, they go on (bot.cluster, bot.table): every error of the PostgreSQL driver is a
storage failure (the core already takes those), and the poller, a table's runner, releasing tables and dropping
every shard survive any exception, log it once with its stack, and finish their work; a runner that died is
replaced from storage."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Generator
from types import SimpleNamespace
from typing import Any, cast

import asyncpg
import pytest
from telegram import Bot, Update

from bot.cluster.ownership import Ownership
from bot.cluster.poller import Poller
from bot.cluster.shards import SHARDS, shard_of
from bot.config import Config
from bot.host.edge import Edge
from bot.host.registry import Tables
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.key import TableKey
from bot.table.options import Options
from bot.table.state import Table
from storage.cluster import Coordinator
from storage.database import Database
from storage.errors import StorageUnavailableError

KEY = TableKey(-1001)


def _url(db: Database) -> str:
    return cast(str, db.backend.dsn)  # type: ignore[attr-defined]


def _tables() -> Tables:
    """A registry whose edge has only what answering and releasing a table touch (no buttons, nothing sent)."""
    outbox = SimpleNamespace(drop=lambda chat_id, for_good=True: None)
    edge = SimpleNamespace(outbox=outbox, reply_markup=lambda table, reply: None)
    return Tables(Config(token="1:test"), cast(Edge, edge))


def _failures(caplog: pytest.LogCaptureFixture, text: str) -> list[logging.LogRecord]:
    """The records saying ``text`` that carry their exception's stack."""
    return [r for r in caplog.records if text in r.getMessage() and r.exc_info is not None]


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.exceptions.InternalClientError("cannot switch to state 12; another operation is in progress"),
        asyncpg.exceptions.ProtocolError("unexpected message"),
        asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        ConnectionResetError("reset by peer"),
        TimeoutError(),
    ],
    ids=lambda e: type(e).__name__,
)
async def test_every_driver_error_is_a_storage_failure(
    cluster_db: Database, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    async def fails(*args: object, **kwargs: object) -> Any:
        raise error

    with monkeypatch.context() as patched:  # a statement from the pool, and a write transaction's
        patched.setattr(asyncpg.connection.Connection, "fetch", fails)
        patched.setattr(asyncpg.connection.Connection, "execute", fails)
        with pytest.raises(StorageUnavailableError, match=type(error).__name__):
            await cluster_db.players.get(7)
        with pytest.raises(StorageUnavailableError, match=type(error).__name__):
            await cluster_db.players.upsert(7, "Ann")
    await cluster_db.players.upsert(7, "Ann")  # the pool goes on
    assert (await cluster_db.players.get(7)) is not None


async def test_a_pooled_connection_the_server_ended_while_idle_refuses_no_transaction(postgres_url: str) -> None:
    """The server ends the pooled connections while they sit idle (a restart, an operator, a lease ended): the
    next transactions, and the next read outside one, go on new connections instead of being refused (asyncpg's
    first use of such a connection fails: "connection was closed", or "another operation is in progress" while the
    server's goodbye is read). Only this test's own sessions are ended (its application_name)."""
    name = f"mahjong_idle_{id(postgres_url)}"
    async with await Database.open(f"{postgres_url}&application_name={name}") as db:
        ender = await asyncpg.connect(postgres_url.split("?")[0])

        async def end_sessions() -> None:
            await ender.fetch("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name=$1", name)

        try:
            for n in range(5):
                await db.players.upsert(n + 1, "Ann")  # a connection used, back in the pool and idle
                await end_sessions()
                await db.players.upsert(n + 1, "Ann again")  # a write transaction, on the connection just ended
                async with db.transaction(write=False) as tx:  # and a read
                    await tx.execute_fetchall("SELECT 1")
                await end_sessions()
                assert (await db.players.require(n + 1)).display_name == "Ann again"  # a read outside a transaction
        finally:
            await ender.close()
        assert (await db.players.require(5)).display_name == "Ann again"


async def test_a_runner_survives_any_exception(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug outside the core's steps (here: stepping itself raises) fails that message alone: its sender hears
    StepFailed, the table is tried again later, and it takes the next message."""
    seen: list[msg.Message] = []

    def step(table: Table, message: msg.Message, now: float, options: Options) -> Generator[fx.Reply, Any, None]:
        seen.append(message)
        if len(seen) == 1:
            raise RuntimeError("a bug")
        return (reply for reply in [fx.Reply("taken")])

    monkeypatch.setattr("bot.host.runner.step", step)
    tables = _tables()
    tables.adopt(Table(KEY, "g", 7, "Ann"))  # its Resumed fails
    answer = await asyncio.wait_for(tables.ask(KEY, msg.Leave(7)), 5)
    assert answer.text == "taken" and len(seen) == 2
    assert tables.running(KEY)
    assert len(_failures(caplog, "Resumed failed")) == 1
    await tables.close()


async def test_a_due_whose_store_is_refused_is_said_once_without_a_stack(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A timer's move that storage refuses (a database gone for a moment, a worker whose shard moved away) is
    what a worker meets in its ordinary life: said in one line each, tried again later, never a stack."""

    def step(table: Table, message: msg.Message, now: float, config: Config) -> Generator[fx.Effect, Any, None]:
        yield fx.AppendAction(1, 0, None, None)  # type: ignore[arg-type]  # what it is does not matter here

    async def refused(table: Table, effect: fx.Effect) -> None:
        raise StorageUnavailableError("the database refused it (InternalClientError)")

    monkeypatch.setattr("bot.host.runner.step", step)
    tables = _tables()
    monkeypatch.setattr(tables.edge, "carry_out", refused, raising=False)
    tables.adopt(Table(KEY, "g", 7, "Ann"))  # its Resumed is refused
    for _ in range(100):
        if any("not taken; trying again" in r.getMessage() for r in caplog.records):
            break
        await asyncio.sleep(0.01)
    assert [r.levelname for r in caplog.records if KEY.token in r.getMessage()] == ["ERROR", "WARNING"]
    assert not [r for r in caplog.records if r.exc_info is not None]
    assert tables.running(KEY)
    await tables.close()


async def test_releasing_stops_every_table_whatever_one_raises(caplog: pytest.LogCaptureFixture) -> None:
    tables = _tables()
    keys = [TableKey(-1000 - n) for n in range(3)]
    for key in keys:
        tables.adopt(Table(key, "g", 7, "Ann"))
    runners = [tables._runners[key] for key in keys]

    async def broken() -> None:
        raise RuntimeError("a bug stopping it")

    runners[0].stop = broken  # type: ignore[method-assign]
    assert await tables.release(lambda key: True) == 3
    assert not tables.all()
    assert all(r.task is not None and r.task.done() for r in runners[1:])  # the others stopped all the same
    assert len(_failures(caplog, "releasing it failed")) == 1
    assert runners[0].task is not None
    runners[0].task.cancel()


@pytest.fixture
async def owner(cluster_db: Database) -> AsyncIterator[Ownership]:
    owner = Ownership(lambda: Coordinator.connect(_url(cluster_db)), _tables(), cluster_db)
    await owner.rebalance()
    assert len(owner.owned) == SHARDS
    yield owner
    await owner.close()


async def test_dropping_every_shard_finishes_whatever_stopping_the_tables_raises(
    cluster_db: Database, owner: Ownership, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(which: Callable[[TableKey], bool]) -> int:
        raise RuntimeError("a bug releasing them")

    monkeypatch.setattr(owner.tables, "release", broken)
    coordinator = owner.coordinator
    assert coordinator is not None
    await owner._lose_all("the coordinator's connection ended")
    assert coordinator.closed and owner.coordinator is None  # its locks are free: another takes every shard
    assert not owner.owned and not owner.fences.holds(KEY)
    assert len(_failures(caplog, "dropping them all the same")) == 1
    other = Ownership(lambda: Coordinator.connect(_url(cluster_db)), _tables(), cluster_db)
    try:
        await other.rebalance()
        assert len(other.owned) == SHARDS
    finally:
        await other.close()


async def test_a_table_whose_runner_died_is_resumed(owner: Ownership, monkeypatch: pytest.MonkeyPatch) -> None:
    resumed: list[list[TableKey]] = []

    async def resume(tables: Tables, db: Database, which: Callable[[TableKey], bool]) -> int:
        resumed.append([key for key in (KEY, TableKey(-2002)) if which(key)])
        return 1

    monkeypatch.setattr("bot.cluster.ownership.resume_tables", resume)
    owner.tables.adopt(Table(KEY, "g", 7, "Ann"))
    runner = owner.tables._runners[KEY]
    assert runner.task is not None
    runner.task.cancel()  # died (what nothing but a bug past every guard does)
    await asyncio.gather(runner.task, return_exceptions=True)
    assert not owner.tables.running(KEY) and owner.tables.dead() == [KEY]
    await owner.rebalance()
    assert resumed == [[KEY]] and shard_of(KEY) in owner.owned


class Telegram:
    """getUpdates that fails once with what no one expected, then answers one update."""

    def __init__(self) -> None:
        self.calls = 0

    async def get_updates(self, offset: int | None = None, **_: Any) -> tuple[Update, ...]:
        self.calls += 1
        if self.calls == 1:
            raise asyncpg.exceptions.InternalClientError("cannot switch to state 12")  # not a Telegram error
        chat = {"id": -1001, "type": "supergroup", "title": "g"}
        message = {"message_id": 1, "date": 0, "chat": chat, "text": "/join"}
        if offset is None:
            return (Update.de_json({"update_id": 5, "message": message}, None),)
        await asyncio.sleep(0.05)  # a long poll with nothing new waits (answering at once, the poller never yields)
        return ()

    async def delete_webhook(self) -> bool:
        return True


async def test_the_poller_survives_any_exception(
    cluster_db: Database, owner: Ownership, caplog: pytest.LogCaptureFixture
) -> None:
    poller = asyncio.create_task(Poller(cast(Bot, Telegram()), cluster_db, owner).run())
    try:
        for _ in range(300):
            if await cluster_db.fetchall("SELECT 1 FROM inbox WHERE update_id = 5"):
                break
            assert not poller.done(), "the poller stopped"
            await asyncio.sleep(0.02)
        else:
            pytest.fail("the update was not stored")
    finally:
        poller.cancel()
        await asyncio.gather(poller, return_exceptions=True)
    assert len(_failures(caplog, "polling failed")) == 1
