"""Tile pictures drawn by code in the traditional Chinese style, cached per (tile, size, laizi, rotation).

``render_tile(tile, size)`` returns an RGBA image ``tile_dims(size)`` big: ``size`` is the width in pixels.
萬 tiles show a numeral over a red 萬, 条 tiles bamboo sticks (a bird on 一条), 筒 tiles circles; the honors
東 南 西 北, a red 中, a green 發 and a framed 白. ``HIDDEN`` gives the tile's back. ``laizi=True`` adds the gold
frame and 赖 badge that mark the 赖子 wherever it appears. Every face is drawn at 4× and scaled down once.

>>> render_tile(0, 40).size == tile_dims(40)
True
>>> render_tile(33, 40, rotated=True).size == tile_dims(40)[::-1]
True
"""

from __future__ import annotations

import math
from functools import cache
from typing import Final

from PIL import Image, ImageDraw

from game.tiles import HIDDEN, NUM_KINDS, NUMERALS_CN, Tile, is_honor, rank_of, suit_of
from rendering.fonts import font

SUPERSAMPLE: Final = 4
MIN_SIZE: Final = 8
MAX_SIZE: Final = 256

FACE: Final = (250, 246, 234)
FACE_EDGE: Final = (196, 188, 168)
BACK: Final = (32, 120, 92)
BACK_LIGHT: Final = (60, 160, 124)
RED: Final = (200, 28, 40)
GREEN: Final = (22, 122, 58)
BLUE: Final = (28, 58, 140)
INK: Final = (26, 32, 56)
GOLD: Final = (232, 168, 20)
GOLD_DARK: Final = (150, 90, 0)
WHITE: Final = (255, 255, 255)

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]


def tile_dims(size: int) -> tuple[int, int]:
    """(width, height) of an upright tile picture of width ``size``: a 3:4 face plus the tile's edge below."""
    return size, round(size * 4 / 3) + depth(size)


def depth(size: int) -> int:
    """Height of the green edge strip under the face, which gives tiles their thickness."""
    return max(2, round(size * 0.1))


