"""bench/ai.py's duplicate rating: each wall's figure is the mean of the tested player's four seatings, and the
interval is taken over walls."""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_ai", ROOT / "bench" / "ai.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_figure_is_the_mean_over_walls_of_the_four_seatings(bench: ModuleType) -> None:
    rows: list[tuple[int, int, list[tuple[int, str]], list[float]]] = [
        (2, 7, [(10, "won_on_discard"), (-10, "dealt_in"), (30, "won_self_drawn"), (10, "others_on_discard")], []),
        (2, 8, [(-2, "others_on_discard")] * 4, []),
    ]
    figure = bench.duplicate_figure(rows)
    assert figure.mean == 4.0  # walls 10 and −2
    half = 1.96 * statistics.stdev([10, -2]) / 2**0.5
    assert figure.dup_ci95 == (round(4 - half, 2), round(4 + half, 2)) == (-7.76, 15.76)
    outcomes = bench.by_outcome(rows)
    assert outcomes["won_on_discard"] == (1 / 8, 10 / 8) and outcomes["won_self_drawn"] == (1 / 8, 30 / 8)
    assert outcomes["others_on_discard"] == (5 / 8, 2 / 8) and outcomes["drawn"] == (0, 0)
    assert sum(points for _, points in outcomes.values()) == figure.mean
    hands = [10, -10, 30, 10, -2, -2, -2, -2]
    half = 1.96 * statistics.stdev(hands) / 8**0.5
    assert figure.single_ci95 == (round(4 - half, 2), round(4 + half, 2))


def test_a_tiny_run_seats_the_player_in_each_seat_of_the_same_wall(bench: ModuleType) -> None:
    normal_vs_easy = 1
    rows = [bench.play_wall((normal_vs_easy, wall)) for wall in (3, 4)]
    for _, wall, hands, _ in rows:
        assert [h[0] for h in hands] == [bench.play(wall, seat, "normal", "easy")[0] for seat in range(4)]
    per_wall = [sum(p for p, _ in hands) / 4 for _, _, hands, _ in rows]
    assert bench.duplicate_figure(rows).mean == round(statistics.fmean(per_wall), 2)


def duplicate_summary(*options: str) -> dict[str, Any]:
    """The last line (JSON) of ``bench/ai.py --duplicate`` run with ``options``."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ai.py"), "--duplicate", *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=200,
    )
    summary: dict[str, Any] = json.loads(run.stdout.splitlines()[-1])
    return summary


def test_duplicate_rates_the_value_player_alone_when_asked() -> None:
    summary = duplicate_summary("--hard-hands", "0", "--valued-hands", "8")
    low, high = summary["valued_vs_normal_dup_ci95"]
    assert low <= summary["valued_vs_normal_dup"] <= high and summary["valued_decision_ms_p95"] > 0
    assert "hard_vs_normal_dup" not in summary and "learned_vs_normal_dup" not in summary


def test_duplicate_prints_hard_against_normal_and_the_breakdown_in_the_same_seats() -> None:
    """``hard`` alone against ``normal``: its figure inside its interval, nothing of ``easy``. The breakdown: every
    hand has one outcome; their points add up to the figure; ``normal`` in the same seats of the same walls plays
    one and the same hand in all four, so its points are 0 on every wall."""
    summary = duplicate_summary("--hard-hands", "8", "--hard-ms", "5", "--breakdown")
    assert summary["hard_hands"] == 8 and summary["hands"] == 0
    low, high = summary["hard_vs_normal_dup_ci95"]
    assert low <= summary["hard_vs_normal_dup"] == summary["vs_normal_points_per_hand"] <= high
    assert len(summary["hard_vs_normal_single_ci95"]) == 2 and summary["hard_decision_ms_p95"] > 0
    assert "vs_easy_points_per_hand" not in summary
    for key in ("vs_normal", "normal_vs_normal"):
        outcomes = summary[f"{key}_by_outcome"]
        assert list(outcomes) == [
            "won_self_drawn",
            "won_on_discard",
            "dealt_in",
            "others_self_drawn",
            "others_on_discard",
            "drawn",
        ]
        assert sum(share for share, _ in outcomes.values()) == pytest.approx(1)
        assert sum(points for _, points in outcomes.values()) == pytest.approx(summary[f"{key}_points_per_hand"])
    assert summary["normal_vs_normal_points_per_hand"] == 0
    reference = summary["normal_vs_normal_by_outcome"]
    assert reference["won_self_drawn"][0] + reference["won_on_discard"][0] > 0
    assert "normal_vs_normal_dup" not in summary and "hard_vs_normal_dup" in summary


def test_a_fixed_number_of_worlds_plays_the_same_hands_whatever_the_time() -> None:
    """With ``--hard-worlds`` the search does not stop on a clock, so a run is repeatable (paired runs)."""
    first = duplicate_summary("--hard-hands", "4", "--hard-worlds", "2", "--hard-ms", "1", "--processes", "1")
    again = duplicate_summary("--hard-hands", "4", "--hard-worlds", "2", "--hard-ms", "500", "--processes", "1")
    assert first["hard_worlds"] == again["hard_worlds"] == 2
    assert first["hard_vs_normal_dup"] == again["hard_vs_normal_dup"]
    assert first["vs_normal_by_outcome"] == again["vs_normal_by_outcome"]
