"""The learned player's network, run in numpy: from a seat's view, a value for discarding each tile kind.

    scores = discard_scores(view)        # {tile: value} for every discard ``normal`` would weigh
    action = choose_learned(view, seed)  # the network's discard; claims and gangs as ``normal``

A small 1-D convolutional network over the tile kinds (``game.features`` laid out as rows of a suit, three
convolutions of ``WIDTH`` channels, ReLU, then one value per kind) taught by the search: trained by
scripts/train_policy.py (PyTorch, CPU) on self-play decisions of ``hard`` at every seat
(scripts/make_teacher_data.py) to give each discard the search's value (``game.search.discard_values``),
relative to the other discards of the same decision. The weights are ``policy_weights.npz`` beside this file;
docs/LEARNED.md records the data, the seed and the command that made them. A forward pass is four small
matrix products (a few milliseconds at most: a search decision takes up to 200).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from game.actions import Action
from game.ai import forced_action, ranked, weighed_discards
from game.features import CHANNELS, SCALARS, features
from game.tiles import NUM_KINDS, Tile
from game.view import SeatView

WEIGHTS: Final = Path(__file__).with_name("policy_weights.npz")
WIDTH: Final = 64  # channels of each hidden layer
LAYERS: Final = 4  # three convolutions over the tiles of a suit (3 wide), then one value per tile
# The tile kinds laid out in a row with an empty place after each suit, so that a convolution never mixes
# suits (a 9万 is no neighbour of a 1筒): 1–9m, gap, 1–9p, gap, 1–9s, gap, the 7 honours.
PLACES: Final = 37
KIND_PLACE: Final = np.asarray([t + t // 9 for t in range(NUM_KINDS)])
GAPS: Final = np.asarray([p for p in range(PLACES) if p not in set(KIND_PLACE.tolist())])
IN_CHANNELS: Final = CHANNELS + SCALARS  # the tile planes, and each scalar spread over every place

Array = npt.NDArray[np.float32]


def laid_out(x: Array) -> Array:
    """A feature vector (SIZE,) as the network's input row: (IN_CHANNELS, PLACES), the gaps zero."""
    rows = np.zeros((IN_CHANNELS, PLACES), dtype=np.float32)
    rows[:CHANNELS, KIND_PLACE] = x[: CHANNELS * NUM_KINDS].reshape(CHANNELS, NUM_KINDS)
    rows[CHANNELS:, KIND_PLACE] = x[CHANNELS * NUM_KINDS :, None]
    return rows


def convolved(rows: Array, w: Array, b: Array) -> Array:
    """One convolution over the row of tiles, for a batch (n, inputs, PLACES) → (n, outputs, PLACES): each place
    sees itself and its two neighbours, ``w`` (outputs, 3 × inputs) their weights side by side, left first."""
    padded = np.pad(rows, ((0, 0), (0, 0), (1, 1)))
    stacked = np.concatenate([padded[:, :, :-2], padded[:, :, 1:-1], padded[:, :, 2:]], axis=1)
    out: Array = np.einsum("oc,ncp->nop", w, stacked) + b[None, :, None]
    return out


class Network:
    """Convolutions over the row of tiles; ``w{i}`` of shape (outputs, 3 × inputs) — the three neighbours'
    weights side by side, left first — and ``b{i}``, as scripts/train_policy.py saves them."""

    def __init__(self, arrays: dict[str, Array]) -> None:
        self.layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(LAYERS)]
        if self.layers[0][0].shape[1] != 3 * IN_CHANNELS or self.layers[-1][0].shape[0] != 1:
            raise ValueError("these weights were trained on other features")

    def __call__(self, x: Array) -> Array:
        """The value of discarding each kind (34,) for one feature vector (SIZE,)."""
        rows = laid_out(x)[None]
        for i, (w, b) in enumerate(self.layers):
            rows = convolved(rows, w, b)
            if i < LAYERS - 1:
                rows = np.maximum(rows, 0)
                rows[:, :, GAPS] = 0
        out: Array = rows[0, 0, KIND_PLACE]
        return out


@lru_cache(maxsize=1)
def network() -> Network:
    """The committed network, read once per process (the search processes keep it)."""
    with np.load(WEIGHTS) as data:
        return Network({k: data[k].astype(np.float32) for k in data.files})


def discard_scores(view: SeatView) -> dict[Tile, float]:
    """The network's value of each discard ``normal`` would weigh now (a higher value is a better discard)."""
    out = network()(features(view))
    return {t: float(out[t]) for t in weighed_discards(view)}


def choose_learned(view: SeatView, seed: int = 0) -> Action:
    """``normal``'s choice, but when that is a discard the network's best discard instead."""
    forced = forced_action(view)
    if forced is not None:
        return forced
    top = ranked(view, "normal", seed)[0][1]
    if top.kind != "discard" or view.phase != "turn":
        return top
    scores = discard_scores(view)
    if not scores:
        return top
    best = max(scores, key=lambda t: scores[t])
    return next(a for a in view.legal if a.kind == "discard" and a.tile == best)
