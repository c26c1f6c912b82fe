"""The action log rebuilds hands: store every action of a real game.table.Hand, restart, replay, play on."""

from __future__ import annotations

from pathlib import Path

from game.actions import Action
from game.ai import choose
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


async def test_a_hand_survives_a_restart_by_replay(db_path: Path, clock: Clock) -> None:
    # Restart halfway through, wherever the automatic players' tuning makes the hand end.
    restart_after = full_length(2026) // 2
    assert restart_after >= 5
    engine = EngineMatch(Rules(), seed=2026)
    hand = engine.new_hand()
    db = await Database.open(db_path, clock=clock)
    match = await seat_match(db, (1, 2, 3, None))
    stored = await db.hands.start(match.id, seed=hand.seed, dealer=hand.dealer)
    await play_and_store(db, stored.id, hand, stop_after=restart_after)
    assert len(hand.actions) == restart_after and not hand.finished
    await db.close()  # the bot stops mid-hand

    db = await Database.open(db_path, clock=clock)
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
