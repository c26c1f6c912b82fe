"""game.titles: the §10 table, read at and around every threshold."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest

from game.titles import START_SKILL, TITLES, title_for, title_named

RULES = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"  # the project's rule book


def thresholds_in_rules() -> dict[str, int | None]:
    """The §10 table as docs/RULES.md prints it: title -> lowest skill (None for 'below 0')."""
    section = RULES.read_text(encoding="utf-8").split("## 10.")[1].split("## 11.")[0]
    table: dict[str, int | None] = {}
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        for at, name in zip(cells[0::3], cells[1::3], strict=False):
            name = re.sub(r"\s*\(.*\)", "", name)
            if at == "(below 0)":
                table[name] = None
            elif at.isdigit():
                table[name] = int(at)
    return table


def test_the_table_is_the_rule_books() -> None:
    assert {t.zh: t.min_skill for t in TITLES} == thresholds_in_rules()


def test_every_threshold_and_the_skill_just_below() -> None:
    for lower, title in pairwise(TITLES):
        assert title.min_skill is not None
        assert title_for(title.min_skill) == title
        assert title_for(title.min_skill - 1) == lower
    assert title_for(-(10**9)) == TITLES[0] and title_for(10**9) == TITLES[-1]


def test_new_players_are_undergraduates_and_names_resolve() -> None:
    assert title_for(START_SKILL).zh == "本科生"
    assert all(title_named(t.zh) == t for t in TITLES)
    assert len({t.en for t in TITLES}) == len(TITLES)
    with pytest.raises(KeyError, match="unknown title"):
        title_named("皇帝")


def test_a_new_player_starts_in_the_middle_of_the_band_not_on_its_edge() -> None:
    # A first hand lost (or won) by anything up to the flee penalty keeps the title: not "本科生 → 大专生" at once.
    low, high = title_named("本科生").min_skill, title_named("研究生").min_skill
    assert low is not None and high is not None
    assert START_SKILL - low == high - START_SKILL
    assert title_for(START_SKILL - 400) == title_for(START_SKILL + 400) == title_for(START_SKILL)
