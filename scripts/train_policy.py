"""Train the learned player's network (game/policy.py) on teacher data, in PyTorch on the CPU.

    .venv/bin/pip install -e '.[train]'     # torch, CPU build
    .venv/bin/python scripts/train_policy.py build/teacher/*.jsonl --out game/policy_weights.npz

Reads the hands of scripts/make_teacher_data.py. Each decision teaches the values of the discards it weighed
(``game.search.discard_values``), relative to their mean (a hand's values move together with its prospects; only
their differences choose a discard), in units of the decision's spread, plus a cross-entropy towards the
search's best discard. The three suits are interchangeable in the rules, so each decision is also learned with
its suits permuted (six ways). One hand in ten (by seed) is held out: the script prints how often the network's
best discard is the search's best there, and what its choices give up by the search's values. Seeded: the same
data, seed and command give the same weights. Writes the weights as float32 arrays ``w0 b0 …`` (numpy's
layout: inputs × outputs) and ``tests/game/policy_expected.json``: a few held-out inputs with torch's outputs,
which the tests compare with the numpy forward pass (CI has no torch).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from game.features import CHANNELS
from game.policy import GAPS, IN_CHANNELS, KIND_PLACE, LAYERS, PLACES, WIDTH, laid_out
from game.tiles import NUM_KINDS

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ROOT / "tests" / "game" / "policy_expected.json"


class ConvNet(nn.Module):
    """game.policy.Network in torch: the same layers, the same gaps between the suits."""

    def __init__(self) -> None:
        super().__init__()
        widths = [IN_CHANNELS, *[WIDTH] * (LAYERS - 1), 1]
        self.convs = nn.ModuleList(nn.Conv1d(a, b, 3, padding=1) for a, b in itertools.pairwise(widths))
        mask = torch.ones(PLACES)
        mask[torch.from_numpy(GAPS)] = 0
        self.register_buffer("mask", mask)
        self.kinds = torch.from_numpy(KIND_PLACE)

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        """(n, IN_CHANNELS, PLACES) → the value of discarding each kind (n, 34)."""
        for i, conv in enumerate(self.convs):
            rows = conv(rows)
            if i < LAYERS - 1:
                rows = torch.relu(rows) * self.mask
        return rows[:, 0, self.kinds]


def model() -> ConvNet:
    return ConvNet()


def rows_of(x: np.ndarray) -> torch.Tensor:
    """Feature vectors (n, SIZE) laid out as game.policy.laid_out does, for a batch."""
    return torch.from_numpy(np.stack([laid_out(v) for v in x]))


def load(paths: list[Path]) -> list[dict[str, Any]]:
    """Every hand of the files, by seed (a seed in two files counts once)."""
    hands: dict[int, dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                hand = json.loads(line)
                hands[hand["seed"]] = hand
    return [hands[s] for s in sorted(hands)]


def arrays(hands: list[dict[str, Any]], permute: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(inputs, targets, legal mask) of every decision; with ``permute``, each in all six orders of the suits."""
    orders = list(itertools.permutations(range(3))) if permute else [(0, 1, 2)]
    xs, ys, masks = [], [], []
    for hand in hands:
        for d in hand["decisions"]:
            x = np.asarray(d["x"], dtype=np.float32)
            y = np.zeros(NUM_KINDS, dtype=np.float32)
            mask = np.zeros(NUM_KINDS, dtype=bool)
            for t, v in d["values"].items():
                y[int(t)], mask[int(t)] = v, True
            for order in orders:
                kinds = _kinds(order)
                planes = x[: CHANNELS * NUM_KINDS].reshape(CHANNELS, NUM_KINDS)[:, kinds].ravel()
                xs.append(np.concatenate([planes, x[CHANNELS * NUM_KINDS :]]))
                ys.append(y[kinds])
                masks.append(mask[kinds])
    return np.stack(xs), np.stack(ys), np.stack(masks)


