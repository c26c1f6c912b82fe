"""The bundled fonts and text drawing in any script, with a fallback font wherever the main one lacks a glyph.

Only rendering/fonts/ is read: no font lookup on the host, no network. ``FONT_FILES`` is the fallback order
(Noto Sans CJK SC Bold first); ``coverage.txt``, written with the fonts by scripts/make_font_subset.py, lists
the code points each font's cmap maps. ``draw_text`` splits a string into runs, each drawn with the first font
that has all of its characters; a right-to-left run (Arabic, Hebrew) is shaped and ordered by libraqm when
Pillow has it, else only reversed. A character no font has is drawn as '?'; invisible ones (joiners,
variation selectors) are dropped. Run splits and widths are cached per (text, size), and each run's
anti-aliased glyph mask per (run, size, sub-pixel position): a name or a label is rasterised once, not once a
picture (about a quarter of a table picture's time went to rasterising the same texts again).

>>> displayable("Ｌｉ 王😀\ufe0f𠮷")
'Ｌｉ 王😀?'
>>> [run.font for run in text_runs("谢霆锋 🔥")]
[0, 2]
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Final

from PIL import ImageDraw, ImageFont, features

FONTS_DIR: Final = Path(__file__).resolve().parent / "fonts"
FONT_FILES: Final = (
    "NotoSansCJKsc-Bold-subset.otf",
    "NotoSans-Bold-subset.ttf",
    "Symbola-subset.ttf",
    "NotoSansArabic-Bold-subset.ttf",
    "NotoSansHebrew-Bold-subset.ttf",
    "NotoSansThai-Bold-subset.ttf",
    "NotoSansDevanagari-Bold-subset.ttf",
)
# Scripts whose letters change shape with their neighbours: drawn through libraqm when Pillow has it.
SHAPED: Final = frozenset({3, 4, 5, 6})
COVERAGE_PATH: Final = FONTS_DIR / "coverage.txt"
FONT_PATH: Final = FONTS_DIR / FONT_FILES[0]
# Glyphs the tile faces draw: numerals over 萬, the winds and dragons in their traditional forms, the 赖 badge.
TILE_GLYPHS: Final = "一二三四五六七八九萬東南西北中發白赖"
MISSING: Final = "?"
ELLIPSIS: Final = "…"
RTL_CLASSES: Final = frozenset({"R", "AL"})
NEUTRAL_CLASSES: Final = frozenset({"WS", "ON", "CS", "ES", "ET", "BN"})
INVISIBLE: Final = frozenset({"Cf", "Mn", "Me", "Cc"})
HAS_RAQM: Final = features.check("raqm")

Color = tuple[int, int, int] | tuple[int, int, int, int]


def format_ranges(codepoints: list[int]) -> str:
    """Sorted code points as hex ranges: ``[32, 33, 34, 65] → "20-22 41"`` (the coverage file's format)."""
    parts: list[str] = []
    start = prev = -2
    for c in [*codepoints, -2]:
        if c == prev + 1:
            prev = c
            continue
        if start >= 0:
            parts.append(f"{start:x}" if start == prev else f"{start:x}-{prev:x}")
        start = prev = c
    return " ".join(parts)


def parse_ranges(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split():
        lo, _, hi = part.partition("-")
        out.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


@cache
def coverage() -> dict[str, set[int]]:
    """Font file → the code points its cmap maps, as committed in coverage.txt."""
    lines = COVERAGE_PATH.read_text(encoding="utf-8").splitlines()
    return {name: parse_ranges(ranges) for name, _, ranges in (line.partition(" ") for line in lines)}


@cache
def font_of() -> dict[str, int]:
    """Character → index in FONT_FILES of the first font that has it."""
    covered = coverage()
    picks: dict[str, int] = {}
    for index in reversed(range(len(FONT_FILES))):
        picks.update(dict.fromkeys(map(chr, covered[FONT_FILES[index]]), index))
    return picks


@cache
def face(index: int, size: int) -> ImageFont.FreeTypeFont:
    shaped = index in SHAPED and HAS_RAQM
    engine = ImageFont.Layout.RAQM if shaped else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(FONTS_DIR / FONT_FILES[index]), size, layout_engine=engine)


def font(size: int) -> ImageFont.FreeTypeFont:
    """The main font (Noto Sans CJK SC Bold), which the tile faces draw with."""
    return face(0, size)


@lru_cache(maxsize=4096)
def displayable(s: str) -> str:
    """``s`` composed (NFC), every character no font has folded (NFKC) to ones they have, else dropped when
    invisible or else replaced by '?'."""
    picks = font_of()
    out: list[str] = []
    for c in unicodedata.normalize("NFC", s):
        if c in picks:
            out.append(c)
            continue
        folded = unicodedata.normalize("NFKC", c)
        if folded != c and all(f in picks for f in folded):
            out.append(folded)
        elif unicodedata.category(c) not in INVISIBLE:
            out.append(MISSING)
    return "".join(out)


@dataclass(frozen=True)
class Run:
    """A stretch of text drawn with one font (an index in FONT_FILES); ``rtl`` for Arabic or Hebrew letters."""

    text: str
    font: int
    rtl: bool

    def shown(self) -> tuple[str, str | None]:
        """The text to draw and its direction for Pillow: without libraqm an RTL run is only reversed."""
        if not self.rtl:
            return self.text, None
        return (self.text, "rtl") if self.font in SHAPED and HAS_RAQM else (self.text[::-1], None)


def _whole_words(s: str, indices: list[int]) -> list[int]:
    """A word whose letters come from two fonts is drawn with one of them when it has them all (so "Łódź"
    does not switch fonts inside the word)."""
    covered = coverage()
    for word_start, word in _words(s):
        span = indices[word_start : word_start + len(word)]
        if len(set(span)) > 1:
            whole = next((i for i in sorted(set(span)) if all(ord(c) in covered[FONT_FILES[i]] for c in word)), None)
            if whole is not None:
                indices[word_start : word_start + len(word)] = [whole] * len(word)
    return indices


def _words(s: str) -> list[tuple[int, str]]:
    """(start, word) for each stretch of ``s`` between spaces."""
    out: list[tuple[int, str]] = []
    start = 0
    for part in s.split(" "):
        if part:
            out.append((start, part))
        start += len(part) + 1
    return out


@lru_cache(maxsize=4096)
def text_runs(s: str) -> tuple[Run, ...]:
    """``s`` (already displayable) split into runs by font. Spaces and punctuation between two characters of
    the same fallback font join their run when that font has them, so "محمد علي" is shaped as one."""
    picks = font_of()
    indices = _whole_words(s, [picks.get(c, 0) for c in s])
    i = 0
    while i < len(s):
        if unicodedata.bidirectional(s[i]) not in NEUTRAL_CLASSES:
            i += 1
            continue
        end = i
        while end < len(s) and unicodedata.bidirectional(s[end]) in NEUTRAL_CLASSES:
            end += 1
        left, right = (indices[i - 1] if i else -1), (indices[end] if end < len(s) else -2)
        if left == right and all(ord(c) in coverage()[FONT_FILES[left]] for c in s[i:end]):
            indices[i:end] = [left] * (end - i)
        i = end
    runs: list[Run] = []
    start = 0
    for k in range(1, len(s) + 1):
        if k == len(s) or indices[k] != indices[start]:
            part = s[start:k]
            runs.append(Run(part, indices[start], any(unicodedata.bidirectional(c) in RTL_CLASSES for c in part)))
            start = k
    return tuple(runs)


def _run_width(run: Run, size: int) -> float:
    text, direction = run.shown()
    f = face(run.font, size)
    return f.getlength(text, direction=direction) if direction else f.getlength(text)


@lru_cache(maxsize=8192)
def measured(s: str, size: int) -> tuple[tuple[Run, float], ...]:
    """The runs of ``s`` (already displayable) with their widths at ``size`` pixels."""
    return tuple((run, _run_width(run, size)) for run in text_runs(s))


def _width(s: str, size: int) -> float:
    return sum(w for _, w in measured(s, size))


def text_width(s: str, size: int) -> int:
    return round(_width(displayable(s), size))


def clusters(s: str) -> list[str]:
    """``s`` cut between user-visible characters: a combining mark or emoji modifier stays with its base."""
    out: list[str] = []
    for c in s:
        if out and (unicodedata.category(c).startswith("M") or 0x1F3FB <= ord(c) <= 0x1F3FF):
            out[-1] += c
        else:
            out.append(c)
    return out


def fit(s: str, size: int, max_width: int) -> str:
    """``s`` made displayable and, when wider than ``max_width`` pixels, cut between characters and ended
    with '…' (the longest such prefix that fits, measured with the fonts that draw it)."""
    s = displayable(s)
    if _width(s, size) <= max_width:
        return s
    parts = clusters(s)
    lo, hi = 0, len(parts)  # the longest prefix that fits has lo ≤ length < hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _width("".join(parts[:mid]).rstrip() + ELLIPSIS, size) <= max_width:
            lo = mid
        else:
            hi = mid
    return "".join(parts[:lo]).rstrip() + ELLIPSIS


def wrap(s: str, size: int, max_width: int, sep: str = " ") -> list[str]:
    """``s`` made displayable and broken at ``sep`` into lines of at most ``max_width`` pixels (``sep`` kept
    between the pieces of a line); a piece wider than a line is shortened with '…'."""
    lines: list[str] = []
    for piece in displayable(s).split(sep):
        joined = f"{lines[-1]}{sep}{piece}" if lines else piece
        if lines and _width(joined, size) <= max_width:
            lines[-1] = joined
        else:
            lines.append(fit(piece, size, max_width))
    return lines


def _baseline(y: float, vertical: str, size: int) -> float:
    """The baseline for Pillow's vertical anchor letter, from the main font's ascender and descender, so
    runs in different fonts share one baseline."""
    ascent, descent = face(0, size).getmetrics()
    return {"a": y + ascent, "t": y + ascent, "m": y + (ascent - descent) / 2, "s": y}.get(vertical, y - descent)


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    s: str,
    size: int,
    fill: Color,
    anchor: str = "la",
    max_width: int | None = None,
) -> int:
    """Draw ``s`` (made displayable, shortened to ``max_width``) anchored like Pillow's ``anchor`` (two letters:
    l/m/r, then a/t/m/s/b/d); returns the drawn width in pixels."""
    shown = fit(s, size, max_width) if max_width is not None else displayable(s)
    parts = measured(shown, size)
    total = sum(w for _, w in parts)
    x = xy[0] - {"l": 0.0, "m": total / 2, "r": total}[anchor[0]]
    baseline = _baseline(xy[1], anchor[1], size)
    for run, w in parts:
        text, direction = run.shown()
        draw_run(draw, (x, baseline), text, face(run.font, size), fill, direction)
        x += w
    return round(total)


def draw_run(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    font: ImageFont.FreeTypeFont,
    fill: Color,
    direction: str | None,
) -> None:
    """One run of one font with its baseline's left end at ``xy`` on an RGB or RGBA picture: what Pillow's
    ImageDraw.text draws for one line, with the glyph mask kept (tests/rendering: byte for byte the same)."""
    if draw.mode not in ("RGB", "RGBA"):  # other modes draw text aliased or through a palette
        raise ValueError(f"text is drawn on RGB or RGBA pictures, not {draw.mode}")
    (fx, ix), (fy, iy) = math.modf(xy[0]), math.modf(xy[1])
    mask, (dx, dy) = _mask(font, text, direction, (fx, fy))
    draw.draw.draw_bitmap((int(ix) + dx, int(iy) + dy), mask, draw.draw.draw_ink(fill))


@lru_cache(maxsize=1024)  # a few MB at most: most texts are a name or a label, a few hundred pixels wide
def _mask(
    font: ImageFont.FreeTypeFont, text: str, direction: str | None, start: tuple[float, float]
) -> tuple[Any, Any]:
    """A run's glyph mask and its offset from the baseline point, for a baseline at fractional ``start``."""
    return font.getmask2(text, "L", direction, anchor="ls", start=start)
