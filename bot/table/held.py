"""A draw held back (bot.table.hand.play): which draw followed a discard or a 蓄杠 no person could claim
(``held_draw``), and for how long it is held (``hold``); pure, part of the table's core."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from bot.table.options import Options
from bot.table.state import Held, Table
from game.actions import Action
from game.table import Event

Window = tuple[str, int | None, int | None]  # a hand's phase, and the discard (or 蓄杠) its claim window is on


def held_draw(
    before: Window, action: Action, events: Sequence[Event]
) -> tuple[Literal["claim", "rob"], int, int] | None:
    """The discard (or 蓄杠) a draw at the end of ``events`` followed, with its window (open before ``action``, or
    never opened): ("claim" or "rob", by, tile); None for any other draw (a gang's replacement: nobody could
    claim anything) or none."""
    if not events or events[-1].kind != "draw":
        return None
    phase, by, tile = before
    if action.kind in ("discard", "xu_gang") and action.tile is not None:
        return ("claim" if action.kind == "discard" else "rob"), action.seat, action.tile
    if action.kind == "pass" and phase in ("claim", "rob") and by is not None and tile is not None:
        return ("claim" if phase == "claim" else "rob"), by, tile
    return None


def hold(table: Table, held: tuple[Literal["claim", "rob"], int, int], options: Options, now: float) -> bool:
    """With two or more people at the table, the draw that just followed a discard (or a 蓄杠) no person could
    claim is held back for a moment, the table shown as during a claim window nobody is asked about: so a claim
    window's pause alone says little (README, "How to play"). The moment is drawn from the table's people's
    latest claim decisions (uniform up to the cap before any), capped at ``claim_pause`` and the claim window
    (a decision never takes longer). Whether it is held."""
    hand = table.hand
    assert hand is not None
    if len(table.humans()) < 2 or options.claim_pause <= 0:
        return False  # nobody for a pause to tell anything to (the one person is the one deciding)
    # Pure: the hand's own secret seed decides, so a test replays it and nobody can foresee it; through a one-way
    # hash, so the moments shown say nothing of the seed (and so of the wall).
    digest = hashlib.sha256(f"held draw {hand.seed} {len(hand.actions)}".encode()).digest()
    share = int.from_bytes(digest[:8], "big") / 2**64  # uniform in [0, 1)
    cap = min(options.claim_pause, table.claim_seconds)
    pauses = table.claim_pauses
    seconds = pauses[int(share * len(pauses))] if pauses else share * cap
    table.held = Held(*held, until=now + min(seconds, cap))
    table.prompts.pop(hand.view(None).turn, None)  # the seat that drew is asked nothing until it is shown
    return True
