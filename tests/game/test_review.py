"""The review of a finished hand (game.review), with few worlds: it checks behaviour, not judgement."""

from __future__ import annotations

import pickle

import pytest

from game.actions import Action
from game.automatic import choose
from game.policy import discard_scores
from game.review import decision_points, prior_order, review_hand
from game.rules import Rules
from game.search import evaluate, sample_worlds
from game.table import Hand

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


def test_each_decision_has_its_rank_among_the_legal_moves() -> None:
    actions = finished_hand()
    review = review_hand(Rules(), SEED, DEALER, actions, SEAT, samples=4, candidates=3)
    for d in review.decisions:
        assert d.options == len(d.view.legal) and 1 <= d.rank <= 3  # only rolled-out moves can rank above it
        assert (d.rank == 1) == (d.played_points >= d.best_points)
    assert any(d.rank > 1 for d in review.decisions)  # easy's play leaves something to improve


def test_the_moves_rolled_out_are_ordered_by_the_network_among_discards() -> None:
    hand = Hand(Rules(), SEED, DEALER)
    turns = 0
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        order = prior_order(view)
        assert sorted(map(str, order)) == sorted(map(str, view.legal))  # every legal move, once
        scores = discard_scores(view) if view.phase == "turn" else {}
        ranked_discards = [a.tile for a in order if a.kind == "discard" and a.tile in scores]
        assert ranked_discards == sorted(scores, key=lambda t: -scores[t])
        turns += len(scores) > 1
        hand.apply(choose(view, "normal", SEED))
    assert turns > 10
