"""Who sits with whom: a pure function of the queue and the time (``groups``), so the bench and the tests run
the same matching as the bot.

Per preset, oldest first: the oldest person gathers the nearest ratings within a band that widens the longer
each waits (``band``); four make a table. One who has waited their chosen time is seated with whoever their band
holds, automatic players in the rest. Fair play: the same people are never seated together a third time in a row
while others of the preset wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from storage.quick import Waiting

BAND_START: Final = 4.0  # ratings (mu) this far apart may sit together at once: about half a newcomer's sigma
BAND_WIDENS: Final = 1.0  # and this much further for every second waited (a newcomer's sigma after 4 s)
SEATS: Final = 4


@dataclass(frozen=True)
class Group:
    preset: str
    people: tuple[Waiting, ...]  # one to four, oldest first; automatic players take the other seats


def waited(w: Waiting, now: datetime) -> float:
    return max(0.0, (now - w.joined_at).total_seconds())


def band(w: Waiting, now: datetime) -> float:
    return BAND_START + BAND_WIDENS * waited(w, now)


def third_time(people: Sequence[Waiting]) -> bool:
    """Whether someone of them sat with exactly these others at their last two quick tables."""
    for p in people:
        others = frozenset(q.player_id for q in people if q is not p)
        if others and p.last == others and p.earlier == others:
            return True
    return False


def _near(a: Waiting, b: Waiting, now: datetime) -> bool:
    return abs(a.rating.mu - b.rating.mu) <= max(band(a, now), band(b, now))


def _gather(first: Waiting, pool: Sequence[Waiting], now: datetime) -> list[Waiting]:
    """``first`` and the nearest others of ``pool`` within every member's band, up to four."""
    group = [first]
    others_wait = len(pool) > SEATS
    for c in sorted(pool[1:], key=lambda c: abs(c.rating.mu - first.rating.mu)):
        if len(group) == SEATS:
            break
        if not all(_near(c, m, now) for m in group):
            continue
        if len(group) == SEATS - 1 and others_wait and third_time([*group, c]):
            continue
        group.append(c)
    return group


def groups(waiting: Sequence[Waiting], now: datetime) -> list[Group]:
    """The tables to seat now from the queue (``waiting`` oldest first)."""
    found: list[Group] = []
    for preset in dict.fromkeys(w.preset for w in waiting):
        pool = [w for w in waiting if w.preset == preset]
        while pool:
            first = pool[0]
            group = _gather(first, pool, now)
            full = len(group) == SEATS
            due = waited(first, now) >= first.wait_s
            if (full or due) and not (len(pool) > len(group) and third_time(group)):
                found.append(Group(preset, tuple(group)))
                pool = [w for w in pool if w not in group]
            else:  # the oldest waits on; the others may still make a table without them
                pool = pool[1:]
    return found
