"""bot.views.replay_views.moved_to: a replay button moves from the step its message shows, so taps add up."""

from __future__ import annotations

import re

from bot.callbacks import REPLAY_PATTERN, replay_data
from bot.views.replay_views import moved_to


def test_taps_move_from_the_step_shown_not_the_one_the_button_was_drawn_at() -> None:
    seen = 3
    for _ in range(10):  # ten taps on a picture still showing step 3
        seen = moved_to("3+1", seen, 91)
    assert seen == 13
    assert moved_to("3-1", 13, 91) == 12 and moved_to("3=", 13, 91) == 13  # ◀; a seat keeps the step


def test_ends_and_unknown_steps() -> None:
    assert moved_to("0", 40, 91) == 0 and moved_to("91", 40, 91) == 91  # ⏮ ⏭ go there from anywhere
    assert moved_to("91+1", 91, 91) == 91 and moved_to("0-1", 0, 91) == 0  # never past either end
    assert moved_to("12+1", None, 91) == 13  # not remembered (a restart): from the step the button was drawn at
    assert moved_to("9999", None, 91) == 91


def test_every_move_is_a_button_the_router_takes() -> None:
    for move in ("0", "12+1", "12-1", "12=", "gif"):
        assert re.match(REPLAY_PATTERN, replay_data("ABCDEF", move, None)), move
    assert not re.match(REPLAY_PATTERN, replay_data("ABCDEF", "12+2", 1))
