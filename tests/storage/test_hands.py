"""Hands: the action log, closing with a settlement, abandoning, resuming, and every failure path."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from game.titles import START_SKILL
from storage import (
    ActionOrderError,
    AlreadyClosedError,
    CorruptDataError,
    Database,
    InvalidInputError,
    NotFoundError,
    Period,
    Seat,
)
from tests.storage.conftest import Clock, NewMatch


async def snapshot(db: Database) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, to show that a refused call changed nothing."""
    return {t: [tuple(r) for r in await db.fetchall(f"SELECT * FROM {t} ORDER BY 1, 2")] for t in await db.tables()}


async def test_actions_come_back_in_order(db: Database, new_match: NewMatch) -> None:
    match = await new_match()
    hand = await db.hands.start(match.id, seed=99, dealer=1)
    sent = [{"s": i % 4, "k": "discard", "t": f"{i % 9 + 1}m", "中": "红中"} for i in range(40)]
    for seq, action in enumerate(sent):
        await db.hands.append_action(hand.id, seq, action)
    assert await db.hands.actions(hand.id) == sent
    assert (hand.hand_no, hand.seed, hand.dealer, hand.status) == (1, 99, 1, "playing")
    assert hand.seats == (Seat.human(1), Seat.human(2), Seat.human(3), Seat.auto())


async def test_duplicate_and_gapped_seq_are_refused(db: Database, new_match: NewMatch) -> None:
    hand = await db.hands.start((await new_match()).id, seed=1, dealer=0)
    await db.hands.append_action(hand.id, 0, {"k": "discard"})
    await db.hands.append_action(hand.id, 1, {"k": "pass"})
    with pytest.raises(ActionOrderError, match=r"action #1 already stored \(next is #2\)"):
        await db.hands.append_action(hand.id, 1, {"k": "other"})
    with pytest.raises(ActionOrderError, match=r"action #5 would leave a gap \(next is #2\)"):
        await db.hands.append_action(hand.id, 5, {"k": "other"})
    assert await db.hands.actions(hand.id) == [{"k": "discard"}, {"k": "pass"}]


async def test_only_a_workers_fenced_view_marks_an_update_done_with_its_action(
    db: Database, new_match: NewMatch
) -> None:
    """In one process the update was claimed before it was handled (bot.updates.once): an unfenced view has no
    inbox update to mark, and refuses one without storing the action (a worker's, fenced: tests/cluster)."""
    hand = await db.hands.start((await new_match()).id, seed=1, dealer=0)
    await db.execute("INSERT INTO inbox (update_id, shard, received_at, body) VALUES (5, 3, '2026-11-29', '{}')")
    with pytest.raises(InvalidInputError, match="fenced view"):
        await db.hands.append_action(hand.id, 0, {"k": "discard"}, done=5)
    rows = await db.fetchall("SELECT update_id, done_at, body FROM inbox")
    assert [(r["update_id"], r["done_at"], r["body"]) for r in rows] == [(5, None, "{}")]
    assert await db.hands.actions(hand.id) == []


