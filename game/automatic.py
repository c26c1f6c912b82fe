"""The automatic player at every level, for empty seats and 托管: ``choose(view, level, seed)``.

``easy`` and ``normal`` weigh the seat's own hand and what it can see (``game.ai``); ``hard`` searches sampled
worlds (``game.search``, up to 200 ms a decision: callers run it in another process). Every level sees only
the seat's view and always returns one of ``view.legal``.

>>> LEVELS
('easy', 'normal', 'hard')
"""

from __future__ import annotations

from typing import Final

from game import ai
from game.actions import Action
from game.search import choose_hard
from game.view import SeatView

LEVELS: Final = (*ai.LEVELS, "hard")


def choose(view: SeatView, level: str = "normal", seed: int = 0) -> Action:
    """The action this seat plays now, at ``level``."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (one of {', '.join(LEVELS)})")
    if level == "hard":
        if view.seat is None or not view.legal:
            raise ValueError("this view has no decision to make")
        return choose_hard(view, seed)
    return ai.choose(view, level, seed)
