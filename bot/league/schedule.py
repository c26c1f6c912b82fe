"""League nights, the pure part: the /league syntax, a night's timeline, seat rotation and when a night ends.

No I/O here (``bot.league.nights`` does the talking, storing and scheduling); every function that depends
on the time takes ``now``, so tests drive it with any clock.

    spec = parse_create("Friday Night | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan")
    step = due_step(night.status, night.starts_at, now)     # e.g. "reminded": send the reminder now
    when = next_wakeup(night.status, night.starts_at)       # when to look again
    seats = next_seating(previous_seats, [roster[i] for i in sitting(len(roster), hand_index)])

A night's timeline: announced (with the sign-up buttons) ``ANNOUNCE_LEAD`` before its start, reminded
``REMIND_LEAD`` before, started at its start. A step the bot missed while it was down is not replayed: only
the latest due step happens (a reminder carries the sign-up buttons too), and a night missed by more than
``LATE_START_LIMIT`` is called off instead of started.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any, Final, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from game.rules import Rules, RulesError
from storage.leagues import MAX_NIGHT_MINUTES, UNSTARTED_NIGHT_STATUSES, NightStatus
from storage.matches import MAX_MATCH_HANDS

ANNOUNCE_LEAD: Final = timedelta(hours=24)
REMIND_LEAD: Final = timedelta(hours=1)
LATE_START_LIMIT: Final = timedelta(hours=2)
SEATS: Final = 4

_DAY_NAMES: Final = (
    ("mon", "monday", "周一", "星期一"),
    ("tue", "tuesday", "周二", "星期二"),
    ("wed", "wednesday", "周三", "星期三"),
    ("thu", "thursday", "周四", "星期四"),
    ("fri", "friday", "周五", "星期五"),
    ("sat", "saturday", "周六", "星期六"),
    ("sun", "sunday", "周日", "星期日", "周天", "星期天"),
)
DAYS: Final[dict[str, int]] = {name: day for day, names in enumerate(_DAY_NAMES) for name in names}
_HANDS_UNITS: Final = ("hands", "hand", "h", "局")
_MINUTES_UNITS: Final = ("minutes", "minute", "min", "mins", "m", "分钟", "分")
_ON: Final = ("on", "yes", "true", "1", "开")
_OFF: Final = ("off", "no", "false", "0", "关")

T = TypeVar("T")


class LeagueSyntaxError(ValueError):
    """Malformed /league input; the message says which part and what was expected (in English, for logs and
    tests); ``key`` and ``fields`` are the catalogue text that tells the person, in their language."""

    def __init__(self, message: str, key: str = "league_err_rules", /, **fields: object) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields if key != "league_err_rules" else {"error": message, **fields}


@dataclass(frozen=True)
class LeagueSpec:
    """A league as /league create describes it (what storage's Leagues.create takes)."""

    name: str
    weekdays: tuple[int, ...]
    start_time: time
    time_zone: str
    night_hands: int | None
    night_minutes: int | None
    rules: Rules
    auto_fill: bool = True


# --- the command syntax ----------------------------------------------------------------------------------
def parse_weekdays(text: str) -> tuple[int, ...]:
    """``fri``, ``mon,wed``, ``mon-fri``, ``周五`` → sorted weekday numbers (0 = Monday)."""
    days: set[int] = set()
    for part in re.split(r"[,，、/]+", text.strip().lower()):
        if not part:
            continue
        first, dash, last = part.partition("-")
        if first not in DAYS or (dash and last not in DAYS):
            raise LeagueSyntaxError(
                f"unknown weekday {part!r} (mon … sun, e.g. fri or mon,wed or mon-fri)", "league_err_weekday", said=part
            )
        start, end = DAYS[first], DAYS[last] if dash else DAYS[first]
        days.update(range(start, end + 1) if start <= end else [*range(start, 7), *range(end + 1)])
    if not days:
        raise LeagueSyntaxError("give at least one weekday (mon … sun)", "league_err_no_weekday")
    return tuple(sorted(days))


def parse_time(text: str) -> time:
    match = re.fullmatch(r"(\d{1,2})[:：](\d{2})", text.strip())
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise LeagueSyntaxError(
            f"the start time must be HH:MM (24-hour), not {text.strip()!r}", "league_err_time", said=text.strip()
        )
    return time(int(match.group(1)), int(match.group(2)))


def parse_schedule(text: str) -> tuple[tuple[int, ...], time]:
    """``fri 20:00`` or ``mon,wed 19:30`` → (weekdays, start time)."""
    parts = text.split()
    if len(parts) != 2:
        raise LeagueSyntaxError(
            f"the schedule must be days and a time, e.g. 'fri 20:00', not {text.strip()!r}",
            "league_err_schedule",
            said=text.strip(),
        )
    return parse_weekdays(parts[0]), parse_time(parts[1])


def parse_zone(text: str) -> str:
    name = text.strip()
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder ("Asia") or a name too long
        raise LeagueSyntaxError(
            f"unknown time zone {name!r} (an IANA name such as Asia/Shanghai)", "league_err_zone", said=name
        ) from None
    return name


def parse_length(text: str) -> tuple[int | None, int | None]:
    """``8 hands`` / ``8局`` / ``8`` → (8, None); ``90 minutes`` / ``90 min`` / ``90分钟`` → (None, 90)."""
    match = re.fullmatch(r"(\d{1,4})\s*([^\d\s]*)", text.strip().lower())
    unit = match.group(2) if match else None
    if match is not None and unit in ("", *_HANDS_UNITS) and 1 <= int(match.group(1)) <= MAX_MATCH_HANDS:
        return int(match.group(1)), None
    if match is not None and unit in _MINUTES_UNITS and 1 <= int(match.group(1)) <= MAX_NIGHT_MINUTES:
        return None, int(match.group(1))
    raise LeagueSyntaxError(
        f"the night's length must be a number of hands (1–{MAX_MATCH_HANDS}) or minutes (1–{MAX_NIGHT_MINUTES}), "
        f"e.g. '8 hands' or '90 minutes', not {text.strip()!r}",
        "league_err_length",
        hands=MAX_MATCH_HANDS,
        minutes=MAX_NIGHT_MINUTES,
        said=text.strip(),
    )


def parse_switch(text: str, what: str) -> bool:
    word = text.strip().lower()
    if word in _ON:
        return True
    if word in _OFF:
        return False
    raise LeagueSyntaxError(
        f"{what} must be on or off, not {text.strip()!r}", "league_err_switch", what=what, said=text.strip()
    )


_HUGE: Final = 10**18


def _option_value(raw: str) -> Any:
    """A rules option's value as Rules.with_options expects it (it checks the kind of each option)."""
    low = raw.lower()
    if low in ("true", "on", "yes"):
        return True
    if low in ("false", "off", "no"):
        return False
    if re.fullmatch(r"-?\d{1,18}", raw):
        return int(raw)
    if re.fullmatch(r"-?\d+", raw):  # past every option's range (and past Python's 4,300 digits): said so, not read
        return -_HUGE if raw.startswith("-") else _HUGE
    if "," in raw:
        return [v for v in raw.split(",") if v]
    return raw  # a fraction such as 3/2 or 1.5, or a word such as 'discarder'


def parse_rules(text: str) -> tuple[Rules, bool | None]:
    """``kaikoufan cap=500 bots=off`` → (rules, auto_fill or None when not given)."""
    words = text.split()
    if not words:
        raise LeagueSyntaxError("give a rules preset: kaikoufan or koukoufan", "league_err_no_preset")
    options: dict[str, Any] = {}
    auto_fill: bool | None = None
    for word in words[1:]:
        key, eq, raw = word.partition("=")
        if not eq or not key or not raw:
            raise LeagueSyntaxError(
                f"rules options are written option=value, e.g. cap=500, not {word!r}", "league_err_option", said=word
            )
        if key == "bots":
            auto_fill = parse_switch(raw, "bots")
        else:
            options[key] = _option_value(raw)
    try:
        rules = Rules.preset_named(words[0].lower()).with_options(options)
    except RulesError as e:
        raise LeagueSyntaxError(str(e), e.code, **e.fields) from None
    return rules, auto_fill


def parse_create(text: str) -> LeagueSpec:
    """``name | days time | zone | length | preset [option=value …] [bots=on|off]``."""
    parts = [p.strip() for p in text.split("|")]
    if len(parts) != 5:
        raise LeagueSyntaxError(
            f"expected 5 parts separated by |, got {len(parts)}", "league_err_parts", count=len(parts)
        )
    name = parts[0]
    if not name or len(name) > 64:
        raise LeagueSyntaxError("the league needs a name of at most 64 characters", "league_err_name")
    weekdays, start = parse_schedule(parts[1])
    hands, minutes = parse_length(parts[3])
    rules, auto_fill = parse_rules(parts[4])
    return LeagueSpec(
        name, weekdays, start, parse_zone(parts[2]), hands, minutes, rules, True if auto_fill is None else auto_fill
    )


SET_FIELDS: Final = ("name", "schedule", "zone", "length", "rules", "bots")


def parse_set(field: str, value: str) -> dict[str, Any]:
    """``/league set <field> <value>`` → the changes for storage's Leagues.update."""
    field = field.lower()
    if not value.strip():
        raise LeagueSyntaxError(f"give a value for {field}", "league_err_no_value", field=field)
    if field == "name":
        if len(value.strip()) > 64:
            raise LeagueSyntaxError("a league name has at most 64 characters", "league_err_name")
        return {"name": value.strip()}
    if field == "schedule":
        weekdays, start = parse_schedule(value)
        return {"weekdays": weekdays, "start_time": start}
    if field == "zone":
        return {"time_zone": parse_zone(value)}
    if field == "length":
        hands, minutes = parse_length(value)
        return {"night_hands": hands} if hands is not None else {"night_minutes": minutes}
    if field == "rules":
        rules, auto_fill = parse_rules(value)
        return {"rules": rules} if auto_fill is None else {"rules": rules, "auto_fill": auto_fill}
    if field == "bots":
        return {"auto_fill": parse_switch(value, "bots")}
    raise LeagueSyntaxError(
        f"unknown field {field!r} (one of: {', '.join(SET_FIELDS)})",
        "league_err_field",
        said=field,
        fields=", ".join(SET_FIELDS),
    )


# --- a night's timeline ----------------------------------------------------------------------------------
def due_step(status: NightStatus, starts_at: datetime, now: datetime) -> NightStatus | None:
    """The status a night not yet started should move to at `now`, or None when nothing is due.

    'announced' / 'reminded': post the sign-up message / the reminder; 'running': start the night;
    'called_off': the start was missed by more than LATE_START_LIMIT (the bot was down).
    """
    if status not in UNSTARTED_NIGHT_STATUSES:
        return None
    if now >= starts_at + LATE_START_LIMIT:
        return "called_off"
    if now >= starts_at:
        return "running"
    if now >= starts_at - REMIND_LEAD:
        return "reminded" if status != "reminded" else None
    if now >= starts_at - ANNOUNCE_LEAD:
        return "announced" if status == "scheduled" else None
    return None


def next_wakeup(status: NightStatus, starts_at: datetime) -> datetime | None:
    """When the next step of a night not yet started falls due (it may be in the past: then do it now)."""
    return {
        "scheduled": starts_at - ANNOUNCE_LEAD,
        "announced": starts_at - REMIND_LEAD,
        "reminded": starts_at,
    }.get(status)


def night_over(
    hands_played: int, night_hands: int | None, night_minutes: int | None, starts_at: datetime, now: datetime
) -> bool:
    """Whether a night ends after the hand just played: its hands are played, or its time is up."""
    if night_hands is not None:
        return hands_played >= night_hands
    assert night_minutes is not None
    return now >= starts_at + timedelta(minutes=night_minutes)


# --- seat rotation ---------------------------------------------------------------------------------------
def sitting(roster_size: int, hand_index: int) -> list[int]:
    """The roster positions that play hand number `hand_index` (0, 1, …).

    Four consecutive positions, going round the roster: after any number of hands, the 4·k seats taken so
    far are spread over the roster as evenly as possible, so everyone has played within one hand of everyone
    else. With four or fewer, everyone plays every hand.
    """
    if roster_size <= SEATS:
        return list(range(roster_size))
    return [(hand_index * SEATS + j) % roster_size for j in range(SEATS)]


def next_seating(previous: Sequence[T | None], playing: Sequence[T]) -> list[T | None]:
    """The four seats for the next hand: whoever keeps playing keeps their seat; newcomers take the seats
    freed, in order; seats left over are None (an automatic player)."""
    seats: list[T | None] = [p if p is not None and p in playing else None for p in previous]
    seats += [None] * (SEATS - len(seats))
    newcomers = [p for p in playing if p not in seats]
    for i in range(SEATS):
        if seats[i] is None and newcomers:
            seats[i] = newcomers.pop(0)
    return seats