def render_tile(tile: Tile, size: int, laizi: bool = False, rotated: bool = False) -> Image.Image:
    """The picture of ``tile`` (or its back for ``HIDDEN``), ``size`` pixels wide; ``rotated`` lays it on its
    side (turned left), as a claimed tile in a meld. Cached: do not draw on the returned image."""
    if not (tile == HIDDEN or 0 <= tile < NUM_KINDS):
        raise ValueError(f"no tile kind {tile}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"tile size {size} outside {MIN_SIZE}-{MAX_SIZE}")
    return _render(tile, size, laizi and tile != HIDDEN, rotated)


@cache
def _render(tile: Tile, size: int, laizi: bool, rotated: bool) -> Image.Image:
    if rotated:
        return _render(tile, size, laizi, False).transpose(Image.Transpose.ROTATE_90)
    w, h = tile_dims(size)
    s = SUPERSAMPLE
    big = Image.new("RGBA", (w * s, h * s), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    radius = max(2, w * s // 8)
    face_h = (h - depth(size)) * s
    d.rounded_rectangle((0, 0, w * s - 1, h * s - 1), radius, fill=BACK)
    if tile == HIDDEN:
        d.rounded_rectangle((0, 0, w * s - 1, face_h), radius, fill=BACK_LIGHT)
        inset = w * s * 0.14
        d.rounded_rectangle((inset, inset, w * s - inset, face_h - inset), radius // 2, outline=BACK, width=s * 2)
    else:
        d.rounded_rectangle((0, 0, w * s - 1, face_h), radius, fill=FACE, outline=FACE_EDGE, width=s)
        pad = w * s * 0.08
        _draw_face(d, tile, (pad, pad * 1.1, w * s - pad, face_h - pad * 1.1))
        if laizi:
            _draw_laizi_mark(d, w * s, face_h, radius)
    return big.resize((w, h), Image.Resampling.LANCZOS)


def _draw_face(d: ImageDraw.ImageDraw, tile: Tile, box: Box) -> None:
    if is_honor(tile):
        _draw_honor(d, tile, box)
    elif suit_of(tile) == "m":
        _draw_characters(d, rank_of(tile), box)
    elif suit_of(tile) == "p":
        _draw_dots(d, rank_of(tile), box)
    else:
        _draw_bamboo(d, rank_of(tile), box)


def _glyph(d: ImageDraw.ImageDraw, ch: str, center: tuple[float, float], px: float, fill: RGB) -> None:
    d.text(center, ch, font=font(max(1, round(px))), fill=fill, anchor="mm")


def _draw_characters(d: ImageDraw.ImageDraw, rank: int, box: Box) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2
    _glyph(d, NUMERALS_CN[rank - 1], (cx, y0 + h * 0.22), w * 0.66, INK)
    _glyph(d, "萬", (cx, y0 + h * 0.69), w * 0.8, RED)


# 東 南 西 北 白 發 中 (kinds 27–33); 白 is a frame, drawn below.
_HONOR_GLYPHS: Final = ("東", "南", "西", "北", "", "發", "中")
_HONOR_COLORS: Final = (INK, INK, INK, INK, BLUE, GREEN, RED)


def _draw_honor(d: ImageDraw.ImageDraw, tile: Tile, box: Box) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    i = tile - 27
    if _HONOR_GLYPHS[i]:
        _glyph(d, _HONOR_GLYPHS[i], ((x0 + x1) / 2, (y0 + y1) / 2), w * 0.98, _HONOR_COLORS[i])
        return
    lw = max(2.0, w * 0.07)
    d.rectangle((x0 + w * 0.06, y0 + h * 0.06, x1 - w * 0.06, y1 - h * 0.06), outline=BLUE, width=round(lw))
    d.rectangle((x0 + w * 0.2, y0 + h * 0.16, x1 - w * 0.2, y1 - h * 0.16), outline=BLUE, width=round(lw / 2))


# Dot positions (fractions of the face box), radius (fraction of its width) and colours per dot.
_DOTS: Final[dict[int, tuple[float, tuple[tuple[float, float, RGB], ...]]]] = {
    1: (0.46, ((0.5, 0.5, BLUE),)),
    2: (0.23, ((0.5, 0.26, GREEN), (0.5, 0.74, BLUE))),
    3: (0.18, ((0.24, 0.18, BLUE), (0.5, 0.5, RED), (0.76, 0.82, GREEN))),
    4: (0.2, ((0.28, 0.26, BLUE), (0.72, 0.26, GREEN), (0.28, 0.74, GREEN), (0.72, 0.74, BLUE))),
    5: (0.17, ((0.24, 0.2, BLUE), (0.76, 0.2, GREEN), (0.5, 0.5, RED), (0.24, 0.8, GREEN), (0.76, 0.8, BLUE))),
    6: (
        0.16,
        (
            (0.28, 0.15, GREEN),
            (0.72, 0.15, GREEN),
            (0.28, 0.55, RED),
            (0.72, 0.55, RED),
            (0.28, 0.85, RED),
            (0.72, 0.85, RED),
        ),
    ),
    7: (
        0.13,
        (
            (0.2, 0.1, GREEN),
            (0.5, 0.21, GREEN),
            (0.8, 0.32, GREEN),
            (0.3, 0.6, RED),
            (0.7, 0.6, RED),
            (0.3, 0.88, RED),
            (0.7, 0.88, RED),
        ),
    ),
    8: (0.14, tuple((x, y, BLUE) for y in (0.12, 0.37, 0.63, 0.88) for x in (0.3, 0.7))),
    9: (0.14, tuple((x, y, c) for y, c in ((0.14, BLUE), (0.5, RED), (0.86, GREEN)) for x in (0.2, 0.5, 0.8))),
}


def _draw_dots(d: ImageDraw.ImageDraw, rank: int, box: Box) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    r_frac, dots = _DOTS[rank]
    r = w * r_frac
    for fx, fy, color in dots:
        cx, cy = x0 + fx * w, y0 + fy * h
        _circle(d, cx, cy, r, color)
        _circle(d, cx, cy, r * 0.68, FACE)
        _circle(d, cx, cy, r * 0.5, color)
        _circle(d, cx, cy, r * 0.16, FACE)
        if rank == 1:
            # the big 一筒 gets an extra red ring and petals
            _circle(d, cx, cy, r * 0.42, RED)
            _circle(d, cx, cy, r * 0.28, GREEN)
            _circle(d, cx, cy, r * 0.1, FACE)
            for k in range(8):
                a = k * math.pi / 4
                _circle(d, cx + math.cos(a) * r * 0.84, cy + math.sin(a) * r * 0.84, r * 0.07, FACE)


def _circle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: RGB) -> None:
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)


# Bamboo sticks: (x, y, angle in degrees, colour) as fractions of the face box; stick length per rank.
_STICKS: Final[dict[int, tuple[float, tuple[tuple[float, float, float, RGB], ...]]]] = {
    2: (0.4, ((0.5, 0.26, 0, GREEN), (0.5, 0.74, 0, BLUE))),
    3: (0.4, ((0.5, 0.26, 0, BLUE), (0.28, 0.74, 0, GREEN), (0.72, 0.74, 0, GREEN))),
    4: (0.4, ((0.28, 0.26, 0, BLUE), (0.72, 0.26, 0, GREEN), (0.28, 0.74, 0, GREEN), (0.72, 0.74, 0, BLUE))),
    5: (
        0.4,
        ((0.2, 0.26, 0, GREEN), (0.8, 0.26, 0, BLUE), (0.5, 0.5, 0, RED), (0.2, 0.74, 0, BLUE), (0.8, 0.74, 0, GREEN)),
    ),
    6: (0.4, tuple((x, y, 0, GREEN if y < 0.5 else BLUE) for y in (0.26, 0.74) for x in (0.2, 0.5, 0.8))),
    7: (0.29, ((0.5, 0.16, 0, RED), *((x, y, 0, GREEN) for y in (0.5, 0.84) for x in (0.2, 0.5, 0.8)))),
    8: (
        0.4,
        (
            (0.14, 0.26, 0, GREEN),
            (0.37, 0.26, -22, GREEN),
            (0.63, 0.26, 22, GREEN),
            (0.86, 0.26, 0, GREEN),
            (0.14, 0.74, 0, BLUE),
            (0.37, 0.74, 22, BLUE),
            (0.63, 0.74, -22, BLUE),
            (0.86, 0.74, 0, BLUE),
        ),
    ),
    9: (
        0.29,
        tuple(
            (x, y, 0, RED if x == 0.5 else (GREEN if y != 0.5 else BLUE))
            for y in (0.16, 0.5, 0.84)
            for x in (0.2, 0.5, 0.8)
        ),
    ),
}


def _draw_bamboo(d: ImageDraw.ImageDraw, rank: int, box: Box) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if rank == 1:
        _draw_bird(d, box)
        return
    length, sticks = _STICKS[rank]
    for fx, fy, angle, color in sticks:
        _stick(d, x0 + fx * w, y0 + fy * h, w * 0.15, h * length, angle, color)


def _stick(d: ImageDraw.ImageDraw, cx: float, cy: float, sw: float, sl: float, angle: float, color: RGB) -> None:
    """One bamboo stick: a rounded bar with a light node in the middle and at both ends."""
    a = math.radians(angle)
    ux, uy = math.sin(a), -math.cos(a)  # along the stick
    vx, vy = math.cos(a), math.sin(a)  # across it

    def quad(t0: float, t1: float, half: float) -> list[tuple[float, float]]:
        return [
            (cx + ux * t * sl / 2 + vx * s * half, cy + uy * t * sl / 2 + vy * s * half)
            for t, s in ((t0, -1), (t0, 1), (t1, 1), (t1, -1))
        ]

    d.polygon(quad(-1, 1, sw / 2), fill=color)
    for end in (-1, 1):
        _circle(d, cx + ux * end * sl / 2, cy + uy * end * sl / 2, sw / 2, color)
    for node in (-0.72, 0.0, 0.72):
        d.polygon(quad(node - 0.05, node + 0.05, sw * 0.62), fill=color)
        d.line(
            [
                (cx + ux * node * sl / 2 - vx * sw * 0.2, cy + uy * node * sl / 2 - vy * sw * 0.2),
                (cx + ux * node * sl / 2 + vx * sw * 0.2, cy + uy * node * sl / 2 + vy * sw * 0.2),
            ],
            fill=FACE,
            width=max(1, round(sw * 0.12)),
        )
    d.line(
        [(cx - ux * sl * 0.3, cy - uy * sl * 0.3), (cx - ux * sl * 0.05, cy - uy * sl * 0.05)],
        fill=FACE,
        width=max(1, round(sw * 0.12)),
    )


def _draw_bird(d: ImageDraw.ImageDraw, box: Box) -> None:
    """一条: a little peacock standing on a stick, tail fanned."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0

    def p(fx: float, fy: float) -> tuple[float, float]:
        return x0 + fx * w, y0 + fy * h

    def ell(fx: float, fy: float, rx: float, ry: float, fill: RGB) -> None:
        cx, cy = p(fx, fy)
        d.ellipse((cx - rx * w, cy - ry * h, cx + rx * w, cy + ry * h), fill=fill)

    # tail feathers fanning out to the lower left, each with an eye
    for k, (fx, fy) in enumerate(((0.18, 0.5), (0.14, 0.66), (0.22, 0.8), (0.36, 0.86))):
        ell(fx, fy, 0.16, 0.09, GREEN if k % 2 == 0 else BLUE)
        ell(fx, fy, 0.05, 0.03, RED)
    d.line([p(0.3, 0.94), p(0.9, 0.94)], fill=GREEN, width=max(2, round(w * 0.07)))  # the perch
    d.line([p(0.56, 0.7), p(0.52, 0.94)], fill=RED, width=max(1, round(w * 0.04)))  # legs
    d.line([p(0.66, 0.7), p(0.68, 0.94)], fill=RED, width=max(1, round(w * 0.04)))
    ell(0.58, 0.58, 0.24, 0.16, GREEN)  # body
    ell(0.55, 0.56, 0.13, 0.08, BLUE)  # wing
    ell(0.74, 0.32, 0.12, 0.09, GREEN)  # head
    d.line([p(0.7, 0.42), p(0.66, 0.5)], fill=GREEN, width=max(2, round(w * 0.1)))  # neck
    d.polygon([p(0.84, 0.29), p(0.98, 0.34), p(0.84, 0.38)], fill=GOLD_DARK)  # beak
    ell(0.76, 0.3, 0.03, 0.022, FACE)  # eye
    for fx in (0.68, 0.74, 0.8):  # crest
        d.line([p(0.74, 0.24), p(fx, 0.1)], fill=RED, width=max(1, round(w * 0.035)))
        ell(fx, 0.1, 0.03, 0.022, RED)


def _draw_laizi_mark(d: ImageDraw.ImageDraw, w: int, face_h: int, radius: int) -> None:
    """The 赖子 mark: a gold frame round the face and a 赖 badge in its top-right corner."""
    frame = max(SUPERSAMPLE * 2, round(w * 0.075))
    d.rounded_rectangle((0, 0, w - 1, face_h), radius, outline=GOLD, width=frame)
    r = w * 0.2
    cx, cy = w - r - frame * 0.3, r + frame * 0.3
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=GOLD, outline=GOLD_DARK, width=max(1, frame // 3))
    d.text((cx, cy), "赖", font=font(max(1, round(r * 1.35))), fill=(120, 20, 10), anchor="mm")
