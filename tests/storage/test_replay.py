"""The action log rebuilds hands: store every action of a real game.table.Hand, restart, replay, play on."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from game.actions import Action
from game.automatic import choose
from game.match import Match as EngineMatch
from game.rules import Rules
from game.table import Hand
from storage import Database
from tests.storage.conftest import Clock, seat_match


async def play_and_store(db: Database, hand_id: int, hand: Hand, stop_after: int | None = None) -> None:
    """Let automatic players act, appending each action before moving on (as the bot does)."""
    while not hand.finished and (stop_after is None or len(hand.actions) < stop_after):
        seat = hand.waiting_on()[0]
        action = choose(hand.view(seat), "easy", seed=len(hand.actions))
        hand.apply(action)
        await db.hands.append_action(hand_id, len(hand.actions) - 1, action.to_json())


def full_length(seed: int) -> int:
    """How many actions the hand of this match seed takes when played through (automatic players are deterministic)."""
    hand = EngineMatch(Rules(), seed=seed).new_hand()
    while not hand.finished:
        seat = hand.waiting_on()[0]
        hand.apply(choose(hand.view(seat), "easy", seed=len(hand.actions)))
    return len(hand.actions)


async def test_a_hand_survives_a_restart_by_replay(db_target: str | Path, clock: Clock) -> None:
    # Restart halfway through, wherever the automatic players' tuning makes the hand end.
    restart_after = full_length(2026) // 2
    assert restart_after >= 5
    engine = EngineMatch(Rules(), seed=2026)
    hand = engine.new_hand()
    db = await Database.open(db_target, clock=clock)
    match = await seat_match(db, (1, 2, 3, None))
    stored = await db.hands.start(match.id, seed=hand.seed, dealer=hand.dealer)
    await play_and_store(db, stored.id, hand, stop_after=restart_after)
    assert len(hand.actions) == restart_after and not hand.finished
    await db.close()  # the bot stops mid-hand

    db = await Database.open(db_target, clock=clock)
    try:
        (resumable,) = await db.hands.unfinished()
        record = resumable.hand
        actions = [Action.from_json(a) for a in resumable.actions]
        assert actions == hand.actions[:restart_after]
        rebuilt = Hand.replay(record.rules, record.seed, record.dealer, actions)
        for seat in (None, 0, 1, 2, 3):
            assert rebuilt.view(seat) == hand.view(seat)

        await play_and_store(db, record.id, rebuilt)
        assert rebuilt.finished and len(rebuilt.actions) > restart_after
        payments = rebuilt.result.payments if rebuilt.result else (0, 0, 0, 0)
        winner = rebuilt.result.winner if rebuilt.result else None
        summary = rebuilt.result.to_json() if rebuilt.result else {"exhausted": True}
        closed = await db.hands.close(record.id, payments, winner, summary)
        assert closed.match_totals == tuple(payments)

        # The whole stored log replays to the same finished hand.
        final = Hand.replay(
            record.rules, record.seed, record.dealer, [Action.from_json(a) for a in await db.hands.actions(record.id)]
        )
        assert final.finished and final.actions == rebuilt.actions
        assert final.view(None) == rebuilt.view(None)
        assert (await db.hands.get(record.id)).summary == summary
        assert await db.hands.unfinished() == []
    finally:
        await db.close()


# A hand of seed 988 (dealer 0) as the rollout players played it before 抢杠 was paid 杠进杠出: seat 3 adds a
# kong of 2m and seat 1 robs it. Its stored rules, written then, do not name qiang_gang_pay.
ROBBED_SEED = 988
ROBBED_LOG = (
    "0 hongzhong_gang|0 laizi_gang|0 discard 2z|1 discard 8m|2 hongzhong_gang|2 discard 2m|3 peng 2m|3 discard 7m|"
    "0 discard 4m|1 discard 3z|2 discard 5p|1 peng 5p|1 discard 9s|0 peng 9s|0 discard 5m|1 discard 1p|"
    "2 discard 4m|3 discard 5m|0 discard 6z|1 discard 1s|2 peng 1s|2 discard 1z|3 peng 1z|3 discard 3p|"
    "1 peng 3p|1 discard 6s|2 discard 6m|3 xu_gang 2m|1 hu"
)


def robbed_actions() -> list[Action]:
    out = []
    for step in ROBBED_LOG.split("|"):
        seat, kind, *tile = step.split()
        out.append(Action.from_json({"s": int(seat), "k": kind, **({"t": tile[0]} if tile else {})}))
    return out


async def test_a_hand_stored_before_gang_kai_replays_and_settles_as_played(db: Database, db_path: Path) -> None:
    match = await seat_match(db, (1, 2, 3, None))
    old = await db.hands.start(match.id, seed=ROBBED_SEED, dealer=0)
    with sqlite3.connect(db_path) as raw:  # rules as they were stored then
        raw.execute("""UPDATE hands SET rules = '{"preset": "kaikoufan"}' WHERE id = ?""", (old.id,))
    for seq, action in enumerate(robbed_actions()):
        await db.hands.append_action(old.id, seq, action.to_json())
    record = await db.hands.get(old.id)
    assert record.rules.qiang_gang_pay == "robber"
    stored = [Action.from_json(a) for a in await db.hands.actions(old.id)]
    replayed = Hand.replay(record.rules, record.seed, record.dealer, stored)
    assert replayed.result is not None and replayed.result.how == "rob_gang" and not replayed.result.gang_kai
    assert replayed.result.payments == (0, 460, 0, -460)  # as it was played and settled
    await db.hands.close(old.id, replayed.result.payments, 1, replayed.result.to_json())

    # A hand started now stores the option by name, and the same moves are paid 杠进杠出.
    new = await db.hands.start(match.id, seed=ROBBED_SEED, dealer=0)
    (row,) = await db.fetchall("SELECT rules FROM hands WHERE id = ?", (new.id,))
    assert json.loads(row[0]) == {"preset": "kaikoufan", "qiang_gang_pay": "gang_kai"}
    record = await db.hands.get(new.id)
    assert record.rules == Rules()
    played_now = Hand.replay(record.rules, record.seed, record.dealer, stored)
    assert played_now.result is not None and played_now.result.payments == (0, 660, 0, -660)
