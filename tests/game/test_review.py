"""The review of a finished hand (game.review), with few worlds: it checks behaviour, not judgement."""

from __future__ import annotations

import pickle

import pytest

from game.ai import choose
from game.review import decision_points, review_hand
from game.rules import Rules
from game.search import evaluate, sample_worlds
from game.table import Action, Hand

SEED, DEALER, SEAT = 7, 1, 2


def finished_hand() -> list[Action]:
    """A hand where SEAT plays ``easy`` (so it makes some choices the search disagrees with), the rest normal."""
    hand = Hand(Rules(), SEED, DEALER)
    while not hand.finished:
        seat = hand.waiting_on()[0]
        hand.apply(choose(hand.view(seat), "easy" if seat == SEAT else "normal", SEED))
    return hand.actions


def test_review_covers_every_real_choice_and_reports_progress() -> None:
    actions = finished_hand()
    calls: list[tuple[int, int]] = []
    review = review_hand(
        Rules(), SEED, DEALER, actions, SEAT, samples=4, candidates=3, progress=lambda d, t: calls.append((d, t))
    )
    points = decision_points(Rules(), SEED, DEALER, actions, SEAT)
    assert [d.index for d in review.decisions] == points and points
    assert calls == [(k + 1, len(points)) for k in range(len(points))]
    for d in review.decisions:
        assert d.played == actions[d.index] and d.view.seat == SEAT and len(d.view.legal) > 1
        assert d.best in d.view.legal and d.loss >= 0 and d.best_points - d.played_points == pytest.approx(d.loss)
    assert review.total_loss == sum(d.loss for d in review.decisions)
    assert review.agreement == sum(d.agrees for d in review.decisions) / len(review.decisions)
    assert [d.loss for d in review.costliest] == sorted((d.loss for d in review.decisions), reverse=True)[:3]
    assert pickle.loads(pickle.dumps(review)) == review  # plain data: the bot may compute it in a process pool


def test_the_better_move_scores_at_least_as_well_on_the_same_worlds() -> None:
    actions = finished_hand()
    review = review_hand(Rules(), SEED, DEALER, actions, SEAT, samples=4, candidates=3)
    worse = [d for d in review.decisions if d.best != d.played]
    assert worse  # easy's play leaves something to improve
    for d in worse[:3]:
        played, best = evaluate(d.view, [d.played, d.best], sample_worlds(d.view, review.samples, d.world_seed))
        assert sum(best) >= sum(played) and sum(best) / len(best) == d.best_points
