"""Hands in sequence (RULES.md §2, §10): hand seeds, dealer rotation, running totals, fleeing.

>>> from game.rules import Rules
>>> m = Match(Rules(), seed=42)
>>> hand = m.new_hand()
>>> hand.dealer, hand.seed == Match.hand_seed(42, 0)
(0, True)
>>> m.flee(2)
(133, 133, -400, 134)
>>> Match.from_json(m.to_json()).totals
[133, 133, -400, 134]

A hand's seed is either its own (``new_hand(game.verify.fresh_seed())``: revealing it after the hand, as
``game.verify`` does, tells nothing about the match's other hands) or, when none is given, derived from the
match seed and n by SHA-256, so a match with a fixed seed replays exactly (tests, MAHJONG_SEED).
``finish_hand`` adds a finished hand's payments to ``totals`` and rotates the dealer: the dealer stays after
a dealer win or a 荒庄, otherwise the dealer's 下家 deals next. ``flee`` charges ``rules.flee_penalty`` to
the fleeing seat and shares it among the other three; when it does not divide by three, the odd points go
one each to the seats after the fleer in turn order (下家 first), so the total stays zero.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, TypeGuard

from game.actions import Action
from game.rules import Rules
from game.table import Hand


class MatchError(ValueError):
    """A hand that does not belong to this match now, or stored match data that cannot be read."""


class Match:
    def __init__(self, rules: Rules, seed: int, dealer: int = 0) -> None:
        if not 0 <= dealer <= 3:
            raise MatchError("the dealer is a seat 0-3")
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        self.hands_played = 0
        self.totals = [0, 0, 0, 0]
        self._hand_seed: int | None = None  # the seed of the hand in play, once new_hand/resume_hand made it

    @staticmethod
    def hand_seed(match_seed: int, number: int) -> int:
        """The seed of hand ``number`` (0-based) of the match seeded ``match_seed``; 63 bits, so SQLite stores it."""
        digest = hashlib.sha256(f"{match_seed}:{number}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def new_hand(self, seed: int | None = None) -> Hand:
        """The next hand, dealt by the current dealer, shuffled by ``seed`` (None: derived from the match seed)."""
        return self.resume_hand(seed, ())

    def resume_hand(self, seed: int | None, actions: Iterable[Action]) -> Hand:
        """The next hand rebuilt from its stored seed and actions (after a restart), as ``new_hand`` dealt it."""
        self._hand_seed = self.hand_seed(self.seed, self.hands_played) if seed is None else seed
        return Hand.replay(self.rules, self._hand_seed, self.dealer, actions)

    def finish_hand(self, hand: Hand) -> tuple[int, int, int, int]:
        """Record a finished hand (the one ``new_hand`` made last): add its payments, rotate the dealer."""
        if not hand.finished:
            raise MatchError("the hand is not over yet")
        expected = self.hand_seed(self.seed, self.hands_played) if self._hand_seed is None else self._hand_seed
        if hand.seed != expected or hand.dealer != self.dealer:
            raise MatchError("that hand is not this match's current hand")
        self._hand_seed = None
        payments = (0, 0, 0, 0) if hand.result is None else hand.result.payments
        for seat in range(4):
            self.totals[seat] += payments[seat]
        if hand.result is not None and hand.result.winner != self.dealer:
            self.dealer = (self.dealer + 1) % 4
        self.hands_played += 1
        return payments

    def flee(self, seat: int) -> tuple[int, int, int, int]:
        """Charge ``seat`` the flee penalty, shared by the others (zero-sum); returns the four amounts."""
        if not 0 <= seat <= 3:
            raise MatchError("a seat is 0-3")
        amounts = flee_amounts(self.rules.flee_penalty, seat)
        for s in range(4):
            self.totals[s] += amounts[s]
        return amounts

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_stored(),
            "seed": self.seed,
            "dealer": self.dealer,
            "hands_played": self.hands_played,
            "totals": list(self.totals),
        }

    @classmethod
    def from_json(cls, obj: Any) -> Match:
        if not isinstance(obj, dict):
            raise MatchError("a match must be an object")
        seed, dealer, played, totals = obj.get("seed"), obj.get("dealer"), obj.get("hands_played"), obj.get("totals")
        if not _is_int(seed) or not _is_int(dealer) or not _is_int(played) or played < 0:
            raise MatchError("a match needs whole numbers 'seed', 'dealer' and 'hands_played' ≥ 0")
        if not isinstance(totals, list) or len(totals) != 4 or not all(_is_int(x) for x in totals):
            raise MatchError("a match needs 'totals', four whole numbers")
        if sum(totals) != 0:
            raise MatchError("a match's totals must add up to zero")
        match = cls(Rules.from_stored(obj.get("rules")), seed, dealer)
        match.hands_played = played
        match.totals = list(totals)
        return match


def flee_amounts(penalty: int, seat: int) -> tuple[int, int, int, int]:
    """What a flight costs each seat: ``seat`` pays ``penalty``, shared by the others (odd points to 下家 first).

    >>> flee_amounts(400, 2)
    (133, 133, -400, 134)
    """
    share, odd = divmod(penalty, 3)
    amounts = [0, 0, 0, 0]
    amounts[seat] = -penalty
    for k in (1, 2, 3):
        amounts[(seat + k) % 4] = share + (1 if k <= odd else 0)
    return amounts[0], amounts[1], amounts[2], amounts[3]


def _is_int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)
