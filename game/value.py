"""The learned value of a position, run in numpy: what a seat's position is worth in points when ``normal``
plays on, read from what the seat sees (``game.features``).

    seen = discard_outlooks(view)       # {tile: Outlook(points, won, dealt_in)} after each weighed discard
    action = choose_valued(view, seed)  # normal's choice, its discard picked among normal's best with the odds

The network: the convolutions of ``game.policy`` over the row of tile kinds (``VALUE_LAYERS`` of them,
``VALUE_WIDTH`` channels, ReLU), the mean and the maximum of each channel over the kinds, one hidden
layer of ``HEAD`` units, and three outputs: the seat's points at the end of the hand (in hundreds), and the
logits of its winning and of its dealing in. Taught by scripts/train_value.py on cheap self-play of ``normal``
(scripts/make_value_data.py: the positions just after each discard and how the hand ended for that seat),
so a discard is judged by the position it leaves, as ``normal`` would go on to play it. The weights are
``value_weights.npz`` beside this file; docs/LEARNED.md records the data, the seed and the command.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from game.actions import Action
from game.ai import forced_action, ranked, weighed_discards
from game.features import after_discard, features
from game.policy import GAPS, IN_CHANNELS, KIND_PLACE, convolved, laid_out
from game.tiles import Tile
from game.view import SeatView

WEIGHTS: Final = Path(__file__).with_name("value_weights.npz")
VALUE_LAYERS: Final = 3  # convolutions over the row of tiles
VALUE_WIDTH: Final = 32  # channels of each
HEAD: Final = 64  # hidden units after the pooling
OUTPUTS: Final = 3  # points / 100, logit(won), logit(dealt in)
POINTS_SCALE: Final = 100.0
# The value player picks among this many of normal's best discards: the network judges positions near
# normal's choice (where its data has them: scripts/make_value_data.py), and normal's worth keeps it from the
# blunders a network alone makes.
CANDIDATES: Final = 3
# Points of normal's worth one unit of (chance to win − chance to deal in) counts for: chosen by a duplicate
# screen of 600 hands (20 and 50; judging by the points alone, or by the odds alone, lost: docs/LEARNED.md).
ODDS_WEIGHT: Final = 50.0

Array = npt.NDArray[np.float32]


class ValueNetwork:
    """``c{i}`` (outputs, 3 × inputs) and ``cb{i}`` per convolution, as game.policy.Network lays them out;
    ``h``/``hb`` (HEAD, 2 × VALUE_WIDTH) and ``o``/``ob`` (OUTPUTS, HEAD) for the head."""

    def __init__(self, arrays: dict[str, Array]) -> None:
        self.convs = [(arrays[f"c{i}"], arrays[f"cb{i}"]) for i in range(VALUE_LAYERS)]
        self.hidden = (arrays["h"], arrays["hb"])
        self.out = (arrays["o"], arrays["ob"])
        if self.convs[0][0].shape[1] != 3 * IN_CHANNELS or self.out[0].shape[0] != OUTPUTS:
            raise ValueError("these weights were trained on other features")

    def __call__(self, xs: Array) -> Array:
        """(n, OUTPUTS) for feature vectors (n, SIZE)."""
        rows = np.stack([laid_out(x) for x in xs])
        for w, b in self.convs:
            rows = np.maximum(convolved(rows, w, b), 0)
            rows[:, :, GAPS] = 0
        kinds = rows[:, :, KIND_PLACE]
        pooled = np.concatenate([kinds.mean(axis=2), kinds.max(axis=2)], axis=1)
        hidden = np.maximum(pooled @ self.hidden[0].T + self.hidden[1], 0)
        out: Array = (hidden @ self.out[0].T + self.out[1]).astype(np.float32)
        return out


@lru_cache(maxsize=1)
def value_network() -> ValueNetwork:
    """The committed network, read once per process."""
    with np.load(WEIGHTS) as data:
        return ValueNetwork({k: data[k].astype(np.float32) for k in data.files})


class Outlook(NamedTuple):
    """What the network expects for the seat from a position: its points at the end of the hand, and the
    chances that it wins the hand and that it deals in."""

    points: float
    won: float
    dealt_in: float


def discard_outlooks(view: SeatView, tiles: list[Tile] | None = None) -> dict[Tile, Outlook]:
    """The outlook of the position each discard leaves (``tiles``, or every weighed one)."""
    tiles = weighed_discards(view) if tiles is None else tiles
    if not tiles:
        return {}
    out = value_network()(np.stack([features(after_discard(view, t)) for t in tiles]))
    odds = 1 / (1 + np.exp(-out[:, 1:]))
    return {
        t: Outlook(float(o[0]) * POINTS_SCALE, float(p[0]), float(p[1]))
        for t, o, p in zip(tiles, out, odds, strict=True)
    }


def choose_valued(view: SeatView, seed: int = 0) -> Action:
    """``normal``'s choice, but when that is a discard the best of ``normal``'s best ``CANDIDATES`` by
    ``normal``'s worth plus ``ODDS_WEIGHT`` × (the chance to win − the chance to deal in) after it."""
    forced = forced_action(view)
    if forced is not None:
        return forced
    best = ranked(view, "normal", seed)
    top = best[0][1]
    if top.kind != "discard" or view.phase != "turn":
        return top
    weighed = set(weighed_discards(view))
    options = [(w, a.tile) for w, a in best if a.kind == "discard" and a.tile in weighed][:CANDIDATES]
    if len(options) < 2:
        return top
    seen = discard_outlooks(view, [t for _, t in options if t is not None])
    _, tile = max(options, key=lambda r: r[0] + ODDS_WEIGHT * (seen[r[1]].won - seen[r[1]].dealt_in))
    return next(a for a in view.legal if a.kind == "discard" and a.tile == tile)
