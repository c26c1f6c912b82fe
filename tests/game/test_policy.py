"""The learned player's network run in numpy (game.policy): the same outputs as the torch model it was trained
as, and a player that always plays one of the legal actions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from game.features import features
from game.policy import choose_learned, discard_scores, network
from tests.game.test_search import play_until
from tests.requires import skip_or_fail

# Inputs and torch's outputs for them, written with the weights by scripts/train_policy.py (CI has no torch).
EXPECTED = Path(__file__).with_name("policy_expected.json")
ROOT = Path(__file__).resolve().parents[2]


def test_numpy_gives_what_torch_gave() -> None:
    expected = json.loads(EXPECTED.read_text())
    for x, out in zip(expected["x"], expected["out"], strict=True):
        assert np.allclose(network()(np.asarray(x, dtype=np.float32)), np.asarray(out), atol=1e-4)


def test_numpy_gives_what_torch_gives_on_positions_of_play() -> None:
    try:
        import torch  # the 'train' extra (.ci/run installs it); the test above needs none
    except ImportError:
        skip_or_fail("the network was not checked against torch: no torch (pip install -e '.[train]')")
    spec = importlib.util.spec_from_file_location("train_policy", ROOT / "scripts" / "train_policy.py")
    assert spec is not None and spec.loader is not None
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    model = train.model()  # the network as trained, its weights from the committed file
    with torch.no_grad():
        for conv, (w, b) in zip(model.convs, network().layers, strict=True):
            outputs, inputs, width = conv.weight.shape
            conv.weight.copy_(torch.from_numpy(w.reshape(outputs, width, inputs).transpose(0, 2, 1).copy()))
            conv.bias.copy_(torch.from_numpy(b))
        hands = [play_until(seed, 20) for seed in (2, 5, 8)]
        xs = np.stack([features(h.view(h.waiting_on()[0])) for h in hands])
        expected = model(train.rows_of(xs)).numpy()
        assert np.allclose(np.stack([network()(x) for x in xs]), expected, atol=1e-4)


@pytest.mark.parametrize(("seed", "decisions"), [(1, 20), (5, 60), (11, 80)])
def test_the_learned_player_discards_a_weighed_tile(seed: int, decisions: int) -> None:
    hand = play_until(seed, decisions)
    view = hand.view(hand.waiting_on()[0])
    scores = discard_scores(view)
    action = choose_learned(view, seed)
    assert action in view.legal
    if action.kind == "discard":
        assert scores[action.tile] == max(scores.values())  # type: ignore[index]
    assert choose_learned(view, seed) == action
