"""Transactions: an exception or a cancelled task inside one leaves nothing half-written, and the next one works."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from game.titles import START_SKILL
from storage import Database
from storage.errors import StorageError, StorageUnavailableError
from storage.gateway import Tx
from tests.storage.conftest import NewMatch


async def test_an_exception_inside_a_transaction_rolls_it_back(db: Database) -> None:
    await db.players.upsert(1, "Ann")
    with pytest.raises(RuntimeError, match="boom"):
        async with db.transaction() as tx:
            await tx.execute("UPDATE players SET skill = 0 WHERE id = 1")
            raise RuntimeError("boom")
    assert (await db.players.require(1)).skill == START_SKILL
    assert (await db.players.upsert(1, "Ann again")).display_name == "Ann again"


async def test_cancelling_close_midway_is_all_or_nothing(db: Database, new_match: NewMatch) -> None:
    match = await new_match((1, 2, 3, None))
    outcomes = set()
    # From before the close begins (None: cancelled before it ever runs) to well after the commit (a close takes
    # well under 50 ms).
    for n, delay in enumerate([None, 0.0, *(i * 0.0002 for i in range(1, 25)), 0.05]):
        hand = await db.hands.start(match.id, seed=n, dealer=0)
        task = asyncio.create_task(db.hands.close(hand.id, (30, -10, -10, -10), winner=0))
        if delay is not None:
            await asyncio.sleep(delay)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        status = (await db.hands.get(hand.id)).status
        settled = await db.fetchall("SELECT COUNT(*) FROM settlements WHERE hand_id = ?", (hand.id,))
        assert (status, settled[0][0]) in {("playing", 0), ("done", 4)}
        outcomes.add(status)
        if status == "playing":
            await db.hands.abandon(hand.id)
    assert outcomes == {"playing", "done"}  # cancelled both before and after the commit
    done = await db.fetchall("SELECT COUNT(*) FROM hands WHERE status = 'done'")
    player = await db.players.require(1)
    assert player.skill == START_SKILL + 30 * done[0][0] and player.hands == done[0][0]
    assert (await db.matches.get(match.id)).totals == (
        30 * done[0][0],
        -10 * done[0][0],
        -10 * done[0][0],
        -10 * done[0][0],
    )


async def test_a_write_body_commits_or_rolls_back_whole(db: Database, backend: str) -> None:
    """``write()``: a body that returns is committed; one that raises, or refused by the database, leaves
    nothing; on SQLite (whose bodies run on the writer's thread) one that awaits anything but its statements is
    refused and rolled back."""
    await db.players.upsert(1, "Ann")

    async def rename(tx: Tx) -> int:
        cursor = await tx.execute("UPDATE players SET display_name = 'Bea' WHERE id = 1")
        rows = list(await tx.execute_fetchall("SELECT display_name FROM players WHERE id = 1"))
        assert rows[0]["display_name"] == "Bea"  # the body sees its own statements
        return cursor.rowcount

    assert await db.write(rename) == 1

    async def then_fail(tx: Tx) -> None:
        await tx.execute("UPDATE players SET display_name = 'Cid' WHERE id = 1")
        raise RuntimeError("boom")

    async def then_refused(tx: Tx) -> None:
        await tx.execute("UPDATE players SET display_name = 'Dee' WHERE id = 1")
        await tx.execute("INSERT INTO players (id) VALUES (1)")  # a constraint SQLite refuses

    async def then_waits(tx: Tx) -> None:
        await tx.execute("UPDATE players SET display_name = 'Eve' WHERE id = 1")
        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="boom"):
        await db.write(then_fail)
    with pytest.raises(StorageUnavailableError):
        await db.write(then_refused)
    if backend == "sqlite":
        with pytest.raises(StorageError, match="awaited something other"):
            await db.write(then_waits)
    assert (await db.players.require(1)).display_name == "Bea"
    assert await db.write(rename) == 1  # the writer is free again


async def test_single_writes_beside_transactions_are_never_swallowed_by_a_rollback(db: Database) -> None:
    """A single write skips the lock only when no transaction is open: one issued while a transaction is open
    waits for its end, so its rollback does not take the write with it; and reads see a write once it returns."""
    await db.execute("CREATE TABLE marks (n INTEGER PRIMARY KEY, kind TEXT)")
    holding, release = asyncio.Event(), asyncio.Event()

    async def open_then_roll_back() -> None:
        with contextlib.suppress(RuntimeError):
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO marks VALUES (0, 'rolled back')")
                holding.set()
                await release.wait()
                raise RuntimeError("undone")

    async def undone_in_one_go(tx: Tx) -> None:
        await tx.execute("INSERT INTO marks VALUES (-1, 'rolled back')")
        raise RuntimeError("undone")

    async def single(n: int) -> None:
        await db.execute("INSERT INTO marks VALUES (?, 'single')", (n,))
        assert await db.fetchall("SELECT n FROM marks WHERE n = ?", (n,))  # read-your-writes on the reader

    transaction = asyncio.create_task(open_then_roll_back())
    await holding.wait()
    waiting = asyncio.create_task(single(1))
    await asyncio.sleep(0.05)
    release.set()
    await asyncio.gather(transaction, waiting)
    for n in range(2, 100):  # single writes queued before, between and after write() bodies that roll back
        done = await asyncio.gather(single(n), db.write(undone_in_one_go), single(n + 1000), return_exceptions=True)
        assert [type(d) for d in done] == [type(None), RuntimeError, type(None)]
    rows = await db.fetchall("SELECT kind, COUNT(*) AS n FROM marks GROUP BY kind")
    assert {r["kind"]: r["n"] for r in rows} == {"single": 197}


async def test_reads_wait_for_no_writer(db: Database) -> None:
    """While a write transaction holds the writer, single reads and read transactions still answer, with what
    was committed before it."""
    await db.players.upsert(1, "Ann")
    holding, release = asyncio.Event(), asyncio.Event()

    async def slow_writer() -> None:
        async with db.transaction() as tx:
            await tx.execute("UPDATE players SET display_name = 'Bea' WHERE id = 1")
            holding.set()
            await release.wait()

    writer = asyncio.create_task(slow_writer())
    await holding.wait()
    assert (await asyncio.wait_for(db.players.require(1), 2)).display_name == "Ann"
    async with asyncio.timeout(2), db.transaction(write=False) as tx:
        rows = list(await tx.execute_fetchall("SELECT display_name FROM players WHERE id = 1"))
    assert rows[0]["display_name"] == "Ann"
    release.set()
    await writer
    assert (await db.players.require(1)).display_name == "Bea"
