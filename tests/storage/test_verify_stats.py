"""Verifiable deals, share codes and statistics in storage (migrations 0006, 0007)."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from game.actions import Action
from game.automatic import choose
from game.facts import SeatFacts, hand_facts
from game.melds import SELF_DRAWN
from game.rules import Rules
from game.table import Hand
from game.verify import SHARE_ALPHABET, matches
from storage import Database, Period
from storage.hands import HandRecord
from storage.schema import LATEST_VERSION
from storage.stats import pattern_mask
from tests.storage.conftest import Clock, seat_match
from tests.storage.test_migrations import at_version

SEEDS = range(12)  # automatic players win each of these hands: discards and self-draws, caps and a 金顶


@cache
def played(seed: int) -> Hand:
    hand = Hand(Rules(), seed, seed % 4)
    while not hand.finished:
        hand.apply(choose(hand.view(hand.waiting_on()[0]), "easy", seed=len(hand.actions)))
    return hand


async def store(db: Database, match_id: int, hand: Hand, tuoguan: tuple[int, ...] = (0, 0, 0, 0)) -> int:
    record = await db.hands.start(match_id, seed=hand.seed, dealer=hand.dealer)
    for seq, action in enumerate(hand.actions):
        await db.hands.append_action(record.id, seq, action.to_json())
    result = hand.result
    assert result is not None
    await db.hands.close(
        record.id, result.payments, result.winner, result.to_json(), facts=hand_facts(hand), tuoguan=tuoguan
    )
    return record.id


async def test_the_commitment_is_revealed_only_once_the_hand_is_settled(db: Database) -> None:
    match = await seat_match(db)
    hand = played(3)
    record = await db.hands.start(match.id, seed=hand.seed, dealer=hand.dealer)
    assert record.commitment is not None and len(record.commitment) == 64
    assert "salt" not in HandRecord.__dataclass_fields__
    assert await db.hands.reveal(record.id) is None and record.share_code is None
    assert await db.hands.share_code(record.id) is None
    await db.hands.close(record.id, (0, 0, 0, 0), None, {"stopped": True})
    reveal = await db.hands.reveal(record.id)
    assert reveal is not None and reveal.seed == hand.seed and reveal.commitment == record.commitment
    assert matches(reveal.text, record.commitment)
    abandoned = await db.hands.start(match.id, seed=5, dealer=0)
    await db.hands.abandon(abandoned.id)
    assert await db.hands.reveal(abandoned.id) is None and await db.hands.share_code(abandoned.id) is None


async def test_a_share_code_finds_everything_a_replay_needs(db: Database) -> None:
    match = await seat_match(db, (1, 2, 3, None))
    hand = played(4)
    hand_id = await store(db, match.id, hand)
    code = await db.hands.share_code(hand_id)
    assert code is not None and len(code) == 6 and set(code) <= set(SHARE_ALPHABET)
    assert (await db.hands.get(hand_id)).share_code == code
    shared = await db.hands.by_code(f" {code.lower()} ")
    assert shared is not None and shared.code == code and shared.hand.id == hand_id
    assert shared.names == ("player 1", "player 2", "player 3", None)
    assert shared.hand.chat_id == -100 and shared.hand.winner == hand.result.winner  # type: ignore[union-attr]
    replayed = Hand.replay(
        shared.hand.rules, shared.hand.seed, shared.hand.dealer, [Action.from_json(a) for a in shared.actions]
    )
    assert replayed.view(None) == hand.view(None)
    assert sum(shared.points) == 0 and shared.reveal is not None and shared.reveal.seed == hand.seed
    for missing in ("", "ABC", "0OIL11", "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"):
        assert await db.hands.by_code(missing) is None


async def test_a_share_code_already_taken_is_drawn_again(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    match = await seat_match(db, (1, 2, 3, None))
    first = await db.hands.start(match.id, seed=1, dealer=0)
    taken = (await db.hands.close(first.id, (0, 0, 0, 0), winner=None)).share_code
    letters = iter(taken + "QQQQQQ")  # the next close draws the taken code first, then QQQQQQ
    monkeypatch.setattr("storage.hands.secrets.choice", lambda alphabet: next(letters))
    second = await db.hands.start(match.id, seed=2, dealer=1)
    closed = await db.hands.close(second.id, (0, 0, 0, 0), winner=None)
    assert (closed.share_code, (await db.hands.get(second.id)).status) == ("QQQQQQ", "done")
    assert (await db.hands.get(first.id)).share_code == taken


async def test_hands_settled_before_codes_get_one_when_asked(db: Database, db_path: Path) -> None:
    match = await seat_match(db)
    ids = [await store(db, match.id, played(s)) for s in (0, 1)]
    with sqlite3.connect(db_path) as conn:  # as migration 0006 leaves older hands
        conn.execute("UPDATE hands SET share_code = NULL, salt = NULL, commitment = NULL")
    codes = [await db.hands.share_code(i) for i in ids]
    assert None not in codes and codes[0] != codes[1]
    assert codes == [await db.hands.share_code(i) for i in ids]  # given once, then kept
    assert await db.hands.reveal(ids[0]) is None  # no salt was ever stored for it


def expected_counts(facts: list[SeatFacts], points: list[int]) -> dict[str, int]:
    wins = [(f, p) for f, p in zip(facts, points, strict=True) if f.won]
    return {
        "hands": len(facts),
        "wins": len(wins),
        "self_draws": sum(f.how in SELF_DRAWN for f, _ in wins),
        "deal_ins": sum(f.dealt_in for f in facts),
        "opened": sum(f.opened for f in facts),
        "win_points": sum(p for _, p in wins),
        "loss_points": sum(p for p in points if p < 0),
        "hard_wins": sum(bool(f.hard) for f, _ in wins),
        "capped_wins": sum(f.cap == "capped" for f, _ in wins),
        "golden_wins": sum(f.cap == "golden" for f, _ in wins),
        "pi_hu": sum("pi_hu" in f.patterns for f, _ in wins),
        "quan_qiu_ren": sum("quan_qiu_ren" in f.patterns for f, _ in wins),
    }


async def test_player_stats_add_up_the_facts_of_each_hand(db: Database, clock: Clock) -> None:
    match = await seat_match(db, (1, 2, 3, 4))
    facts, points = [], []
    for n, seed in enumerate(SEEDS):
        if n == len(SEEDS) // 2:
            clock.now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)  # the second half in December
        hand = played(seed)
        await store(db, match.id, hand, tuoguan=(n % 2, 0, 0, 0))
        facts.append(hand_facts(hand)[0])
        points.append(hand.result.payments[0])  # type: ignore[union-attr]
    card = await db.stats.player(1, clock.now)
    for stats, part in ((card.all_time, slice(None)), (card.month, slice(len(SEEDS) // 2, None))):
        want = expected_counts(facts[part], points[part])
        got = {k: getattr(stats, k) for k in want if k not in ("pi_hu", "quan_qiu_ren")}
        got |= {"pi_hu": stats.patterns["pi_hu"], "quan_qiu_ren": stats.patterns["quan_qiu_ren"]}
        assert got == want
        assert stats.deal_in_known == stats.open_known == stats.hands
    assert card.all_time.tuoguan == len(SEEDS) // 2 and card.all_time.wins > 0
    assert card.season_period == Period.quarter_of(clock.now) and card.season_label == "2026-Q4"
    assert card.season == card.all_time  # every hand fell in 2026-Q4
    assert 0 < card.all_time.win_rate < 1 and card.all_time.average_loss < 0 < card.all_time.average_win
    assert card.all_time.biggest_win == max([0, *(p for f, p in zip(facts, points, strict=True) if f.won)])


async def test_a_league_player_s_season_is_the_league_season(db: Database, clock: Clock) -> None:
    league = await db.leagues.create(-100, "Friday", [4], "20:00", "UTC", "kaikoufan", night_hands=8)
    night = await db.leagues.schedule_night(league.id, datetime(2026, 12, 4, 20, 0, tzinfo=UTC))
    league_match = await seat_match(db, (1, 2, 3, 4), league_night_id=night.id)
    assert await db.leagues.sign_up(night.id, 1)
    await store(db, league_match.id, played(0))
    await db.matches.finish(league_match.id)
    other = await seat_match(db, (1, 2, 3, 4))
    await store(db, other.id, played(1))
    card = await db.stats.player(1, clock.now, chat_id=-100)
    assert card.season_period == Period.league_season(league.id, 1) and card.season_label == "Friday S1"
    assert (card.season.hands, card.all_time.hands) == (1, 2)
    assert await db.standings.season_of(-100, clock.now) == Period.league_season(league.id, 1)
    assert await db.standings.season_of(-999, clock.now) == Period.quarter_of(clock.now)


async def test_pattern_boards_and_week_boards(db: Database, clock: Clock) -> None:
    match = await seat_match(db, (1, 2, 3, 4))
    hands = [played(s) for s in SEEDS]
    for hand in hands:
        await store(db, match.id, hand)
    wins = [0] * 4
    hard = [0] * 4
    for hand in hands:
        assert hand.result is not None
        wins[hand.result.winner] += 1
        hard[hand.result.winner] += not hand.result.soft
    board = await db.stats.pattern_board(-100, "pi_hu")
    pi_hu = [sum(h.result.winner == s and "pi_hu" in h.result.patterns for h in hands) for s in range(4)]  # type: ignore[union-attr]
    assert {e.player_id: e.times for e in board} == {s + 1: n for s, n in enumerate(pi_hu) if n}
    assert [e.times for e in board] == sorted((e.times for e in board), reverse=True)
    hard_board = await db.stats.pattern_board(-100, "hard", Period.month_of(clock.now))
    assert {e.player_id: (e.times, e.wins) for e in hard_board} == {
        s + 1: (hard[s], wins[s]) for s in range(4) if hard[s]
    }
    assert await db.stats.pattern_board(-100, "qing_yi_se") == []
    week = await db.standings.leaderboard(-100, Period.week_of(clock.now))
    assert week == await db.standings.leaderboard(-100, Period.all_time())
    assert Period.week_of(clock.now).key == "week:2026-11-23" and Period.week_of(clock.now).since == datetime(
        2026, 11, 23, tzinfo=UTC
    )


def _as_version_6(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary as version 6 stored it: its breakdown named the seats "Seat 0" … (now by their winds)."""
    winds = ("East", "South", "West", "North")
    en = [re.sub(r"^(East|South|West|North)\b", lambda m: f"Seat {winds.index(m[1])}", line)
          for line in summary["breakdown"]["en"]]  # fmt: skip
    return {**summary, "breakdown": {**summary["breakdown"], "en": en}}


