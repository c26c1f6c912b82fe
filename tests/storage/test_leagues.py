"""Leagues: schedules across time zones and DST, nights that start once, sign-ups, status changes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time

import pytest

from storage import AlreadyClosedError, Database, InvalidInputError, NotFoundError
from tests.storage.conftest import Clock


async def friday_league(db: Database, **kwargs: object) -> int:
    args: dict[str, object] = {"night_hands": 8} | kwargs
    league = await db.leagues.create(-100, "Friday Night", [4], "20:00", "Asia/Shanghai", "kaikoufan", **args)
    return league.id


async def test_create_and_read_a_league(db: Database, clock: Clock) -> None:
    league = await db.leagues.get(await friday_league(db))
    assert (league.weekdays, league.start_time, league.time_zone) == ((4,), time(20, 0), "Asia/Shanghai")
    assert (league.night_hands, league.night_minutes, league.status, league.season) == (8, None, "active", 1)
    assert league.created_at == clock.now
    assert [lg.id for lg in await db.leagues.for_chat(-100)] == [league.id]
    assert await db.leagues.for_chat(-1) == []
    assert [lg.id for lg in await db.leagues.active()] == [league.id]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weekdays": []}, "at least one weekday"),
        ({"weekdays": [7]}, "weekday must be between 0 and 6"),
        ({"start_time": "25:00"}, "start time must be HH:MM"),
        ({"time_zone": "Mars/Olympus"}, "unknown time zone"),
        ({"night_hands": None}, "exactly one of"),
        ({"night_minutes": 60}, "exactly one of"),
        ({"night_hands": 0}, "night hands must be between"),
        ({"rules": {"preset": "kaikoufan", "cap": "high"}}, "bad rules"),
        ({"name": ""}, "league name"),
    ],
)
async def test_bad_leagues_are_refused(db: Database, kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "chat_id": -100,
        "name": "L",
        "weekdays": [4],
        "start_time": "20:00",
        "time_zone": "UTC",
        "rules": "kaikoufan",
        "night_hands": 8,
    } | kwargs
    with pytest.raises(InvalidInputError, match=message):
        await db.leagues.create(**args)  # type: ignore[arg-type]
    assert await db.leagues.for_chat(-100) == []


async def test_league_names_are_unique_per_chat(db: Database) -> None:
    await friday_league(db)
    with pytest.raises(InvalidInputError, match="already has a league named"):
        await friday_league(db)


async def test_next_start_follows_the_local_wall_clock(db: Database) -> None:
    shanghai = await db.leagues.get(await friday_league(db))
    # Friday 20:00 in Shanghai (UTC+8) is 12:00 UTC.
    assert shanghai.next_start(datetime(2026, 11, 29, 12, 0, tzinfo=UTC)) == datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    assert shanghai.next_start(datetime(2026, 12, 4, 11, 59, tzinfo=UTC)) == datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    assert shanghai.next_start(datetime(2026, 12, 4, 12, 0, tzinfo=UTC)) == datetime(2026, 12, 11, 12, 0, tzinfo=UTC)
    berlin = await db.leagues.create(-100, "B", [0, 3], "19:30", "Europe/Berlin", "kaikoufan", night_minutes=90)
    # Berlin leaves summer time on 2026-10-25: 19:30 local is 17:30 UTC before, 18:30 UTC after.
    assert berlin.next_start(datetime(2026, 10, 20, 0, 0, tzinfo=UTC)) == datetime(2026, 10, 22, 17, 30, tzinfo=UTC)
    assert berlin.next_start(datetime(2026, 10, 23, 0, 0, tzinfo=UTC)) == datetime(2026, 10, 26, 18, 30, tzinfo=UTC)


async def test_a_night_is_scheduled_once_and_starts_once(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    night = await db.leagues.schedule_next(league_id, clock.now)
    assert await db.leagues.schedule_next(league_id, clock.now) == night
    assert (night.status, night.season, night.starts_at) == ("scheduled", 1, datetime(2026, 12, 4, 12, tzinfo=UTC))
    assert await db.leagues.advance_night(night.id, "announced") is True
    # Two timers race to start the night: exactly one wins.
    started = await asyncio.gather(*(db.leagues.advance_night(night.id, "running") for _ in range(5)))
    assert sorted(started) == [False] * 4 + [True]
    assert await db.leagues.advance_night(night.id, "reminded") is False  # never backwards
    assert await db.leagues.advance_night(night.id, "scheduled") is False
    assert await db.leagues.advance_night(night.id, "done") is True
    assert await db.leagues.advance_night(night.id, "called_off") is False
    assert (await db.leagues.night(night.id)).status == "done"
    assert await db.leagues.open_nights() == []
    with pytest.raises(NotFoundError, match="no league night 99"):
        await db.leagues.advance_night(99, "running")
    with pytest.raises(InvalidInputError, match="night status"):
        await db.leagues.advance_night(night.id, "started")  # type: ignore[arg-type]


async def test_sign_ups(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    night = await db.leagues.schedule_next(league_id, clock.now)
    for pid in (3, 1, 2):
        await db.players.upsert(pid, f"P{pid}")
    for pid in (3, 1):
        clock.advance(minutes=1)
        assert await db.leagues.sign_up(night.id, pid) is True
    assert await db.leagues.sign_up(night.id, 3) is False
    assert [p.id for p in await db.leagues.signups(night.id)] == [3, 1]
    assert await db.leagues.withdraw(night.id, 3) is True
    assert await db.leagues.withdraw(night.id, 3) is False
    assert [p.id for p in await db.leagues.signups(night.id)] == [1]
    with pytest.raises(NotFoundError, match="no player 9"):
        await db.leagues.sign_up(night.id, 9)
    with pytest.raises(NotFoundError, match="no league night 77"):
        await db.leagues.signups(77)
    await db.leagues.advance_night(night.id, "called_off")
    with pytest.raises(AlreadyClosedError, match="sign-ups are closed"):
        await db.leagues.sign_up(night.id, 2)


async def test_pausing_and_ending_a_league(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    first = await db.leagues.schedule_next(league_id, clock.now)
    second = await db.leagues.schedule_next(league_id, first.starts_at)
    assert [n.id for n in await db.leagues.open_nights()] == [first.id, second.id]
    assert (await db.leagues.set_status(league_id, "paused")).status == "paused"
    assert await db.leagues.active() == []
    with pytest.raises(AlreadyClosedError, match="paused"):
        await db.leagues.schedule_next(league_id, second.starts_at)
    await db.leagues.set_status(league_id, "active")
    await db.leagues.advance_night(first.id, "done")
    ended = await db.leagues.set_status(league_id, "ended")
    assert ended.status == "ended"
    assert (await db.leagues.night(first.id)).status == "done"
    assert (await db.leagues.night(second.id)).status == "called_off"
    with pytest.raises(AlreadyClosedError, match="has ended"):
        await db.leagues.set_status(league_id, "active")
    with pytest.raises(AlreadyClosedError, match="has ended"):
        await db.leagues.new_season(league_id)
    with pytest.raises(InvalidInputError, match="league status"):
        await db.leagues.set_status(league_id, "closed")  # type: ignore[arg-type]


async def test_new_season_counts_new_nights(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    old = await db.leagues.schedule_next(league_id, clock.now)
    assert (await db.leagues.new_season(league_id)).season == 2
    new = await db.leagues.schedule_next(league_id, old.starts_at)
    assert (old.season, new.season) == (1, 2)
    with pytest.raises(NotFoundError, match="no league 42"):
        await db.leagues.new_season(42)


async def test_update_changes_a_league_and_moves_unstarted_nights(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    running = await db.leagues.schedule_night(league_id, datetime(2026, 11, 27, 12, 0, tzinfo=UTC))
    await db.leagues.advance_night(running.id, "running")
    upcoming = await db.leagues.schedule_next(league_id, clock.now)
    await db.players.upsert(1, "Ann")
    await db.leagues.sign_up(upcoming.id, 1)

    updated = await db.leagues.update(
        league_id, clock.now, name="Saturday Night", weekdays=[5], start_time="19:00", night_minutes=90, auto_fill=False
    )
    assert (updated.name, updated.weekdays, updated.start_time) == ("Saturday Night", (5,), time(19, 0))
    assert (updated.night_hands, updated.night_minutes, updated.auto_fill) == (None, 90, False)
    moved = await db.leagues.night(upcoming.id)
    assert moved.starts_at == datetime(2026, 12, 5, 11, 0, tzinfo=UTC)  # Saturday 19:00 in Shanghai
    assert [p.id for p in await db.leagues.signups(upcoming.id)] == [1]  # sign-ups kept
    assert (await db.leagues.night(running.id)).starts_at == running.starts_at  # a started night stays
    assert (await db.leagues.update(league_id, clock.now, night_hands=4)).night_minutes is None


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"season": 3}, "cannot change season"),
        ({"weekdays": [9]}, "weekday"),
        ({"time_zone": "Nowhere/Land"}, "unknown time zone"),
        ({"auto_fill": "yes"}, "auto_fill must be true or false"),
        ({"night_minutes": 0}, "night minutes"),
        ({"name": "Other"}, "already has a league named"),
    ],
)
async def test_bad_league_updates_change_nothing(
    db: Database, clock: Clock, changes: dict[str, object], message: str
) -> None:
    league_id = await friday_league(db)
    await db.leagues.create(-100, "Other", [1], "18:00", "UTC", "kaikoufan", night_hands=4)
    night = await db.leagues.schedule_next(league_id, clock.now)
    before = await db.leagues.get(league_id)
    with pytest.raises(InvalidInputError, match=message):
        await db.leagues.update(league_id, clock.now, start_time="21:00", **changes)
    assert await db.leagues.get(league_id) == before
    assert await db.leagues.night(night.id) == night


async def test_new_season_takes_unstarted_nights_along(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    done = await db.leagues.schedule_night(league_id, datetime(2026, 11, 27, 12, 0, tzinfo=UTC))
    await db.leagues.advance_night(done.id, "done")
    upcoming = await db.leagues.schedule_next(league_id, clock.now)
    await db.leagues.new_season(league_id)
    assert (await db.leagues.night(done.id)).season == 1
    assert (await db.leagues.night(upcoming.id)).season == 2


async def test_a_nights_match_and_results(db: Database, clock: Clock) -> None:
    from tests.storage.conftest import seat_match

    league_id = await friday_league(db)
    night = await db.leagues.schedule_next(league_id, clock.now)
    assert await db.leagues.night_match(night.id) is None
    assert await db.leagues.night_results(night.id) == []
    match = await seat_match(db, (1, 2, 3, None), league_night_id=night.id)
    for payments, winner in [((90, -30, -30, -30), 0), ((-40, -40, 120, -40), 2)]:
        hand = await db.hands.start(match.id, seed=1, dealer=0)
        await db.hands.close(hand.id, payments, winner)
    other = await seat_match(db, (1, 2, 3, None), chat_id=-5)  # not a league match: not counted
    hand = await db.hands.start(other.id, seed=1, dealer=0)
    await db.hands.close(hand.id, (300, -100, -100, -100), winner=0)
    assert (await db.leagues.night_match(night.id)) == await db.matches.get(match.id)
    results = await db.leagues.night_results(night.id)
    assert [(e.rank, e.player_id, e.points, e.hands, e.wins) for e in results] == [
        (1, 3, 90, 2, 1),
        (2, 1, 50, 2, 1),
        (3, 2, -70, 2, 0),
    ]


async def test_several_unstarted_nights_move_in_order(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    first = await db.leagues.schedule_next(league_id, clock.now)  # Fri 4 Dec 12:00 UTC
    second = await db.leagues.schedule_next(league_id, first.starts_at)  # Fri 11 Dec
    await db.leagues.update(league_id, clock.now, weekdays=[4, 5])  # now Fridays and Saturdays
    assert [(await db.leagues.night(n.id)).starts_at for n in (first, second)] == [
        datetime(2026, 12, 4, 12, 0, tzinfo=UTC),
        datetime(2026, 12, 5, 12, 0, tzinfo=UTC),
    ]


async def test_a_schedule_clashing_with_a_played_night_changes_nothing(db: Database, clock: Clock) -> None:
    league_id = await friday_league(db)
    played = await db.leagues.schedule_night(league_id, datetime(2026, 12, 5, 11, 0, tzinfo=UTC))  # Sat 19:00
    await db.leagues.advance_night(played.id, "done")
    upcoming = await db.leagues.schedule_next(league_id, clock.now)
    before = await db.leagues.get(league_id)
    with pytest.raises(InvalidInputError, match="already played"):
        await db.leagues.update(league_id, clock.now, weekdays=[5], start_time="19:00")
    assert await db.leagues.get(league_id) == before
    assert await db.leagues.night(upcoming.id) == upcoming
