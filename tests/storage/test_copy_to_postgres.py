"""python -m storage.copy_to_postgres: an operator's SQLite database, every table, into PostgreSQL, checked.

The source is generated through storage's own API: a few hundred real hands (two automatic players' games,
each stored many times over), with a league night, a flight, an abandoned hand and one still in play.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from game.facts import hand_facts
from game.table import Hand
from storage import Database, Period, Seat
from storage.codec import dump_json
from storage.copy_to_postgres import check_hands, copy_to_postgres, main
from storage.errors import StorageError
from storage.gateway import Tx
from tests.storage.test_verify_stats import played

HANDS = 300
SEEDS = range(2)
PLAYERS = (11, 12, 13, 14, 15)


async def store_played(db: Database, match_id: int, hand: Hand) -> int:
    """One more stored copy of a played hand: its deal, its actions (in one transaction), its settlement."""
    record = await db.hands.start(match_id, seed=hand.seed, dealer=hand.dealer)

    async def log(tx: Tx) -> None:
        await tx.executemany(
            "INSERT INTO actions (hand_id, seq, action) VALUES (?, ?, ?)",
            [(record.id, seq, dump_json(a.to_json(), "action")) for seq, a in enumerate(hand.actions)],
        )

    await db.write(log)
    result = hand.result
    assert result is not None
    await db.hands.close(record.id, result.payments, result.winner, result.to_json(), facts=hand_facts(hand))
    return record.id


async def fill(db: Database) -> None:
    """Every table gets rows."""
    for pid in PLAYERS:
        await db.players.upsert(pid, f"player {pid}")
    await db.players.set_username(11, "ann")
    await db.chats.update(-1, hands_per_game=16, language="en")
    league = await db.leagues.create(-1, "Friday", [4], "20:00", "Asia/Shanghai", "kaikoufan", night_hands=8)
    night = await db.leagues.schedule_night(league.id, datetime(2026, 12, 4, 12, tzinfo=UTC))
    await db.leagues.sign_up(night.id, 11)
    await db.live_messages.remember(-1, "table", 77, is_photo=True)
    await db.updates.claim(1001)
    stamp = "2026-11-29T12:00:00.000+00:00"  # the workers' inbox (PostgreSQL's alone; copied all the same)
    await db.execute(
        "INSERT INTO inbox (update_id, shard, received_at, body, done_at) VALUES (1001, 3, ?, '', ?)", (stamp, stamp)
    )
    await db.execute("INSERT INTO shard_owners (shard, epoch, taken_at) VALUES (3, 2, ?)", (stamp,))
    assert await db.seated.claim(11, -1, 0, 3, "a group") is None
    for pid in (11, 12, 13):  # the quick-match queue: one still waiting, two seated (the finished matches: ratings)
        await db.quick.join(pid, "kaikoufan", 60)
    await db.quick.seat([12, 13])
    stored = 0
    while stored < HANDS:
        chat = (-1, -2, -3)[stored % 3]
        seats = [Seat.human(PLAYERS[(stored + i) % 5]) for i in range(3)] + [Seat.auto()]
        match = await db.matches.create(
            chat, stored, "kaikoufan", seats, 16, league_night_id=night.id if chat == -1 else None
        )
        for _ in range(10):
            await store_played(db, match.id, played(SEEDS[stored % len(SEEDS)]))
            stored += 1
        await db.matches.finish(match.id)
    match = await db.matches.create(-2, 99, "kaikoufan", [Seat.human(11), Seat.human(12), Seat.auto(), Seat.auto()], 8)
    fled = await db.hands.start(match.id, seed=5, dealer=0)
    await db.hands.flee(fled.id, 1, (134, -400, 133, 133))
    await db.hands.abandon(fled.id)
    await db.hands.start(match.id, seed=6, dealer=1)  # still in play


async def rows_of(db: Database) -> dict[str, list[tuple[object, ...]]]:
    return {t: sorted(tuple(r) for r in await db.fetchall(f"SELECT * FROM {t}")) for t in await db.tables()}


async def test_a_copy_holds_every_row_and_every_hand_replays(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bot.sqlite3"
    async with await Database.open(source) as db:
        await fill(db)
        before = await rows_of(db)
        board = await db.standings.leaderboard(-1, Period.all_time())

    assert await asyncio.to_thread(main, [str(source), postgres_url]) == 0  # the command line
    out = capsys.readouterr().out
    assert f"{HANDS + 2} hands replay" in out
    assert ["actions", str(len(before["actions"])), "rows"] in [line.split() for line in out.splitlines()]

    async with await Database.open(postgres_url) as pg:
        assert await pg.tables() == sorted(before) and all(before.values())
        assert await rows_of(pg) == before
        assert await pg.standings.leaderboard(-1, Period.all_time()) == board
        assert (await pg.players.by_username("ANN")) is not None
        (playing,) = await pg.hands.unfinished()  # resumable there as it was
        assert playing.hand.seed == 6
        await pg.hands.abandon(playing.hand.id)
        match = await pg.matches.create(-2, 1, "kaikoufan", [Seat.auto()] * 4, 1)
        hand = await pg.hands.start(match.id, seed=1, dealer=0)  # new rows get new ids
        assert match.id > max(r[0] for r in before["matches"]) and hand.id == HANDS + 3

    # Into a database that holds rows: refused, and nothing changes.
    with pytest.raises(StorageError, match="already holds rows"):
        await copy_to_postgres(source, postgres_url)
    assert await asyncio.to_thread(main, [str(source), "not-a-url"]) == 1
    assert "the target must be a postgresql:// URL" in capsys.readouterr().err


async def test_the_check_finds_a_hand_that_does_not_replay(tmp_path: Path, postgres_url: str) -> None:
    import asyncpg

    source = tmp_path / "bot.sqlite3"
    async with await Database.open(source) as db:
        match = await db.matches.create(-1, 1, "kaikoufan", [Seat.auto()] * 4, 8)
        first = await store_played(db, match.id, played(0))
        await store_played(db, match.id, played(1))
    with sqlite3.connect(source) as raw:  # a log that no longer fits its seed
        raw.execute("UPDATE hands SET seed = seed + 1 WHERE id = ?", (first,))
    with pytest.raises(StorageError, match=f"1 problems: hand {first}: action #"):
        await copy_to_postgres(source, postgres_url)
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute("UPDATE hands SET seed = seed - 1 WHERE id = $1", first)
        assert await check_hands(conn) == 2
        await conn.execute("UPDATE settlements SET points = points + 1 WHERE hand_id = $1 AND seat = 0", first)
        with pytest.raises(StorageError, match="do not sum to zero"):
            await check_hands(conn)
    finally:
        await conn.close()
