"""The pure part of league nights: the /league syntax, the timeline of a night (across DST), seat rotation."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.league.schedule import (
    ANNOUNCE_LEAD,
    LATE_START_LIMIT,
    REMIND_LEAD,
    LeagueSyntaxError,
    due_step,
    next_seating,
    next_wakeup,
    night_over,
    parse_create,
    parse_length,
    parse_set,
    parse_weekdays,
    sitting,
)
from game.rules import Rules
from storage.leagues import League


def berlin_friday_league() -> League:
    return League(
        id=1,
        chat_id=-1,
        name="Freitag",
        weekdays=(4,),
        start_time=time(20, 0),
        time_zone="Europe/Berlin",
        night_hands=8,
        night_minutes=None,
        rules=Rules(),
        status="active",
        season=1,
        created_at=datetime(2026, 10, 1, tzinfo=UTC),
    )


# --- syntax ----------------------------------------------------------------------------------------------
def test_create_reads_every_part() -> None:
    spec = parse_create("Friday Night | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan")
    assert (spec.name, spec.weekdays, spec.start_time, spec.time_zone) == (
        "Friday Night",
        (4,),
        time(20),
        "Asia/Shanghai",
    )
    assert (spec.night_hands, spec.night_minutes, spec.rules, spec.auto_fill) == (8, None, Rules(), True)
    spec = parse_create("周末 | sat,sun 19:30 | Europe/Berlin | 90 分钟 | koukoufan cap=500 bots=off")
    assert (spec.weekdays, spec.start_time, spec.night_hands, spec.night_minutes) == ((5, 6), time(19, 30), None, 90)
    assert (spec.rules.preset, spec.rules.cap, spec.auto_fill) == ("koukoufan", 500, False)


@pytest.mark.parametrize(
    ("command", "complaint"),
    [
        ("Friday Night | fri 20:00 | Asia/Shanghai | 8 hands", "5 parts"),
        ("Friday | fry 20:00 | Asia/Shanghai | 8 hands | kaikoufan", "unknown weekday 'fry'"),
        ("Friday | fri 25:00 | Asia/Shanghai | 8 hands | kaikoufan", "HH:MM"),
        ("Friday | fri | Asia/Shanghai | 8 hands | kaikoufan", "days and a time"),
        ("Friday | fri 20:00 | Mars/Olympus | 8 hands | kaikoufan", "unknown time zone"),
        ("Friday | fri 20:00 | Asia/Shanghai | 8 days | kaikoufan", "hands .* or minutes"),
        ("Friday | fri 20:00 | Asia/Shanghai | 0 hands | kaikoufan", "hands .* or minutes"),
        ("Friday | fri 20:00 | Asia/Shanghai | 8 hands | mahjong", "unknown rules preset"),
        ("Friday | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan cap", "option=value"),
        ("Friday | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan colour=red", "unknown rules option"),
        ("Friday | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan bots=maybe", "bots must be on or off"),
        (" | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan", "name"),
    ],
)
def test_malformed_create_says_what_is_wrong(command: str, complaint: str) -> None:
    with pytest.raises(LeagueSyntaxError, match=complaint):
        parse_create(command)


def test_weekday_lists_ranges_and_chinese_names() -> None:
    assert parse_weekdays("mon-fri") == (0, 1, 2, 3, 4)
    assert parse_weekdays("sat-mon") == (0, 5, 6)
    assert parse_weekdays("周五,周日") == (4, 6)
    assert parse_length("12") == (12, None)
    assert parse_length("45min") == (None, 45)


def test_set_fields() -> None:
    assert parse_set("schedule", "sat 19:30") == {"weekdays": (5,), "start_time": time(19, 30)}
    assert parse_set("length", "90 minutes") == {"night_minutes": 90}
    assert parse_set("bots", "off") == {"auto_fill": False}
    assert parse_set("rules", "koukoufan bots=on") == {"rules": Rules.preset_named("koukoufan"), "auto_fill": True}
    with pytest.raises(LeagueSyntaxError, match="unknown field 'colour'"):
        parse_set("colour", "red")
    with pytest.raises(LeagueSyntaxError, match="give a value"):
        parse_set("zone", " ")


# --- the timeline ----------------------------------------------------------------------------------------
def test_weekly_night_stays_at_20_local_across_both_dst_changes() -> None:
    league = berlin_friday_league()
    starts = []
    moment = datetime(2026, 10, 20, tzinfo=UTC)
    for _ in range(28):  # late October 2026 … late March 2027 and beyond
        moment = league.next_start(moment)
        starts.append(moment)
    assert all(s.astimezone(ZoneInfo(league.time_zone)).strftime("%a %H:%M") == "Fri 20:00" for s in starts)
    utc_hours = {s.date(): s.hour for s in starts}
    assert utc_hours[datetime(2026, 10, 23).date()] == 18  # CEST, UTC+2
    assert utc_hours[datetime(2026, 10, 30).date()] == 19  # CET after the 25 October change
    assert utc_hours[datetime(2027, 3, 26).date()] == 19  # still CET
    assert utc_hours[datetime(2027, 4, 2).date()] == 18  # CEST after the 28 March change
    assert all(
        b - a in (timedelta(days=7), timedelta(days=7, hours=1), timedelta(days=7, hours=-1))
        for a, b in pairwise(starts)
    )


def test_each_step_is_due_once_in_order() -> None:
    start = datetime(2026, 12, 4, 12, tzinfo=UTC)
    status = "scheduled"
    seen = []
    moment = start - timedelta(days=3)
    while moment < start + timedelta(hours=1):
        step = due_step(status, start, moment)
        if step is not None:
            seen.append((step, moment))
            status = step
        moment += timedelta(minutes=5)
    assert seen == [
        ("announced", start - ANNOUNCE_LEAD),
        ("reminded", start - REMIND_LEAD),
        ("running", start),
    ]


def test_missed_steps_collapse_to_the_latest() -> None:
    start = datetime(2026, 12, 4, 12, tzinfo=UTC)
    assert due_step("scheduled", start, start - timedelta(minutes=30)) == "reminded"  # the reminder has the buttons
    assert due_step("announced", start, start + timedelta(minutes=5)) == "running"
    assert due_step("reminded", start, start + LATE_START_LIMIT) == "called_off"
    assert due_step("running", start, start + timedelta(minutes=5)) is None
    assert due_step("done", start, start) is None
    assert next_wakeup("scheduled", start) == start - ANNOUNCE_LEAD
    assert next_wakeup("reminded", start) == start
    assert next_wakeup("running", start) is None


def test_night_length_in_hands_or_minutes() -> None:
    start = datetime(2026, 12, 4, 12, tzinfo=UTC)
    assert not night_over(7, 8, None, start, start + timedelta(hours=9))
    assert night_over(8, 8, None, start, start)
    assert not night_over(3, None, 90, start, start + timedelta(minutes=89))
    assert night_over(3, None, 90, start, start + timedelta(minutes=90))


# --- seat rotation ---------------------------------------------------------------------------------------
def play_night(players: list[str], hands: int) -> tuple[Counter[str], list[list[str | None]]]:
    seats: list[str | None] = [None] * 4
    played: Counter[str] = Counter()
    history = []
    for hand in range(hands):
        before = seats
        seats = next_seating(before, [players[i] for i in sitting(len(players), hand)])
        for old, new in zip(before, seats, strict=True):
            assert old is None or new == old or old not in seats  # a player who stays keeps their seat
        played.update(p for p in seats if p is not None)
        history.append(seats)
    return played, history


def test_six_players_rotate_evenly() -> None:
    players = [f"p{i}" for i in range(6)]
    for hands in range(1, 13):
        played, history = play_night(players, hands)
        assert set(played) == set(players) if hands >= 2 else len(played) == 4
        counts = [played[p] for p in players]
        assert max(counts) - min(counts) <= 1, (hands, counts)
        assert all(len(set(s)) == 4 and None not in s for s in history)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=11), st.integers(min_value=1, max_value=30))
def test_any_roster_stays_within_one_hand(size: int, hands: int) -> None:
    players = [f"p{i}" for i in range(size)]
    played, history = play_night(players, hands)
    counts = [played[p] for p in players]
    assert max(counts) - min(counts) <= 1
    assert all(sum(p is not None for p in seats) == min(size, 4) for seats in history)
