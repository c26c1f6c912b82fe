"""Skill titles (RULES.md §10): the rank a player's skill (技能值) earns, in Chinese and English.

>>> title_for(2400).zh, title_for(2400).en
('本科生', 'Undergraduate')
>>> title_for(-1).zh
'幼儿园'
>>> title_named("教授").min_skill
34000
>>> START_SKILL, title_for(START_SKILL).en
(3200, 'Undergraduate')
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Title:
    zh: str
    en: str
    # The lowest skill that earns this title; None for 幼儿园, which is every skill below 0.
    min_skill: int | None


TITLES: Final[tuple[Title, ...]] = (
    Title("幼儿园", "Kindergartener", None),
    Title("小学生", "Primary Pupil", 0),
    Title("初中生", "Middle Schooler", 300),
    Title("高中生", "High Schooler", 760),
    Title("大专生", "College Student", 1440),
    Title("本科生", "Undergraduate", 2400),
    Title("研究生", "Graduate Student", 4000),
    Title("博士", "Doctor", 6200),
    Title("博士后", "Postdoc", 9600),
    Title("讲师", "Lecturer", 14800),
    Title("副教授", "Associate Professor", 22400),
    Title("教授", "Professor", 34000),
    Title("博士导师", "Doctoral Supervisor", 52000),
    Title("大师", "Master", 78000),
    Title("宗师", "Grandmaster", 150000),
)


def _band_middle(zh: str) -> int:
    """The middle of a title's band: a skill there keeps the title through a first hand's win or loss."""
    index = next(i for i, title in enumerate(TITLES) if title.zh == zh)
    low, high = TITLES[index].min_skill, TITLES[index + 1].min_skill
    assert low is not None and high is not None
    return (low + high) // 2


# Every player starts here (§10), a 本科生 well inside the band, and moves by their net points after each hand.
START_SKILL: Final = _band_middle("本科生")

# Thresholds of every title after 幼儿园, ascending, for the bisection below.
_THRESHOLDS: Final = tuple(t.min_skill for t in TITLES[1:] if t.min_skill is not None)
_BY_ZH: Final = {t.zh: t for t in TITLES}


def title_for(skill: int) -> Title:
    """The title a skill earns: the highest row of the §10 table whose threshold it reaches."""
    return TITLES[bisect_right(_THRESHOLDS, skill)]


def title_named(zh: str) -> Title:
    """The title with this Chinese name; KeyError names the unknown title."""
    try:
        return _BY_ZH[zh]
    except KeyError:
        raise KeyError(f"unknown title {zh!r}") from None
