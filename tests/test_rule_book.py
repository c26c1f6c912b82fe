"""docs/RULES.md is the project's own rule book: nothing reads one outside the repository, and the book has
every section §1–§13 and every worked example A–I of §12, each of whose calculator inputs gives the result
the book states."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from game.calc import main

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "docs" / "RULES.md"
OUTSIDE = (b"../shared", b"shared/RULES")


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode(
            "utf-8"
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.split("\0") if name]


def section(number: int) -> str:
    """The text of one top-level section, '## N. ...' up to the next '## ' heading."""
    text = BOOK.read_text(encoding="utf-8")
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"docs/RULES.md has no section {number}"
    return match.group(0)


def test_nothing_tracked_reads_a_rule_book_outside_the_repository() -> None:
    me = Path(__file__).resolve()
    offenders = []
    for path in tracked_files():
        if path.resolve() == me or not path.is_file():
            continue
        data = path.read_bytes()
        offenders += [f"{path.relative_to(ROOT)}: {s.decode()}" for s in OUTSIDE if s in data]
    assert not offenders, offenders


def test_the_book_has_sections_1_to_13_in_order() -> None:
    headings = re.findall(r"^## (\d+)\. ", BOOK.read_text(encoding="utf-8"), flags=re.M)
    assert [int(h) for h in headings] == list(range(1, 14))
    subsections = re.findall(r"^### (8\.\d)\b", section(8), flags=re.M)
    assert subsections == ["8.1", "8.2", "8.3", "8.4", "8.5"]
    items = re.findall(r"^(\d)\. \*\*", section(8).split("### 8.2")[0], flags=re.M)
    assert items == ["1", "2", "3", "4", "5", "6"]  # the code cites §8.1 items by number


def test_the_book_has_worked_examples_a_to_i() -> None:
    letters = re.findall(r"^### ([A-Z])\. ", section(12), flags=re.M)
    assert letters == list("ABCDEFGHI")


def calculate(obj: Any) -> dict[str, Any]:
    out = io.StringIO()
    status = main([], stdin=io.StringIO(json.dumps(obj)), stdout=out)
    assert status == 0, out.getvalue()
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def example_cases() -> list[tuple[str, str, str]]:
    """(example letter, calculator input, stated result) for every input given in §12."""
    cases = []
    for block in re.split(r"^### ", section(12), flags=re.M)[1:]:
        letter = block[0]
        pairs = re.findall(r"^```json\n(.*?)^```\nResult: `(\{[^`\n]*\})`$", block, flags=re.M | re.S)
        assert pairs, f"example {letter} gives no calculator input"
        cases += [(letter, given, stated) for given, stated in pairs]
    return cases


@pytest.mark.parametrize(("letter", "given", "stated"), example_cases())
def test_each_worked_example_settles_as_the_book_says(letter: str, given: str, stated: str) -> None:
    result = calculate(json.loads(given))
    expected: dict[str, Any] = json.loads(stated)
    assert {key: result[key] for key in expected} == expected, f"example {letter}"


def test_the_calculator_sample_of_section_11_is_example_a() -> None:
    sample = re.search(r"^```json\n(.*?)^```", section(11), flags=re.M | re.S)
    assert sample
    assert calculate(json.loads(sample.group(1)))["payments"] == [-32, 56, -8, -16]
