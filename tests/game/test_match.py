"""Hands in sequence (game.match): seeds, dealer rotation, running totals, fleeing, storage JSON."""

from __future__ import annotations

import random
from typing import Any

import pytest

from game.match import Match, MatchError
from game.rules import Rules
from tests.game.test_properties import choose


def play_out(match: Match, rng: random.Random) -> tuple[int, ...]:
    hand = match.new_hand()
    while not hand.finished:
        hand.apply(choose(hand, rng))
    return match.finish_hand(hand)


def test_hand_seeds_are_deterministic_and_differ() -> None:
    seeds = [Match.hand_seed(5, n) for n in range(50)]
    assert seeds == [Match.hand_seed(5, n) for n in range(50)]
    assert len(set(seeds)) == 50 and all(0 <= s < 2**63 for s in seeds)
    assert Match.hand_seed(6, 0) != seeds[0]
    assert Match(Rules(), 5).new_hand().seed == seeds[0]


def test_dealer_rotation_and_running_totals() -> None:
    match = Match(Rules(), seed=99, dealer=1)
    rng = random.Random(3)
    totals = [0, 0, 0, 0]
    stayed = rotated = 0
    for n in range(40):
        dealer = match.dealer
        hand = match.new_hand()
        assert hand.dealer == dealer and hand.seed == Match.hand_seed(99, n)
        while not hand.finished:
            hand.apply(choose(hand, rng))
        payments = match.finish_hand(hand)
        assert sum(payments) == 0
        totals = [a + b for a, b in zip(totals, payments, strict=True)]
        keeps = hand.exhausted or (hand.result is not None and hand.result.winner == dealer)
        assert match.dealer == (dealer if keeps else (dealer + 1) % 4)
        stayed += keeps
        rotated += not keeps
    assert match.totals == totals and match.hands_played == 40
    assert stayed and rotated


def test_finish_hand_refuses_unfinished_and_foreign_hands() -> None:
    match = Match(Rules(), seed=1)
    hand = match.new_hand()
    with pytest.raises(MatchError, match="not over"):
        match.finish_hand(hand)
    rng = random.Random(0)
    while not hand.finished:
        hand.apply(choose(hand, rng))
    match.finish_hand(hand)
    before = match.to_json()
    with pytest.raises(MatchError, match="current hand"):
        match.finish_hand(hand)  # the same hand twice
    assert match.to_json() == before


@pytest.mark.parametrize(
    ("penalty", "amounts"), [(400, (133, 133, -400, 134)), (300, (100, 100, -300, 100)), (401, (134, 133, -401, 134))]
)
def test_flee_is_zero_sum(penalty: int, amounts: tuple[int, ...]) -> None:
    match = Match(Rules(flee_penalty=penalty), seed=1)
    assert match.flee(2) == amounts
    assert match.totals == list(amounts) and sum(match.totals) == 0
    with pytest.raises(MatchError):
        match.flee(4)


def test_json_round_trip_continues_the_same_match() -> None:
    match = Match(Rules.from_json("koukoufan"), seed=77, dealer=3)
    rng = random.Random(1)
    for _ in range(3):
        play_out(match, rng)
    match.flee(0)
    stored = Match.from_json(match.to_json())
    assert stored.to_json() == match.to_json()
    assert stored.rules == match.rules
    assert stored.new_hand().view(None) == match.new_hand().view(None)


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"seed": 1, "dealer": 0, "hands_played": 0, "totals": [0, 0, 0]},
        {"seed": 1, "dealer": 0, "hands_played": -1, "totals": [0, 0, 0, 0]},
        {"seed": "1", "dealer": 0, "hands_played": 0, "totals": [0, 0, 0, 0]},
        {"seed": 1, "dealer": 5, "hands_played": 0, "totals": [0, 0, 0, 0]},
        {"seed": 1, "dealer": 0, "hands_played": 0, "totals": [1, 0, 0, 0]},
        {"seed": 1, "dealer": 0, "hands_played": 0, "totals": [0, 0, 0, 0], "rules": "mahjong"},
    ],
)
def test_from_json_errors(bad: Any) -> None:
    with pytest.raises(ValueError):
        Match.from_json(bad)
