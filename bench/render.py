"""Rendering speed and size: the private table picture and the spectator picture, rendered and encoded.

    .venv/bin/python bench/render.py

The first seeded hand (from SEED on) that the automatic player takes to the middle of the wall is used;
the seat to act (holding its fresh draw) and the spectator are rendered RUNS times after one warm-up
(tile images and the palette are cached for the life of the process, as in the bot).
Target: under 15 ms median and under 60 KB each; shown 720 px wide (a phone), a river tile at least 24 px
wide and a tile of the viewer's hand at least 44 px, measured on the spots the renderer drew (its layout).
Also a player card with its statistics panel (/me: tests.rendering.scenes' card), target under 50 ms median.
The last line is one JSON object: seat_ms_median, seat_kb, spectator_ms_median, spectator_kb,
river_tile_px_at_720, hand_tile_px_at_720 (the narrowest of each, over both pictures), stats_card_ms_median.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from game.automatic import choose
from game.rules import Rules
from game.table import Hand
from rendering import render_spectator_view, render_table_view
from rendering.standings_cards import render_player_card
from rendering.table_picture import table_layout

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test's card: tests.rendering.scenes
from tests.rendering.scenes import CARD_WITH_STATS

T = TypeVar("T")

SEED = 7
RUNS = 60
NAMES = ("谢霆锋", "Анна-Мария Ковалёва", "🀄 Lucky 🔥", "محمد")
SCORES = (120, -340, 60, 160)


def mid_hand() -> Hand:
    """A hand when the wall is half gone, with the seat to act holding a drawn tile."""
    for seed in range(SEED, SEED + 100):
        hand = Hand(Rules(), seed)
        while not hand.finished:
            seat = hand.waiting_on()[0]
            view = hand.view(seat)
            if view.wall_remaining <= 40 and view.drawn is not None:
                return hand
            hand.apply(choose(view, "normal", seed))
    raise SystemExit("no hand in 100 seeds reached the middle of the wall")


def measure(render: Callable[[T], bytes], view: T) -> tuple[float, float]:
    """(median ms, KB) of ``render(view)``."""
    data = render(view)  # warm-up: tile images and the palette
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        data = render(view)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), len(data) / 1024


def shown_tile_widths(hand: Hand, seat: int) -> tuple[float, float]:
    """The narrowest river tile (both pictures) and own-hand tile, as drawn, at a 720 px display width."""
    seat_lay, spec_lay = table_layout(hand.view(seat)), table_layout(hand.view(None))
    river = min(lay.shown_width(s) for lay in (seat_lay, spec_lay) for tiles in lay.rivers for s in tiles)
    own = min(seat_lay.shown_width(s) for s in seat_lay.hands[seat])
    return river, own


def main() -> None:
    hand = mid_hand()
    seat = hand.waiting_on()[0]
    seat_ms, seat_kb = measure(lambda v: render_table_view(v, NAMES, SCORES, "zh"), hand.view(seat))
    spec_ms, spec_kb = measure(lambda v: render_spectator_view(v, NAMES, SCORES, "zh"), hand.view(None))
    river_px, hand_px = shown_tile_widths(hand, seat)
    card_ms, _ = measure(lambda card: render_player_card(card, "zh"), CARD_WITH_STATS)
    print(f"seat picture:      {seat_ms:6.2f} ms median, {seat_kb:5.1f} KB  (target < 15 ms, < 60 KB)")
    print(f"spectator picture: {spec_ms:6.2f} ms median, {spec_kb:5.1f} KB")
    print(f"at 720 px wide:    river tile {river_px:.1f} px (≥ 24), own hand tile {hand_px:.1f} px (≥ 44)")
    print(f"player card with its statistics: {card_ms:6.2f} ms median (target < 50 ms)")
    print(
        json.dumps(
            {
                "seat_ms_median": round(seat_ms, 2),
                "seat_kb": round(seat_kb, 1),
                "spectator_ms_median": round(spec_ms, 2),
                "spectator_kb": round(spec_kb, 1),
                "river_tile_px_at_720": round(river_px, 1),
                "hand_tile_px_at_720": round(hand_px, 1),
                "stats_card_ms_median": round(card_ms, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
