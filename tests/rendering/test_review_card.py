"""The review picture and its lines: each decision that mattered, with its rank among the legal moves."""

from __future__ import annotations

import io

from PIL import Image

from game.review import review_hand
from game.rules import Rules
from rendering.review_card import decision_line, mattered, render_review
from tests.game.test_review import DEALER, SEAT, SEED, finished_hand


def test_the_decisions_that_mattered_are_listed_with_their_rank() -> None:
    review = review_hand(Rules(), SEED, DEALER, finished_hand(), SEAT, samples=4, candidates=3)
    listed = mattered(review)
    assert listed and all(d.rank > 1 for _, d in listed)
    assert len(listed) == sum(d.played != d.best for d in review.decisions)
    n, d = listed[0]
    assert f"#{d.rank}/{d.options}" in decision_line(n, d, "en")
    assert f"排第 {d.rank}/{d.options}" in decision_line(n, d, "zh")
    assert decision_line(n, d, "en").startswith(f"{n}. ")
    quiet = type(review)(review.seat, review.samples, (), 1.0, 0.0, ())
    taller = Image.open(io.BytesIO(render_review(review, ["A", "B", "C", "D"], "en"))).height
    assert taller > Image.open(io.BytesIO(render_review(quiet, ["A", "B", "C", "D"], "en"))).height
