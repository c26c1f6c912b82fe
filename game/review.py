"""A review of one seat's play in a finished hand: each of its choices against the search's, on the same worlds.

    review = review_hand(rules, seed, dealer, actions, seat, progress=lambda done, total: ...)
    review.agreement, review.total_loss, review.costliest[0].played, review.costliest[0].best

``Hand.replay`` rebuilds the hand; at every point where the seat had more than one legal action in a turn or
a claim, the played action and ``normal``'s best few are rolled out by ``game.search`` in the same sampled
worlds (what the seat could see then, nothing more). The expected points of each are the means over those
worlds; the best of them is the review's choice and the loss is how far the played action fell short. With
a few dozen worlds the means are noisy, so a decision *agrees* when the played action was the best or trails
it by no more than one paired standard error. A 胡 or pass in a 抢杠 or 海底 answer is not reviewed.
Pure: no I/O; ``progress(done, total)`` is called after each decision so a caller can show how far it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from game.ai import ranked
from game.rules import Rules
from game.search import evaluate, paired_gain, sample_worlds
from game.table import Action, Hand
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
    hand = Hand(rules, seed, dealer)
    out = []
    for i, action in enumerate(actions):
        if action.seat == seat and hand.phase in ("turn", "claim") and len(hand.legal_actions(seat)) > 1:
            out.append(i)
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
    log = list(actions)
    points = set(decision_points(rules, seed, dealer, log, seat))
    hand = Hand(rules, seed, dealer)
    reviewed: list[DecisionReview] = []
    for i, action in enumerate(log):
        if i in points:
            reviewed.append(review_decision(hand.view(seat), action, i, seed * 1000 + i, samples, candidates))
            if progress is not None:
                progress(len(reviewed), len(points))
        hand.apply(action)
    agree = sum(d.agrees for d in reviewed)
    return HandReview(
        seat=seat,
        samples=samples,
        decisions=tuple(reviewed),
        agreement=agree / len(reviewed) if reviewed else 1.0,
        total_loss=sum(d.loss for d in reviewed),
        costliest=tuple(sorted(reviewed, key=lambda d: -d.loss)[:3]),
    )


def review_decision(
    view: SeatView, played: Action, index: int, world_seed: int, samples: int, candidates: int
) -> DecisionReview:
    """The played action against ``normal``'s best few, all rolled out in the same worlds."""
    options = [played, *(a for _, a in ranked(view) if a != played)][:candidates]
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
    )
