"""scripts/make_teacher_data.py: self-play records of what each seat saw and the search's value of each discard,
appended a hand at a time and resumed where a run stopped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from game.features import SIZE

ROOT = Path(__file__).resolve().parents[1]


def _run(out: Path, hands: int) -> None:
    script = ROOT / "scripts" / "make_teacher_data.py"
    args = ["--out", str(out), "--first-seed", "5", "--hands", str(hands), "--samples", "2"]
    subprocess.run([sys.executable, str(script), *args], cwd=ROOT, check=True, timeout=200)


def test_hands_are_recorded_and_a_second_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "teacher.jsonl"
    _run(out, 1)
    first = out.read_text().splitlines()
    assert len(first) == 1
    hand = json.loads(first[0])
    assert hand["seed"] == 5 and sum(hand["payments"]) == 0 and hand["decisions"]
    for d in hand["decisions"]:
        assert len(d["x"]) == SIZE and 0 <= d["seat"] < 4
        assert len(d["values"]) >= 2 and (str(d["played"]) in d["values"] or d["played"].endswith("gang"))
    _run(out, 2)  # seed 5 is done: only seed 6 is played, appended after it
    lines = out.read_text().splitlines()
    assert lines[0] == first[0] and [json.loads(line)["seed"] for line in lines] == [5, 6]
