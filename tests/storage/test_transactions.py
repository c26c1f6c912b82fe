"""Transactions: an exception or a cancelled task inside one leaves nothing half-written, and the next one works."""

from __future__ import annotations

import asyncio

import pytest

from storage import Database
from tests.storage.conftest import NewMatch


async def test_an_exception_inside_a_transaction_rolls_it_back(db: Database) -> None:
    await db.players.upsert(1, "Ann")
    with pytest.raises(RuntimeError, match="boom"):
        async with db.transaction() as tx:
            await tx.execute("UPDATE players SET skill = 0 WHERE id = 1")
            raise RuntimeError("boom")
    assert (await db.players.require(1)).skill == 2400
    assert (await db.players.upsert(1, "Ann again")).display_name == "Ann again"


async def test_cancelling_close_midway_is_all_or_nothing(db: Database, new_match: NewMatch) -> None:
    match = await new_match((1, 2, 3, None))
    outcomes = set()
    # From before the first statement to well after the commit (a close takes well under 50 ms).
    for n, delay in enumerate([0.0, *(i * 0.0002 for i in range(1, 25)), 0.05]):
        hand = await db.hands.start(match.id, seed=n, dealer=0)
        task = asyncio.create_task(db.hands.close(hand.id, (30, -10, -10, -10), winner=0))
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
    assert player.skill == 2400 + 30 * done[0][0] and player.hands == done[0][0]
    assert (await db.matches.get(match.id)).totals == (
        30 * done[0][0],
        -10 * done[0][0],
        -10 * done[0][0],
        -10 * done[0][0],
    )
