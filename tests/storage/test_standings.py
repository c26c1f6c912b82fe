"""Standings: leaderboards over all time, a month and a league season; the player card; /history."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from game.titles import START_SKILL
from storage import Database, InvalidInputError, NotFoundError, Period
from tests.storage.conftest import Clock, seat_match


async def play(
    db: Database, match_id: int, payments: tuple[int, int, int, int], winner: int | None, summary: object = None
) -> int:
    hand = await db.hands.start(match_id, seed=1, dealer=0)
    await db.hands.close(hand.id, payments, winner, summary)
    return hand.id


def board_of(entries: list) -> list[tuple[int, int, int, int]]:  # type: ignore[type-arg]
    return [(e.player_id, e.points, e.hands, e.wins) for e in entries]


async def test_leaderboard_by_period(db: Database, clock: Clock) -> None:
    clock.now = datetime(2026, 11, 30, 23, 0, tzinfo=UTC)
    match = await seat_match(db, (1, 2, 3, None))
    other_chat = await seat_match(db, (5, 2, None, None), chat_id=-200)
    await play(db, match.id, (300, -100, -100, -100), winner=0)
    await play(db, other_chat.id, (-50, 150, -50, -50), winner=1)
    november = Period.month_of(clock.now)
    clock.advance(hours=2)  # 2026-12-01 01:00 UTC
    await play(db, match.id, (-40, -40, 120, -40), winner=2)

    assert board_of(await db.standings.leaderboard(-100, Period.all_time())) == [
        (1, 260, 2, 1),
        (3, 20, 2, 1),
        (2, -140, 2, 0),
    ]
    assert board_of(await db.standings.leaderboard(-100, november)) == [
        (1, 300, 1, 1),
        (2, -100, 1, 0),
        (3, -100, 1, 0),
    ]
    assert board_of(await db.standings.leaderboard(-100, Period.month_of(clock.now))) == [
        (3, 120, 1, 1),
        (1, -40, 1, 0),
        (2, -40, 1, 0),
    ]
    assert board_of(await db.standings.leaderboard(-200, Period.all_time())) == [(2, 150, 1, 1), (5, -50, 1, 0)]
    top = await db.standings.leaderboard(-100, Period.all_time(), limit=1)
    shown = [(e.rank, e.display_name, e.skill, e.title.zh) for e in top]
    assert shown == [(1, "player 1", START_SKILL + 260, "本科生")]
    assert await db.standings.leaderboard(-999, Period.all_time()) == []
    with pytest.raises(InvalidInputError, match="limit"):
        await db.standings.leaderboard(-100, Period.all_time(), limit=0)


async def test_equal_points_rank_by_wins(db: Database) -> None:
    match = await seat_match(db, (1, 2, 3, 4))
    await play(db, match.id, (60, -20, -20, -20), winner=0)  # 1: +60 (1 win, 1 hand)
    await play(db, match.id, (-30, 90, -30, -30), winner=1)  # 1: +30, 2: +70
    await play(db, match.id, (-10, -10, 30, -10), winner=2)
    board = await db.standings.leaderboard(-100, Period.all_time())
    assert [(e.player_id, e.points) for e in board] == [(2, 60), (1, 20), (3, -20), (4, -60)]
    # Two players on the same points: the one with more wins ranks first.
    await play(db, match.id, (40, -40, 0, 0), winner=0)
    board = await db.standings.leaderboard(-100, Period.all_time())
    assert [(e.player_id, e.points, e.wins) for e in board[:2]] == [(1, 60, 2), (2, 20, 1)]
    await play(db, match.id, (0, 40, 0, -40), winner=None)
    board = await db.standings.leaderboard(-100, Period.all_time())
    assert [(e.player_id, e.points, e.wins) for e in board[:2]] == [(1, 60, 2), (2, 60, 1)]


async def test_league_seasons_have_their_own_boards(db: Database) -> None:
    league = await db.leagues.create(-100, "Friday", [4], "20:00", "UTC", "kaikoufan", night_minutes=120)
    night1 = await db.leagues.schedule_night(league.id, datetime(2026, 12, 4, 20, 0, tzinfo=UTC))
    match1 = await seat_match(db, (1, 2, 3, None), league_night_id=night1.id)
    await play(db, match1.id, (90, -30, -30, -30), winner=0)
    await db.matches.finish(match1.id)
    await db.leagues.new_season(league.id)
    night2 = await db.leagues.schedule_night(league.id, datetime(2026, 12, 11, 20, 0, tzinfo=UTC))
    assert (night1.season, night2.season) == (1, 2)
    match2 = await seat_match(db, (1, 2, 3, None), league_night_id=night2.id)
    await play(db, match2.id, (-30, 90, -30, -30), winner=1)
    casual = await seat_match(db, (1, 2, 3, None))
    await play(db, casual.id, (-30, -30, 90, -30), winner=2)

    assert board_of(await db.standings.leaderboard(-100, Period.league_season(league.id, 1)))[0] == (1, 90, 1, 1)
    assert board_of(await db.standings.leaderboard(-100, Period.league_season(league.id, 2)))[0] == (2, 90, 1, 1)
    assert [e.hands for e in await db.standings.leaderboard(-100, Period.all_time())] == [3, 3, 3]


async def test_player_card_and_skill_series(db: Database, clock: Clock) -> None:
    match = await seat_match(db, (1, 2, 3, None))
    times = []
    for payments, winner in [((300, -100, -100, -100), 0), ((-50, 150, -50, -50), 1), ((-20, -20, -20, 60), 3)]:
        clock.advance(minutes=10)
        times.append(clock.now)
        await play(db, match.id, payments, winner)
    card = await db.standings.card(1)
    p = card.player
    assert (p.skill, p.title.zh, p.hands, p.wins, p.biggest_win) == (START_SKILL + 230, "本科生", 3, 1, 300)
    assert p.win_rate == pytest.approx(1 / 3)
    assert [(pt.at, pt.skill) for pt in card.skill_history] == [
        (p.created_at, START_SKILL),
        (times[0], START_SKILL + 300),
        (times[1], START_SKILL + 250),
        (times[2], START_SKILL + 230),
    ]
    recent = await db.standings.card(1, history_points=2)
    history = [(pt.at, pt.skill) for pt in recent.skill_history]
    assert history == [(times[1], START_SKILL + 250), (times[2], START_SKILL + 230)]
    newcomer = await db.players.upsert(50, "New")
    card = await db.standings.card(50)
    assert card.player.win_rate == 0.0 and [pt.skill for pt in card.skill_history] == [START_SKILL]
    assert newcomer.title.en == "Undergraduate"
    with pytest.raises(NotFoundError, match="no player 404"):
        await db.standings.card(404)


async def test_history_is_newest_first_with_summaries(db: Database, clock: Clock) -> None:
    match = await seat_match(db, (1, 2, 3, None))
    ids = []
    for n in range(4):
        clock.advance(minutes=1)
        ids.append(await play(db, match.id, (30, -10, -10, -10), winner=0, summary={"n": n, "patterns": ["pi_hu"]}))
    history = await db.standings.history(2, limit=3)
    assert [h.hand_id for h in history] == ids[::-1][:3]
    assert [h.summary["n"] for h in history] == [3, 2, 1]
    assert {(h.seat, h.points, h.won, h.winner, h.chat_id) for h in history} == {(1, -10, False, 0, -100)}
    assert [h.skill_after for h in history] == [START_SKILL - 40, START_SKILL - 30, START_SKILL - 20]
    assert await db.standings.history(99) == []


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_rebuild_matches_the_running_figures(db: Database, clock: Clock, seed: int) -> None:
    rng = random.Random(seed)
    league = await db.leagues.create(-1, "L", [0, 3], "19:30", "Europe/Berlin", "koukoufan", night_hands=4)
    tables = []
    for chat in (-1, -2):
        for _ in range(2):
            night = await db.leagues.schedule_next(league.id, clock.now) if chat == -1 and rng.random() < 0.5 else None
            players = rng.sample([1, 2, 3, 4, 5, 6, None, None], 4)
            if all(p is None for p in players):
                players[0] = 1
            tables.append(await seat_match(db, players, chat_id=chat, league_night_id=night.id if night else None))
    for _ in range(30):
        clock.advance(days=rng.randrange(0, 9), minutes=rng.randrange(60))
        winner = rng.choice([0, 1, 2, 3, None])
        losses = [rng.randrange(0, 200) if winner is not None else 0 for _ in range(4)]
        payments = tuple(sum(losses) - losses[s] if s == winner else -losses[s] for s in range(4))
        await play(db, rng.choice(tables).id, payments, winner)  # type: ignore[arg-type]
    running = [tuple(r) for r in await db.fetchall("SELECT * FROM standings ORDER BY 1, 2, 3")]
    assert len({r[1] for r in running}) >= 3  # several periods were exercised
    assert await db.standings.rebuild() == len(running)
    assert [tuple(r) for r in await db.fetchall("SELECT * FROM standings ORDER BY 1, 2, 3")] == running