async def test_bad_actions_are_refused(db: Database, new_match: NewMatch) -> None:
    hand = await db.hands.start((await new_match()).id, seed=1, dealer=0)
    with pytest.raises(InvalidInputError, match="JSON object"):
        await db.hands.append_action(hand.id, 0, ["discard"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="cannot be stored as JSON"):
        await db.hands.append_action(hand.id, 0, {"t": {1, 2}})
    with pytest.raises(InvalidInputError, match="cannot be stored as JSON"):
        await db.hands.append_action(hand.id, 0, {"x": float("nan")})
    with pytest.raises(InvalidInputError, match="seq must be"):
        await db.hands.append_action(hand.id, -1, {"k": "pass"})
    with pytest.raises(NotFoundError, match="no hand 999"):
        await db.hands.append_action(999, 0, {"k": "pass"})
    with pytest.raises(NotFoundError, match="no hand 999"):
        await db.hands.actions(999)
    assert await db.hands.actions(hand.id) == []


async def test_close_settles_everything_at_once(db: Database, new_match: NewMatch, clock: Clock) -> None:
    match = await new_match((1, 2, 3, None))
    hand = await db.hands.start(match.id, seed=5, dealer=0)
    await db.hands.append_action(hand.id, 0, {"s": 0, "k": "hu"})
    clock.advance(minutes=7)
    closed = await db.hands.close(hand.id, (1700, -500, -600, -600), winner=0, summary={"patterns": ["qing_yi_se"]})
    assert [r.points for r in closed.results] == [1700, -500, -600, -600]
    assert [(r.skill_before, r.skill_after) for r in closed.results] == [
        (START_SKILL, START_SKILL + 1700),
        (START_SKILL, START_SKILL - 500),
        (START_SKILL, START_SKILL - 600),
        (None, None),
    ]
    assert [r.title_after.zh if r.title_after else None for r in closed.results] == ["研究生", "本科生", "本科生", None]
    assert closed.results[0].title_changed and not closed.results[1].title_changed  # a loss inside the band
    assert closed.match_totals == (1700, -500, -600, -600)
    stored = await db.hands.get(hand.id)
    assert (stored.status, stored.winner, stored.summary, stored.ended_at) == (
        "done",
        0,
        {"patterns": ["qing_yi_se"]},
        clock.now,
    )
    winner = await db.players.require(1)
    assert (winner.skill, winner.title.zh, winner.hands, winner.wins, winner.biggest_win) == (
        START_SKILL + 1700,
        "研究生",
        1,
        1,
        1700,
    )
    loser = await db.players.require(2)
    assert (loser.skill, loser.hands, loser.wins, loser.biggest_win) == (START_SKILL - 500, 1, 0, 0)
    assert (await db.matches.get(match.id)).totals == (1700, -500, -600, -600)
    rows = await db.fetchall(
        "SELECT seat, player_id, points, won FROM settlements WHERE hand_id = ? ORDER BY seat", (hand.id,)
    )
    assert [tuple(r) for r in rows] == [(0, 1, 1700, 1), (1, 2, -500, 0), (2, 3, -600, 0), (3, None, -600, 0)]
    board = await db.standings.leaderboard(-100, Period.all_time())
    assert [(e.player_id, e.points) for e in board] == [(1, 1700), (2, -500), (3, -600)]


async def test_a_flee_penalty_is_stored_at_once_and_settled_with_its_hand(
    db: Database, db_target: str | Path, clock: Clock, new_match: NewMatch
) -> None:
    hand = (await db.hands.start((await new_match((1, 2, 3, None))).id, seed=8, dealer=0)).id
    # Seat 1 flees (400: 134 + 133 + 133 to the others), then the bot dies before the hand ends.
    async with await Database.open(db_target, clock=clock) as bot:
        await bot.hands.add_penalty(hand, (134, -400, 133, 133))
    async with await Database.open(db_target, clock=clock) as restarted:
        assert await restarted.hands.penalties(hand) == (134, -400, 133, 133)
        closed = await restarted.hands.close(hand, (0, 0, 0, 0), winner=None, summary={"exhausted": True})
    assert [r.points for r in closed.results] == [134, -400, 133, 133]
    assert closed.match_totals == (134, -400, 133, 133)
    assert (await db.players.require(2)).skill == START_SKILL - 400


async def test_a_flight_stores_its_penalty_and_frees_the_seat_together_once(db: Database, new_match: NewMatch) -> None:
    match = await new_match((1, 2, 3, None))
    hand = (await db.hands.start(match.id, seed=8, dealer=0)).id
    await db.hands.flee(hand, 1, (134, -400, 133, 133))
    assert (await db.matches.get(match.id)).seats[1].is_auto
    before = await snapshot(db)
    with pytest.raises(AlreadyClosedError):  # the seat has no player any more: nobody pays twice
        await db.hands.flee(hand, 1, (134, -400, 133, 133))
    with pytest.raises(AlreadyClosedError):  # an automatic player never flees
        await db.hands.flee(hand, 3, (133, 133, 134, -400))
    assert await snapshot(db) == before
    assert await db.hands.penalties(hand) == (134, -400, 133, 133)


async def test_bad_penalties_change_nothing(db: Database, new_match: NewMatch) -> None:
    hand = await db.hands.start((await new_match()).id, seed=3, dealer=0)
    before = await snapshot(db)
    with pytest.raises(InvalidInputError, match="sum to zero"):
        await db.hands.add_penalty(hand.id, (-400, 133, 133, 133))
    with pytest.raises(InvalidInputError, match="4 seats"):
        await db.hands.add_penalty(hand.id, (-400, 400))
    with pytest.raises(NotFoundError):
        await db.hands.add_penalty(hand.id + 99, (-400, 134, 133, 133))
    assert await snapshot(db) == before
    await db.hands.close(hand.id, (0, 0, 0, 0), winner=None)
    with pytest.raises(AlreadyClosedError):
        await db.hands.add_penalty(hand.id, (-400, 134, 133, 133))


async def test_exhausted_hand_counts_as_played_without_points(db: Database, new_match: NewMatch) -> None:
    hand = await db.hands.start((await new_match()).id, seed=5, dealer=0)
    closed = await db.hands.close(hand.id, (0, 0, 0, 0), winner=None)
    assert all(r.points == 0 for r in closed.results)
    player = await db.players.require(1)
    assert (player.skill, player.hands, player.wins) == (START_SKILL, 1, 0)
    assert (await db.hands.get(hand.id)).summary is None


@pytest.mark.parametrize(
    ("payments", "winner", "error", "message"),
    [
        ((10, -10, 0), 0, InvalidInputError, "4 seats"),
        ((10, -10, 0, 1), 0, InvalidInputError, "sum to zero, not 1"),
        ((True, -1, 0, 0), 0, InvalidInputError, "payment of seat 0"),
        ((10, -10, 0, 0), 4, InvalidInputError, "winner must be between 0 and 3"),
        ((10, -10, 0, 0), 0, NotFoundError, "no hand 999"),
    ],
)
async def test_bad_settlements_change_nothing(
    db: Database, new_match: NewMatch, payments: tuple[int, ...], winner: int, error: type[Exception], message: str
) -> None:
    hand = await db.hands.start((await new_match()).id, seed=5, dealer=0)
    before = await snapshot(db)
    with pytest.raises(error, match=message):
        await db.hands.close(999 if error is NotFoundError else hand.id, payments, winner)
    assert await snapshot(db) == before


async def test_a_hand_closes_once_and_takes_no_more_actions(db: Database, new_match: NewMatch) -> None:
    hand = await db.hands.start((await new_match()).id, seed=5, dealer=0)
    await db.hands.close(hand.id, (30, -10, -10, -10), winner=0)
    before = await snapshot(db)
    with pytest.raises(AlreadyClosedError, match="already done"):
        await db.hands.close(hand.id, (30, -10, -10, -10), winner=0)
    with pytest.raises(AlreadyClosedError, match="no more actions"):
        await db.hands.append_action(hand.id, 0, {"k": "pass"})
    with pytest.raises(AlreadyClosedError):
        await db.hands.abandon(hand.id)
    assert await snapshot(db) == before


async def test_unserialisable_summary_changes_nothing(db: Database, new_match: NewMatch) -> None:
    hand = await db.hands.start((await new_match()).id, seed=5, dealer=0)
    before = await snapshot(db)
    with pytest.raises(InvalidInputError, match="summary"):
        await db.hands.close(hand.id, (30, -10, -10, -10), winner=0, summary={"x": object()})
    assert await snapshot(db) == before


async def test_hands_are_numbered_and_one_plays_at_a_time(db: Database, new_match: NewMatch) -> None:
    match = await new_match()
    first = await db.hands.start(match.id, seed=1, dealer=0)
    with pytest.raises(InvalidInputError, match="already has hand"):
        await db.hands.start(match.id, seed=2, dealer=0)
    await db.hands.abandon(first.id)
    second = await db.hands.start(match.id, seed=2, dealer=1)
    assert (first.hand_no, second.hand_no) == (1, 2)
    assert (await db.hands.get(first.id)).status == "abandoned"
    with pytest.raises(NotFoundError, match="no match 77"):
        await db.hands.start(77, seed=1, dealer=0)
    with pytest.raises(InvalidInputError, match="seed"):
        await db.hands.start(match.id, seed=2**63, dealer=0)
    with pytest.raises(InvalidInputError, match="dealer"):
        await db.hands.start(match.id, seed=1, dealer=4)


async def test_unfinished_hands_come_back_with_their_actions(db_target: str | Path, clock: Clock) -> None:
    from tests.storage.conftest import seat_match

    db = await Database.open(db_target, clock=clock)
    open_hands = []
    for chat in (-1, -2, -3):
        match = await seat_match(db, (1, 2, None, None) if chat != -2 else (3, None, None, 4), chat_id=chat)
        hand = await db.hands.start(match.id, seed=-chat, dealer=0)
        for seq in range(-chat * 3):
            await db.hands.append_action(hand.id, seq, {"chat": chat, "n": seq})
        open_hands.append(hand)
    await db.hands.close(open_hands[1].id, (0, 0, 0, 0), winner=None)
    await db.close()

    db = await Database.open(db_target, clock=clock)
    try:
        resumable = await db.hands.unfinished()
        assert [r.hand.id for r in resumable] == [open_hands[0].id, open_hands[2].id]
        assert [r.hand.chat_id for r in resumable] == [-1, -3]
        assert resumable[1].actions == [{"chat": -3, "n": n} for n in range(9)]
        assert resumable[0].match.seats == (Seat.human(1), Seat.human(2), Seat.auto(), Seat.auto())
        assert resumable[0].hand.seats == resumable[0].match.seats
    finally:
        await db.close()


async def test_bad_json_cannot_be_stored_and_is_reported_when_found(
    db: Database, db_path: Path, new_match: NewMatch
) -> None:
    hand = await db.hands.start((await new_match()).id, seed=5, dealer=0)
    await db.hands.append_action(hand.id, 0, {"k": "pass"})
    with sqlite3.connect(db_path) as raw, pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        raw.execute("INSERT INTO actions VALUES (?, 1, '{not json')", (hand.id,))
    # A damaged file (checks bypassed) is reported by name rather than crashing the resume loop.
    with sqlite3.connect(db_path) as raw:
        raw.execute("PRAGMA ignore_check_constraints = ON")
        raw.execute("INSERT INTO actions VALUES (?, 1, '{not json')", (hand.id,))
    with pytest.raises(CorruptDataError, match=rf"action #1 of hand {hand.id} holds bad JSON"):
        await db.hands.actions(hand.id)
    with pytest.raises(CorruptDataError, match="bad JSON"):
        await db.hands.unfinished()


async def test_stored_rules_the_code_no_longer_knows_are_reported(
    db: Database, db_path: Path, new_match: NewMatch
) -> None:
    hand = await db.hands.start((await new_match()).id, seed=5, dealer=0)
    with sqlite3.connect(db_path) as raw:
        raw.execute("""UPDATE hands SET rules = '{"preset":"kaikoufan","retired_option":1}' WHERE id = ?""", (hand.id,))
    with pytest.raises(CorruptDataError, match=f"hand {hand.id} holds rules.*retired_option"):
        await db.hands.get(hand.id)


async def test_a_flees_compensation_is_no_win_and_no_biggest_win(db: Database, new_match: NewMatch) -> None:
    match = await new_match((1, 2, 3, None))
    first = (await db.hands.start(match.id, seed=8, dealer=0)).id
    await db.hands.flee(first, 1, (134, -400, 133, 133))  # seat 1 flees; then seat 0 wins 60 on a discard
    await db.hands.close(first, (60, 0, -60, 0), winner=0)
    for player_id, wins, biggest in ((1, 1, 60), (3, 0, 0)):  # 60 + 134 is not a hand's win; 133 is none at all
        player = await db.players.require(player_id)
        assert (player.hands, player.wins, player.biggest_win) == (1, wins, biggest), player_id
    board = await db.standings.leaderboard(-100, Period.all_time())
    assert {e.player_id: (e.wins, e.biggest_win) for e in board}[3] == (0, 0)