async def test_migration_0007_backfills_the_facts_of_won_hands(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    await at_version(path, 6)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO players VALUES (1, 'Old', 'zh', 2400, '本科生', 0, 0, 0, '2026-01-01T00:00:00.000+00:00')"
        )
        conn.execute(
            "INSERT INTO matches (id, chat_id, seed, rules, hands_planned, status, started_at)"
            " VALUES (1, -5, 0, '{\"preset\":\"kaikoufan\"}', 99, 'done', '2026-01-01T00:00:00.000+00:00')"
        )
        for n, seed in enumerate([*SEEDS, None], start=1):
            result = played(seed).result if seed is not None else None
            summary = _as_version_6(result.to_json()) if result else {"exhausted": True}
            conn.execute(
                "INSERT INTO hands (id, match_id, hand_no, seed, dealer, rules, status, started_at, ended_at, winner,"
                " summary) VALUES (?, 1, ?, 0, 0, '{\"preset\":\"kaikoufan\"}', 'done', ?, ?, ?, ?)",
                (
                    n,
                    n,
                    "2026-01-05T00:00:00.000+00:00",
                    "2026-01-05T00:00:00.000+00:00",
                    result.winner if result else None,
                    json.dumps(summary, ensure_ascii=False),
                ),
            )
            for seat in range(4):
                conn.execute(
                    "INSERT INTO settlements (hand_id, seat, player_id, chat_id, ended_at, points, won)"
                    " VALUES (?, ?, ?, -5, '2026-01-05T00:00:00.000+00:00', ?, ?)",
                    (
                        n,
                        seat,
                        1 if seat == 0 else None,
                        result.payments[seat] if result else 0,
                        int(result is not None and result.winner == seat),
                    ),
                )
    db = await Database.open(path)
    await db.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        rows = conn.execute(
            "SELECT hand_id, seat, how, dealt_in, opened, patterns, hard, cap FROM settlements ORDER BY hand_id, seat"
        ).fetchall()
        weeks = conn.execute("SELECT period, hands FROM standings WHERE period LIKE 'week:%'").fetchall()
    for hand_id, seat, how, dealt_in, opened, patterns, hard, cap in rows:
        if hand_id > len(SEEDS):  # the exhausted hand: nobody dealt in; who opened is unknown
            assert (how, dealt_in, opened, patterns, hard, cap) == (None, 0, None, 0, None, None)
            continue
        f = hand_facts(played(SEEDS[hand_id - 1]))[seat]
        assert (how, dealt_in, opened, patterns, hard, cap) == (
            f.how,
            int(f.dealt_in),
            int(f.opened),
            pattern_mask(f.patterns),
            None if f.hard is None else int(f.hard),
            f.cap,
        ), (hand_id, seat)
    assert weeks == [("week:2026-01-05", len(SEEDS) + 1)]