def _kinds(order: tuple[int, ...]) -> np.ndarray:
    """Column ``k`` of the permuted planes is kind ``kinds[k]`` of the original: suit ``i`` becomes ``order[i]``."""
    kinds = np.arange(NUM_KINDS)
    for i, j in enumerate(order):
        kinds[j * 9 : j * 9 + 9] = np.arange(i * 9, i * 9 + 9)
    return kinds


def loss_of(out: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Centred, spread-scaled squared error on the weighed discards, plus cross-entropy towards the best one."""
    n = mask.sum(1, keepdim=True)
    y_c = torch.where(mask, y - (y * mask).sum(1, keepdim=True) / n, 0)
    spread = (y_c.abs().sum(1, keepdim=True) / n).clamp_min(1e-3)
    o_c = torch.where(mask, out - (out * mask).sum(1, keepdim=True) / n, 0)
    mse = (((o_c - y_c / spread) ** 2) * mask).sum(1) / n.squeeze(1)
    best = torch.where(mask, y, -torch.inf).argmax(1)
    ce = nn.functional.cross_entropy(torch.where(mask, out, -1e9), best)
    return mse.mean() + ce


def evaluate(net: nn.Sequential, x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """On held-out decisions: how often the network's pick is the search's, and the search's value given up."""
    with torch.no_grad():
        out = net(rows_of(x)).numpy()
    pick = np.where(mask, out, -np.inf).argmax(1)
    best = np.where(mask, y, -np.inf).argmax(1)
    rows = np.arange(len(y))
    return {
        "agree": float((pick == best).mean()),
        "given_up": float((y[rows, best] - y[rows, pick]).mean()),
        "decisions": len(y),
    }


def training_arguments(parser: argparse.ArgumentParser, out: Path, epochs: int) -> argparse.Namespace:
    """The options every training script takes (the weights' file, the seed, the epochs), parsed; every
    generator seeded by ``--seed``."""
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--epochs", type=int, default=epochs)
    args = parser.parse_args()
    seeded(args.seed)
    return args


def seeded(seed: int) -> None:
    """Every generator seeded, one thread (the machine is shared; one thread also keeps the sums in one order)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)


def conv_weights(convs: nn.ModuleList, w_name: str, b_name: str) -> dict[str, np.ndarray]:
    """Each convolution's weights as game.policy lays them out: (outputs, 3 × inputs), neighbours side by side."""
    weights = {}
    for i, conv in enumerate(convs):
        w = conv.weight.detach().numpy()  # (outputs, inputs, 3)
        weights[f"{w_name}{i}"] = w.transpose(0, 2, 1).reshape(w.shape[0], -1).copy()
        weights[f"{b_name}{i}"] = conv.bias.detach().numpy().copy()
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    args = training_arguments(parser, ROOT / "game" / "policy_weights.npz", 20)
    hands = load(args.data)
    held = [h for h in hands if h["seed"] % 10 == 0]
    train = [h for h in hands if h["seed"] % 10 != 0]
    tx, ty, tmask = arrays(train, permute=True)
    x, y, mask = rows_of(tx), torch.from_numpy(ty), torch.from_numpy(tmask)
    hx, hy, hmask = arrays(held, permute=False)
    net = model()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    for epoch in range(args.epochs):
        order = torch.randperm(len(x))
        for batch in order.split(256):
            opt.zero_grad()
            loss_of(net(x[batch]), y[batch], mask[batch]).backward()
            opt.step()
        if epoch % 10 == 9 or epoch == args.epochs - 1:
            print(f"epoch {epoch + 1}: held out {evaluate(net, hx, hy, hmask)}")
    np.savez_compressed(args.out, **conv_weights(net.convs, "w", "b"))
    with torch.no_grad():
        expected = {"x": hx[:4].tolist(), "out": net(rows_of(hx[:4])).tolist()}
    EXPECTED.write_text(json.dumps(expected) + "\n")
    summary = {"hands": len(hands), "train_decisions": len(x) // 6, "held_out": evaluate(net, hx, hy, hmask)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
