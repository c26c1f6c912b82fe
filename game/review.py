"""A review of one seat's play in a finished hand: each of its choices against the search's, on the same worlds.

    review = review_hand(rules, seed, dealer, actions, seat, progress=lambda done, total: ...)
    review.agreement, review.total_loss, review.costliest[0].played, review.costliest[0].best

``Hand.replay`` rebuilds the hand; at every point where the seat had more than one legal action in a turn or
a claim, the played action and the best few of the others are rolled out by ``game.search`` in the same
sampled worlds (what the seat could see then, nothing more). The others are ordered by ``prior_order``:
``normal``'s ranking, its discards put in the learned network's order (``game.policy``). The expected points of
each are the means over those worlds; the best of them is the review's choice and the loss is how far the
played action fell short. The played move's rank among all the legal actions (``#rank/options``) counts the
rolled-out ones that did better; the ones not rolled out, which the network and ``normal`` put lower, are
taken to be worse. With a few dozen worlds the means are noisy, so a decision *agrees* when the played action
was the best or trails it by no more than one paired standard error. A 胡 or pass in a 抢杠 or 海底 answer is
not reviewed.
Pure: no I/O; ``progress(done, total)`` is called after each decision so a caller can show how far it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from game.actions import Action
from game.ai import ranked
from game.policy import discard_scores
from game.rules import Rules
from game.search import evaluate, paired_gain, sample_worlds
from game.table import Hand
from game.view import SeatView

# Worlds and candidates per decision: about 20 s for a whole hand on one core (a rollout costs a few ms).
DEFAULT_SAMPLES: Final = 32
DEFAULT_CANDIDATES: Final = 5


@dataclass(frozen=True)
class DecisionReview:
    index: int  # the decision's place in the hand's action log
    view: SeatView  # what the seat saw when it chose
    played: Action
    best: Action  # the best candidate on the sampled worlds (``played`` when nothing beat it)
    played_points: float  # expected points of the seat for the rest of the hand, over the worlds
    best_points: float
    loss: float  # best_points − played_points, ≥ 0
    agrees: bool  # played was best, or within the noise of it
    world_seed: int  # sample_worlds(view, samples, world_seed) gives the worlds again
    rank: int  # the played action's place among the legal ones, 1 = the best (``#rank/options``)
    options: int  # the legal actions it was chosen among


@dataclass(frozen=True)
class HandReview:
    seat: int
    samples: int  # worlds per decision
    decisions: tuple[DecisionReview, ...]  # in the order played
    agreement: float  # share of decisions that agree (1.0 when there were none)
    total_loss: float  # expected points given away, summed over the decisions
    costliest: tuple[DecisionReview, ...]  # up to three, the largest loss first


def decision_points(rules: Rules, seed: int, dealer: int, actions: Iterable[Action], seat: int) -> list[int]:
    """Indices in ``actions`` where ``seat`` chose among several actions in a turn or a claim."""
    return [index for index, _, _ in decisions(rules, seed, dealer, actions, seat)]


def decisions(
    rules: Rules, seed: int, dealer: int, actions: Iterable[Action], seat: int
) -> list[tuple[int, SeatView, Action]]:
    """Each choice ``seat`` made among several actions in a turn or a claim: (index in the log, what the seat
    saw then, what it played)."""
    hand = Hand(rules, seed, dealer)
    out = []
    for i, action in enumerate(actions):
        if action.seat == seat and hand.phase in ("turn", "claim") and len(hand.legal_actions(seat)) > 1:
            out.append((i, hand.view(seat), action))
        hand.apply(action)
    return out


def review_hand(
    rules: Rules,
    seed: int,
    dealer: int,
    actions: Iterable[Action],
    seat: int,
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    progress: Callable[[int, int], None] | None = None,
) -> HandReview:
    """Review ``seat``'s decisions in the hand rebuilt from (rules, seed, dealer, actions)."""
    points = decisions(rules, seed, dealer, actions, seat)
    reviewed: list[DecisionReview] = []
    for i, view, action in points:
        reviewed.append(review_decision(view, action, i, world_seed(seed, i), samples, candidates))
        if progress is not None:
            progress(len(reviewed), len(points))
    return summarize(seat, samples, reviewed)


def world_seed(hand_seed: int, index: int) -> int:
    """The seed of the worlds a decision is reviewed on: the same hand reviews the same way every time."""
    return hand_seed * 1000 + index


def summarize(seat: int, samples: int, reviewed: Sequence[DecisionReview]) -> HandReview:
    """The review of a hand from its reviewed decisions (in the order played)."""
    agree = sum(d.agrees for d in reviewed)
    return HandReview(
        seat=seat,
        samples=samples,
        decisions=tuple(reviewed),
        agreement=agree / len(reviewed) if reviewed else 1.0,
        total_loss=sum(d.loss for d in reviewed),
        costliest=tuple(sorted(reviewed, key=lambda d: -d.loss)[:3]),
    )


def prior_order(view: SeatView) -> list[Action]:
    """Every legal action, best first: ``normal``'s ranking, with the discards in it (in the places it gives
    discards) ordered by the learned network instead; throws ``normal`` holds back stay last among them."""
    order = [a for _, a in ranked(view)]
    scores = discard_scores(view) if view.phase == "turn" else {}
    discards = iter(
        sorted((a for a in order if a.kind == "discard"), key=lambda a: -scores.get(a.tile or 0, -math.inf))
    )
    return [next(discards) if a.kind == "discard" else a for a in order]


def review_decision(
    view: SeatView, played: Action, index: int, world_seed: int, samples: int, candidates: int
) -> DecisionReview:
    """The played action against the best few others by ``prior_order``, all rolled out in the same worlds."""
    order = prior_order(view)
    options = [played, *(a for a in order if a != played)][:candidates]
    worlds = sample_worlds(view, samples, world_seed)
    results = evaluate(view, options, worlds)
    means = [sum(r) / len(r) for r in results]
    best = max(range(len(options)), key=lambda k: (means[k], k == 0))  # a tie goes to the played action
    gain, se = paired_gain(results[best], results[0])
    return DecisionReview(
        index=index,
        view=view,
        played=played,
        best=options[best],
        played_points=means[0],
        best_points=means[best],
        loss=gain,
        agrees=best == 0 or gain <= se,
        world_seed=world_seed,
        rank=1 + sum(m > means[0] for m in means),
        options=len(order),
    )
