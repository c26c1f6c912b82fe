"""The bundled font (a Noto Sans CJK SC Bold subset, OFL) and text drawing that never shows a missing glyph.

Only rendering/fonts/ is read: no font lookup on the host, no network. Characters outside the subset
(a rare character in a player's name, an emoji) are drawn as '?'.

>>> displayable("Ｌｉ 王😀")
'Li 王?'
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path
from typing import Final

from PIL import ImageDraw, ImageFont

FONTS_DIR: Final = Path(__file__).resolve().parent / "fonts"
FONT_PATH: Final = FONTS_DIR / "NotoSansCJKsc-Bold-subset.otf"
CHARSET_PATH: Final = FONTS_DIR / "charset.txt"
# Glyphs the tile faces draw: numerals over 萬, the winds and dragons in their traditional forms, the 赖 badge.
TILE_GLYPHS: Final = "一二三四五六七八九萬東南西北中發白赖"
MISSING: Final = "?"

Color = tuple[int, int, int] | tuple[int, int, int, int]


@cache
def charset() -> frozenset[str]:
    return frozenset(CHARSET_PATH.read_text(encoding="utf-8"))


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_PATH), size)


def displayable(s: str) -> str:
    """``s`` with every character the font lacks folded to one it has (NFKC: full-width Ｌ → L) or else '?'."""
    covered = charset()
    out: list[str] = []
    for c in s:
        if c not in covered:
            folded = unicodedata.normalize("NFKC", c)
            c = folded if all(f in covered for f in folded) else MISSING
        out.append(c)
    return "".join(out)


def text_width(s: str, size: int) -> int:
    return round(font(size).getlength(displayable(s)))


def fit(s: str, size: int, max_width: int) -> str:
    """``s`` made displayable and shortened with '…' until it fits ``max_width`` pixels."""
    s = displayable(s)
    f = font(size)
    if f.getlength(s) <= max_width:
        return s
    while s and f.getlength(s + "…") > max_width:
        s = s[:-1]
    return s + "…"


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    s: str,
    size: int,
    fill: Color,
    anchor: str = "la",
    max_width: int | None = None,
) -> int:
    """Draw ``s`` (made displayable, shortened to ``max_width``); returns the drawn width in pixels."""
    shown = fit(s, size, max_width) if max_width is not None else displayable(s)
    draw.text(xy, shown, font=font(size), fill=fill, anchor=anchor)
    return round(font(size).getlength(shown))
