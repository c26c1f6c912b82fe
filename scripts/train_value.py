"""Train the value network (game/value.py) on self-play outcomes, in PyTorch on the CPU.

    .venv/bin/pip install -e '.[train]'     # torch, CPU build
    .venv/bin/python scripts/train_value.py build/value --epochs 4

Reads the chunks of scripts/make_value_data.py: per row, the features of a position just after a discard and
how the hand ended for that seat. Learns the seat's points (in hundreds, squared error: the mean is what a
choice should maximise), and whether it won and whether it dealt in (cross-entropy; they steady the layers
the points are read from). The three suits are interchangeable in the rules: each batch is learned with its
suits in a random order. One hand in ten (by seed) is held out: the script prints the points' squared error
there against that of the mean alone (the share of the variance explained), and the win and deal-in errors.
Seeded and single-threaded: the same data, seed and command give the same weights. Writes them as float32
arrays (``game.value.ValueNetwork``'s names and layout) and ``tests/game/value_expected.json``: a few
held-out inputs with torch's outputs, which the tests compare with the numpy forward pass (CI has no torch).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from pathlib import Path

import numpy as np
import torch
from torch import nn
from train_policy import conv_weights, training_arguments  # beside this script

from game.features import CHANNELS
from game.policy import GAPS, IN_CHANNELS, KIND_PLACE, PLACES
from game.tiles import NUM_KINDS
from game.value import HEAD, OUTPUTS, POINTS_SCALE, VALUE_LAYERS, VALUE_WIDTH

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ROOT / "tests" / "game" / "value_expected.json"
_ORDERS = list(itertools.permutations(range(3)))


class ValueNet(nn.Module):
    """game.value.ValueNetwork in torch: the same layers, the same gaps between the suits."""

    def __init__(self) -> None:
        super().__init__()
        widths = [IN_CHANNELS, *[VALUE_WIDTH] * VALUE_LAYERS]
        self.convs = nn.ModuleList(nn.Conv1d(a, b, 3, padding=1) for a, b in itertools.pairwise(widths))
        self.hidden = nn.Linear(2 * VALUE_WIDTH, HEAD)
        self.out = nn.Linear(HEAD, OUTPUTS)
        mask = torch.ones(PLACES)
        mask[torch.from_numpy(GAPS)] = 0
        self.register_buffer("mask", mask)
        self.kinds = torch.from_numpy(KIND_PLACE)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Feature vectors (n, SIZE) → (n, OUTPUTS)."""
        rows = laid_out(x)
        for conv in self.convs:
            rows = torch.relu(conv(rows)) * self.mask
        kinds = rows[:, :, self.kinds]
        pooled = torch.cat([kinds.mean(2), kinds.amax(2)], 1)
        out: torch.Tensor = self.out(torch.relu(self.hidden(pooled)))
        return out


def laid_out(x: torch.Tensor) -> torch.Tensor:
    """game.policy.laid_out for a batch: (n, SIZE) → (n, IN_CHANNELS, PLACES)."""
    rows = torch.zeros(len(x), IN_CHANNELS, PLACES)
    rows[:, :CHANNELS, KIND_PLACE] = x[:, : CHANNELS * NUM_KINDS].reshape(-1, CHANNELS, NUM_KINDS)
    rows[:, CHANNELS:, KIND_PLACE] = x[:, CHANNELS * NUM_KINDS :, None]
    return rows


def permuted(x: torch.Tensor, order: tuple[int, ...]) -> torch.Tensor:
    """The features with suit ``i`` become suit ``order[i]`` (honours and scalars as they are)."""
    kinds = torch.arange(NUM_KINDS)
    for i, j in enumerate(order):
        kinds[j * 9 : j * 9 + 9] = torch.arange(i * 9, i * 9 + 9)
    planes = x[:, : CHANNELS * NUM_KINDS].reshape(-1, CHANNELS, NUM_KINDS)[:, :, kinds]
    return torch.cat([planes.reshape(len(x), -1), x[:, CHANNELS * NUM_KINDS :]], 1)


def load(folder: Path) -> dict[str, np.ndarray]:
    """Every chunk in ``folder``, in the order of their first seeds."""
    chunks = sorted(folder.glob("value_*[0-9].npz"), key=lambda p: int(p.stem.split("_")[1]))
    parts = [dict(np.load(p)) for p in chunks]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def targets(data: dict[str, np.ndarray]) -> torch.Tensor:
    cols = [data["points"] / POINTS_SCALE, data["won"], data["dealt_in"]]
    return torch.from_numpy(np.stack(cols, 1).astype(np.float32))


def loss_of(out: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(points' squared error, win cross-entropy, deal-in cross-entropy)."""
    bce = nn.functional.binary_cross_entropy_with_logits
    return ((out[:, 0] - y[:, 0]) ** 2).mean(), bce(out[:, 1], y[:, 1]), bce(out[:, 2], y[:, 2])


def evaluate(net: ValueNet, x: torch.Tensor, y: torch.Tensor) -> dict[str, float]:
    with torch.no_grad():
        out = torch.cat([net(b) for b in x.split(4096)])
        points, won, dealt = loss_of(out, y)
    variance = float(((y[:, 0] - y[:, 0].mean()) ** 2).mean())
    return {
        "points_mse": round(float(points), 4),
        "points_var": round(variance, 4),
        "explained": round(1 - float(points) / variance, 4),
        "won_ce": round(float(won), 4),
        "dealt_ce": round(float(dealt), 4),
        "rows": len(y),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="the folder of scripts/make_value_data.py's chunks")
    args = training_arguments(parser, ROOT / "game" / "value_weights.npz", 4)
    data = load(args.data)
    held = data["seed"] % 10 == 0
    x_all = torch.from_numpy(data["x"].astype(np.float32))
    y_all = targets(data)
    x, y = x_all[~torch.from_numpy(held)], y_all[~torch.from_numpy(held)]
    hx, hy = x_all[torch.from_numpy(held)], y_all[torch.from_numpy(held)]
    net = ValueNet()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    for epoch in range(args.epochs):
        for batch in torch.randperm(len(x)).split(256):
            opt.zero_grad()
            points, won, dealt = loss_of(net(permuted(x[batch], random.choice(_ORDERS))), y[batch])
            (points + won + dealt).backward()
            opt.step()
        print(f"epoch {epoch + 1}: held out {evaluate(net, hx, hy)}", flush=True)
    weights = conv_weights(net.convs, "c", "cb")
    weights["h"], weights["hb"] = net.hidden.weight.detach().numpy(), net.hidden.bias.detach().numpy()
    weights["o"], weights["ob"] = net.out.weight.detach().numpy(), net.out.bias.detach().numpy()
    np.savez_compressed(args.out, **weights)
    with torch.no_grad():
        expected = {"x": hx[:4].tolist(), "out": net(hx[:4]).tolist()}
    EXPECTED.write_text(json.dumps(expected) + "\n")
    summary = {"rows": len(x_all), "hands": len(set(data["seed"].tolist())), "held_out": evaluate(net, hx, hy)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
