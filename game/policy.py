"""The learned player's network, run in numpy: from a seat's view, a value for discarding each tile kind.

    scores = discard_scores(view)        # {tile: value} for every discard ``normal`` would weigh
    action = choose_learned(view, seed)  # the network's discard; claims and gangs as ``normal``

A small MLP (``game.features`` → ``HIDDEN`` → ``HIDDEN`` → 34, ReLU) taught by the search: trained by
scripts/train_policy.py (PyTorch, CPU) on self-play decisions of ``hard`` at every seat
(scripts/make_teacher_data.py) to give each discard the search's value (``game.search.discard_values``),
relative to the other discards of the same decision. The weights are ``policy_weights.npz`` beside this file;
docs/LEARNED.md records the data, the seed and the command that made them. A forward pass is three small
matrix products: well under a millisecond.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from game.actions import Action
from game.ai import forced_action, ranked, weighed_discards
from game.features import SIZE, features
from game.tiles import NUM_KINDS, Tile
from game.view import SeatView

WEIGHTS: Final = Path(__file__).with_name("policy_weights.npz")
HIDDEN: Final = 128
LAYERS: Final = 3

Array = npt.NDArray[np.float32]


class Network:
    """The MLP's layers: ``w{i}`` of shape (inputs, outputs) and ``b{i}``, as scripts/train_policy.py saves them."""

    def __init__(self, arrays: dict[str, Array]) -> None:
        self.layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(LAYERS)]
        if self.layers[0][0].shape[0] != SIZE or self.layers[-1][0].shape[1] != NUM_KINDS:
            raise ValueError("these weights were trained on other features")

    def __call__(self, x: Array) -> Array:
        """The values of discarding each kind, for one input (SIZE,) or a batch (n, SIZE)."""
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < LAYERS - 1:
                x = np.maximum(x, 0)
        return x


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
