"""scripts/make_teacher_data.py: self-play records of what each seat saw and the search's value of each discard,
appended a hand at a time and resumed where a run stopped; scripts/make_value_data.py: the positions after each
discard with how the hand ended for the seat, written a chunk at a time and resumed the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from game.features import SIZE

ROOT = Path(__file__).resolve().parents[1]
# Two short self-play hands (21 and 16 choices among discards, where seeds 5 and 6 have 36 and 29): the search's
# value of every discard weighed is most of the test's time.
FIRST_SEED = 46


def _run(out: Path, hands: int) -> None:
    script = ROOT / "scripts" / "make_teacher_data.py"
    args = ["--out", str(out), "--first-seed", str(FIRST_SEED), "--hands", str(hands), "--samples", "2"]
    subprocess.run([sys.executable, str(script), *args], cwd=ROOT, check=True, timeout=200)


def test_hands_are_recorded_and_a_second_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "teacher.jsonl"
    _run(out, 1)
    first = out.read_text().splitlines()
    assert len(first) == 1
    hand = json.loads(first[0])
    assert hand["seed"] == FIRST_SEED and sum(hand["payments"]) == 0 and hand["decisions"]
    for d in hand["decisions"]:
        assert len(d["x"]) == SIZE and 0 <= d["seat"] < 4
        assert len(d["values"]) >= 2 and (str(d["played"]) in d["values"] or d["played"].endswith("gang"))
    _run(out, 2)  # the first seed is done: only the next is played, appended after it
    lines = out.read_text().splitlines()
    assert lines[0] == first[0] and [json.loads(line)["seed"] for line in lines] == [FIRST_SEED, FIRST_SEED + 1]


def _run_value(out: Path, hands: int) -> None:
    script = ROOT / "scripts" / "make_value_data.py"
    args = ["--out", str(out), "--first-seed", "5", "--hands", str(hands), "--chunk", "1"]
    subprocess.run([sys.executable, str(script), *args], cwd=ROOT, check=True, timeout=200)


def test_value_data_records_positions_after_discards_and_a_second_run_resumes(tmp_path: Path) -> None:
    _run_value(tmp_path, 1)
    first = tmp_path / "value_5.npz"
    with np.load(first) as data:
        rows = {k: data[k] for k in data.files}
    n = len(rows["x"])
    assert n > 10 and rows["x"].shape == (n, SIZE) and rows["x"].dtype == np.float16
    assert set(rows["seed"].tolist()) == {5} and len(rows["points"]) == len(rows["won"]) == len(rows["dealt_in"]) == n
    assert all(p > 0 for p, w in zip(rows["points"], rows["won"], strict=True) if w)  # the winner's rows gain
    assert all(p < 0 for p, d in zip(rows["points"], rows["dealt_in"], strict=True) if d)  # the discarder's pay
    written = first.stat().st_mtime_ns
    _run_value(tmp_path, 2)  # seed 5's chunk is there: only seed 6's is written
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == ["value_5.npz", "value_6.npz"]
    assert first.stat().st_mtime_ns == written
