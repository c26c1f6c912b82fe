"""Tiles: the 34 kinds as small ints, the ``1m…7z`` notation both ways, and the 赖子 successor (RULES.md §1, §3).

A tile kind is an ``int`` 0–33: 0–8 are 1m–9m (万), 9–17 are 1p–9p (筒), 18–26 are 1s–9s (条),
27–33 are 1z–7z (东 南 西 北 白 发 中). A hand is usually held as a list of kinds or a 34-long count vector.

>>> [tile_name(t) for t in parse_tiles("234p5m")]
['2p', '3p', '4p', '5m']
>>> format_tiles(parse_tiles("5m345s234678p"))
'5m234678p345s'
>>> tile_name(laizi_of(parse_tile("4z")))
'6z'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

Tile = int

SUITS: Final = "mpsz"
NUM_KINDS: Final = 34
COPIES: Final = 4
TOTAL_TILES: Final = NUM_KINDS * COPIES  # 136

EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
HONGZHONG: Final = RED  # 红中, 7z
HIDDEN: Final = -1  # a face-down tile in a view

SUIT_CN: Final = {"m": "万", "p": "筒", "s": "条"}
NUMERALS_CN: Final = "一二三四五六七八九"
HONOR_CN: Final = ("东", "南", "西", "北", "白", "发", "中")
HONOR_EN: Final = ("East", "South", "West", "North", "White", "Green", "Red")
SUIT_EN: Final = {"m": "Character", "p": "Dot", "s": "Bamboo"}  # one tile: "5 Character"
SUIT_EN_PLURAL: Final = {"m": "Characters", "p": "Dots", "s": "Bamboo"}  # several: "2 4 4 Characters"
# On a button, where a phone's row must hold several: "5 Crak", "3-4-5 Bam" (the English sets' own short names).
SUIT_EN_SHORT: Final = {"m": "Crak", "p": "Dot", "s": "Bam"}

# 赖子 order for honors (§3): 东→南→西→北→发→白→东, and 中→发.
_HONOR_NEXT: Final = {EAST: SOUTH, SOUTH: WEST, WEST: NORTH, NORTH: GREEN, GREEN: WHITE, WHITE: EAST, RED: GREEN}


class TileError(ValueError):
    """A tile or tile string that cannot be read."""


def suit_of(t: Tile) -> str:
    return SUITS[t // 9]


def rank_of(t: Tile) -> int:
    """1–9 for suit tiles, 1–7 for honors."""
    return t % 9 + 1


def is_honor(t: Tile) -> bool:
    return t >= 27


def is_jiang(t: Tile) -> bool:
    """将 tiles: 2, 5 and 8 of the three suits; honors never."""
    return t < 27 and t % 9 in (1, 4, 7)


def is_feng(t: Tile) -> bool:
    """风 tiles for 风一色: 1z–6z (红中 is not one)."""
    return 27 <= t <= 32


_NAMES: Final = tuple(f"{rank_of(t)}{suit_of(t)}" for t in range(NUM_KINDS))  # "1m" … "7z", read often


def tile_name(t: Tile) -> str:
    if not 0 <= t < NUM_KINDS:
        raise TileError(f"no tile kind {t}")
    return _NAMES[t]


def tile_cn(t: Tile) -> str:
    """Chinese name: 五万, 一条, 东, 中 ..."""
    if is_honor(t):
        return HONOR_CN[t - 27]
    return NUMERALS_CN[t % 9] + SUIT_CN[suit_of(t)]


def tile_en(t: Tile) -> str:
    if is_honor(t):
        return HONOR_EN[t - 27]
    return f"{rank_of(t)} {SUIT_EN[suit_of(t)]}"


def tile_label(t: Tile, lang: str) -> str:
    """A tile in words for people (never the ``1m…7z`` code): 五万 · 东 · 中, or 5 Character · East · Red.

    >>> tile_label(parse_tile("7z"), "en"), tile_label(parse_tile("9s"), "zh")
    ('Red', '九条')
    """
    return tile_cn(t) if lang == "zh" else tile_en(t)


def tile_short(t: Tile, lang: str) -> str:
    """A tile on a button: as ``tile_label`` says it, the English suit shorter (5 Crak · 6 Dot · 7 Bam).

    >>> tile_short(parse_tile("5m"), "en"), tile_short(parse_tile("1z"), "en"), tile_short(parse_tile("5m"), "zh")
    ('5 Crak', 'East', '五万')
    """
    if lang == "zh" or is_honor(t):
        return tile_label(t, lang)
    return f"{rank_of(t)} {SUIT_EN_SHORT[suit_of(t)]}"


def tiles_label(tiles: Iterable[Tile], lang: str) -> str:
    """Several tiles in words, sorted, a suit's ranks together: 二四四万 东 中, or 2 4 4 Characters · East · Red.

    >>> tiles_label(parse_tiles("244m6p77z"), "zh"), tiles_label(parse_tiles("244m6p77z"), "en")
    ('二四四万 六筒 中 中', '2 4 4 Characters · 6 Dot · Red · Red')
    """
    groups: list[str] = []
    by_suit: dict[str, list[Tile]] = {}
    for t in sorted(tiles):
        by_suit.setdefault(suit_of(t), []).append(t)
    for suit, kinds in by_suit.items():
        if suit == "z":
            groups += [tile_label(t, lang) for t in kinds]
        elif lang == "zh":
            groups.append("".join(NUMERALS_CN[t % 9] for t in kinds) + SUIT_CN[suit])
        else:
            names = SUIT_EN_PLURAL if len(kinds) > 1 else SUIT_EN
            groups.append(" ".join(str(rank_of(t)) for t in kinds) + f" {names[suit]}")
    return (" " if lang == "zh" else " · ").join(groups)


def parse_tile(s: str) -> Tile:
    s = s.strip()
    if len(s) != 2 or not s[0].isdigit() or s[1] not in SUITS:
        raise TileError(f"not a tile: {s!r}")
    rank, suit = int(s[0]), SUITS.index(s[1])
    if not (1 <= rank <= (7 if suit == 3 else 9)):
        raise TileError(f"not a tile: {s!r}")
    return suit * 9 + rank - 1


def parse_tiles(s: str) -> list[Tile]:
    """Read the compact notation (``234678p345s5m``); spaces are ignored. Order is kept."""
    out: list[Tile] = []
    digits: list[str] = []
    for ch in s.replace(" ", ""):
        if ch.isdigit():
            digits.append(ch)
        elif ch in SUITS:
            if not digits:
                raise TileError(f"suit letter {ch!r} without digits in {s!r}")
            out.extend(parse_tile(d + ch) for d in digits)
            digits.clear()
        else:
            raise TileError(f"unexpected {ch!r} in {s!r}")
    if digits:
        raise TileError(f"digits without a suit letter in {s!r}")
    return out


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Compact notation, sorted, suits in m p s z order: ``[5m, 3s, 4s]`` → ``5m34s``."""
    out: list[str] = []
    suit = ""
    for t in sorted(tiles):
        if out and _NAMES[t][1] != suit:
            out.append(suit)
        out.append(_NAMES[t][0])
        suit = _NAMES[t][1]
    if out:
        out.append(suit)
    return "".join(out)


def to_counts(tiles: Iterable[Tile]) -> list[int]:
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Tile]:
    # Skipping empty kinds first is ~4x faster: most of the 34 counts are zero in a hand.
    return [t for t, c in enumerate(counts) if c for _ in range(c)]


def laizi_of(indicator: Tile) -> Tile:
    """The 赖子 shown by the 赖子皮 ``indicator`` (§3): n→n+1 in a suit (9→1); honors by their own cycle."""
    if is_honor(indicator):
        return _HONOR_NEXT[indicator]
    return indicator - 8 if indicator % 9 == 8 else indicator + 1


def all_tiles() -> list[Tile]:
    """The 136 tiles of a full set, in kind order."""
    return [t for t in range(NUM_KINDS) for _ in range(COPIES)]
