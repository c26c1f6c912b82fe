"""The rating across all play (storage.ratings, game.rating) and the quick-match queue (storage.quick), on both
backends: a finished match rates its people as openskill computes from their places, the automatic players'
fixed ratings taking part; fewer than two people or an abandoned match are not rated; the queue takes a person
once and seats a group only whole."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from game.rating import AUTOMATIC, START
from storage.database import Database
from storage.matches import Seat
from tests.storage.conftest import NewMatch

pytestmark = pytest.mark.usefixtures("backend")


async def _totals(db: Database, match_id: int, totals: tuple[int, ...]) -> None:
    for seat, total in enumerate(totals):
        await db.execute("UPDATE match_seats SET total = ? WHERE match_id = ? AND seat = ?", (total, match_id, seat))


async def test_a_finished_match_rates_its_people_as_openskill_does(db: Database, new_match: NewMatch) -> None:
    match = await new_match((1, 2, None, 3))  # the automatic player: normal
    await _totals(db, match.id, (-100, 300, 0, -200))
    await db.matches.finish(match.id)
    model = PlackettLuce()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in (START, START, AUTOMATIC["normal"], START)]
    expected = model.rate(teams, ranks=[3, 1, 2, 4])
    for pid, team in ((1, expected[0]), (2, expected[1]), (3, expected[3])):
        rated = await db.ratings.get(pid)
        assert rated is not None and rated.matches == 1
        assert rated.rating.mu == pytest.approx(team[0].mu) and rated.rating.sigma == pytest.approx(team[0].sigma)
    assert [r.player_id for r in await db.ratings.top(min_matches=1)] == [2, 1, 3]
    assert (await db.ratings.get(2)).place == 1  # type: ignore[union-attr]
    assert await db.ratings.top(min_matches=2) == []


async def test_one_person_or_an_abandoned_match_is_not_rated(db: Database, new_match: NewMatch) -> None:
    alone = await new_match((1, None, None, None))
    await _totals(db, alone.id, (300, -100, -100, -100))
    await db.matches.finish(alone.id)
    abandoned = await new_match((2, 3, None, None), chat_id=-200)
    await _totals(db, abandoned.id, (300, -100, -100, -100))
    await db.matches.finish(abandoned.id, "abandoned")
    assert [await db.ratings.get(pid) for pid in (1, 2, 3)] == [None, None, None]


async def test_the_queue_takes_a_person_once_and_seats_only_whole_groups(db: Database) -> None:
    for pid in (1, 2, 3):
        await db.players.upsert(pid, f"p{pid}")
    assert await db.quick.join(1, "kaikoufan", 60) and not await db.quick.join(1, "koukoufan", 30)
    await db.quick.join(2, "kaikoufan", 60)
    assert await db.quick.seat([1, 2, 3]) is None  # 3 is not waiting: nobody is taken
    assert [w.player_id for w in await db.quick.waiting()] == [1, 2]
    first = await db.quick.seat([1, 2])
    assert first is not None and await db.quick.waiting() == []
    await db.quick.join(1, "kaikoufan", 60)
    await db.quick.join(2, "kaikoufan", 60)
    assert await db.quick.seat([1, 2]) not in (None, first)
    again = {w.player_id: w for w in await db.quick.waiting()}
    assert again == {}
    await db.quick.join(1, "kaikoufan", 60)
    (one,) = await db.quick.waiting()
    assert one.last == one.earlier == frozenset({2})  # their last two tables: with 2 alone
    assert await db.quick.leave(1) and not await db.quick.leave(1)


async def test_one_who_fled_is_rated_below_every_seat(db: Database, new_match: NewMatch) -> None:
    """Fleeing a match one is losing does not spare one's rating: rated as placed below every seat. A person who
    left between hands (no penalty: RULES.md §10) is not rated for that match."""
    match = await new_match((1, 2, 3, None))
    hand = await db.hands.start(match.id, seed=8, dealer=0)
    await db.hands.flee(hand.id, 1, (134, -400, 133, 133))  # person 2 flees; an automatic player plays on
    await db.hands.close(hand.id, (0, 0, 0, 0), winner=None)
    await _totals(db, match.id, (100, 300, -200, -200))  # whatever the totals: the seat is no longer theirs
    await db.matches.finish(match.id)
    model = PlackettLuce()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in (START, AUTOMATIC["normal"], START, AUTOMATIC["normal"])]
    expected = model.rate([*teams, [model.rating(mu=START.mu, sigma=START.sigma)]], ranks=[2, 1, 3, 3, 5])
    for pid, team in ((1, expected[0]), (3, expected[2]), (2, expected[4])):
        rated = await db.ratings.get(pid)
        assert rated is not None and rated.matches == 1
        assert rated.rating.mu == pytest.approx(team[0].mu) and rated.rating.sigma == pytest.approx(team[0].sigma)
    fled = await db.ratings.get(2)
    assert fled is not None and fled.rating.mu < START.mu and fled.place == 3
    between = await new_match((4, 5, 6, None), chat_id=-200)
    played = await db.hands.start(between.id, seed=9, dealer=0)
    await db.hands.close(played.id, (0, 0, 0, 0), winner=None)
    await db.matches.replace_seat(between.id, 1, Seat.auto())  # person 5 leaves between hands
    await db.matches.finish(between.id)
    assert await db.ratings.get(5) is None and await db.ratings.get(4) is not None
