"""Drawing pieces every picture shares: colours, tile spots and meld shapes, badges, and encoding for Telegram.

A ``TileSpot`` says where one tile picture is pasted; the layouts of rendering.table_picture and rendering.result are
lists of them, so tests can crop a picture at a spot and compare it with ``render_tile``'s own output.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw

from game.melds import Meld
from game.tiles import HIDDEN, NUM_KINDS, Tile
from rendering.fonts import Color, draw_text, text_width
from rendering.labels import Lang, seat_wind
from rendering.tile_faces import render_tile, tile_dims

RGB = tuple[int, int, int]

FELT: Final = (24, 84, 62)
PANEL: Final = (18, 66, 48)
PLATE: Final = (11, 44, 32)
TEXT: Final = (240, 240, 232)
MUTED: Final = (170, 196, 184)
GOLD: Final = (242, 193, 78)
DARK: Final = (30, 30, 30)
HIGHLIGHT: Final = (255, 72, 56)
WIN_GREEN: Final = (120, 220, 140)
LOSS_RED: Final = (255, 130, 120)
DEALER_RED: Final = (200, 30, 40)
THROWN_BAR: Final = 4  # pixels: the bar that marks a thrown 红中 or 赖子
READY_BLUE: Final = (30, 110, 200)
WHITE: Final = (255, 255, 255)
PAPER: Final = (250, 247, 240)
INK: Final = (40, 40, 48)

# Telegram sendPhoto: at most 10 MB, width + height ≤ 10000, aspect ratio ≤ 20.
TELEGRAM_MAX_BYTES: Final = 10 * 1024 * 1024
PALETTE_COLORS: Final = 128
MIN_FEEDER_FONT: Final = 11


@dataclass(frozen=True)
class TileSpot:
    """One tile pasted at (x, y), its top-left corner; ``rotated`` lies on its side (a claimed tile)."""

    x: int
    y: int
    tile: Tile
    size: int
    laizi: bool = False
    rotated: bool = False
    thrown: bool = False  # a 红中 or 赖子 thrown into a river (RULES.md §4, ×2): a red bar along its foot

    @property
    def box(self) -> tuple[int, int, int, int]:
        w, h = tile_dims(self.size)
        if self.rotated:
            w, h = h, w
        return self.x, self.y, self.x + w, self.y + h

    def image(self) -> Image.Image:
        if self.thrown:
            return _thrown(self.tile, self.size, self.laizi)
        return render_tile(self.tile, self.size, self.laizi, self.rotated)


@cache
def _thrown(tile: Tile, size: int, laizi: bool) -> Image.Image:
    img = render_tile(tile, size, laizi).copy()
    w, h = img.size
    ImageDraw.Draw(img).rectangle((1, h - THROWN_BAR, w - 2, h - 1), fill=(*DEALER_RED, 255))
    return img


def paste(canvas: Image.Image, spot: TileSpot, background: RGB | None = None) -> None:
    """Paste the spot's tile. With ``background`` (the flat colour under the spot) a copy already laid on that
    colour is pasted without a mask, which is several times faster; without it the tile is blended in."""
    if background is None or spot.thrown:
        tile = spot.image()
        canvas.paste(tile, (spot.x, spot.y), tile)
    else:
        canvas.paste(_tile_on(spot.tile, spot.size, spot.laizi, spot.rotated, background), (spot.x, spot.y))


@cache
def _tile_on(tile: Tile, size: int, laizi: bool, rotated: bool, background: RGB) -> Image.Image:
    image = render_tile(tile, size, laizi, rotated)
    flat = Image.new("RGB", image.size, background)
    flat.paste(image, (0, 0), image)
    return flat


def tile_row(
    tiles: tuple[Tile, ...] | list[Tile], x: int, y: int, size: int, laizi: Tile, gap: int = 0, apart_last: bool = False
) -> list[TileSpot]:
    """Spots for tiles side by side from (x, y); ``apart_last`` sets the last one apart (a drawn tile)."""
    w = tile_dims(size)[0]
    spots: list[TileSpot] = []
    for i, t in enumerate(tiles):
        extra = w // 3 if apart_last and i == len(tiles) - 1 and i > 0 else 0
        spots.append(TileSpot(x + i * (w + gap) + extra, y, t, size, t == laizi))
    return spots


def meld_width(size: int) -> int:
    """Every meld is two upright tiles and one on its side; a gang's fourth tile lies on top of the middle one."""
    w, h = tile_dims(size)
    return 2 * w + h


def meld_stack_rise(size: int) -> int:
    """How far above the row's upright tiles a gang's fourth tile may reach."""
    w, h = tile_dims(size)
    return max(h * 2 // 5, 2 * w - h)


def meld_spots(meld: Meld, owner: int, x: int, bottom: int, size: int, laizi: Tile) -> list[TileSpot]:
    """The tiles of ``meld`` with their bottoms on ``bottom``, from ``x``.

    The claimed tile lies on its side where its giver sits: left for 上家, middle for 对家, right for 下家
    (a chi's claimed tile always comes from 上家). An 暗杠 shows backs outside and the face in the middle
    (all backs when its tile is HIDDEN).
    """
    w, h = tile_dims(size)
    if meld.kind == "chi":
        claimed = meld.claimed if meld.claimed is not None else meld.tiles[0]
        rest = [t for t in meld.tiles if t != claimed]
        tiles, turned = [claimed, *rest], 0
    elif meld.kind == "an_gang":
        face = meld.tiles[0]
        tiles, turned = [HIDDEN, face, HIDDEN], -1
    else:
        relative = ((meld.from_seat if meld.from_seat is not None else owner) - owner) % 4
        tiles, turned = [meld.tiles[0]] * 3, {3: 0, 2: 1, 1: 2}.get(relative, 0)
    spots: list[TileSpot] = []
    cx = x
    for i, t in enumerate(tiles):
        rotated = i == turned
        tw, th = (h, w) if rotated else (w, h)
        spots.append(TileSpot(cx, bottom - th, t, size, t == laizi, rotated))
        cx += tw
    if turned == -1:
        # an 暗杠 of width 3 tiles; centre it in the meld's slot
        spots = [TileSpot(s.x + (h - w) // 2, s.y, s.tile, s.size, s.laizi) for s in spots]
    if meld.is_gang:
        middle = spots[1]
        stacked_tile = meld.tiles[0]
        # upright: the fourth tile half covers the middle one; on its side it lies just above it
        rise = w if middle.rotated else meld_stack_rise(size)
        spots.append(TileSpot(middle.x, middle.y - rise, stacked_tile, size, stacked_tile == laizi, middle.rotated))
    return spots


@dataclass(frozen=True)
class FeederMark:
    """The wind of the seat whose discard made a meld, written just above the meld's claimed tile."""

    x: int  # centre of the label
    y: int  # bottom of the label
    size: int  # font size in pixels
    seat: int


def feeder_mark(meld: Meld, spots: list[TileSpot]) -> FeederMark | None:
    """Where to name a meld's giver: above its tile on its side, in the room a standing tile would take.
    None for an 暗杠, or when a 杠's fourth tile lies there."""
    turned = [s for s in spots if s.rotated]
    if meld.from_seat is None or len(turned) != 1:
        return None
    x0, y0, x1, _ = turned[0].box
    w, h = tile_dims(turned[0].size)
    room = h - w
    if room < MIN_FEEDER_FONT + 1:
        return None
    return FeederMark((x0 + x1) // 2, y0 - 1, min(room - 1, 22), meld.from_seat)


def draw_feeder(draw: ImageDraw.ImageDraw, mark: FeederMark, lang: Lang) -> None:
    draw_text(draw, (mark.x, mark.y), seat_wind(mark.seat, lang), mark.size, GOLD, anchor="mb")


def frame(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], color: Color, width: int = 3, pad: int = 2
) -> None:
    """An emphasis frame drawn just outside ``box``, so the tile inside stays untouched."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(
        (x0 - pad - width, y0 - pad - width, x1 + pad + width - 1, y1 + pad + width - 1),
        radius=width * 2,
        outline=color,
        width=width,
    )


def badge_width(label: str, radius: int) -> int:
    """A one-character badge is a disc; a word ("Dealer", "Ready") a pill around it, so none is a cryptic letter."""
    return max(2 * radius, text_width(label, round(radius * 1.2)) + radius)


def badge(draw: ImageDraw.ImageDraw, left: tuple[int, int], radius: int, label: str, fill: Color, ink: Color) -> int:
    """The badge with its left end at ``left`` (x, centre y); returns its width."""
    x, cy = left
    w = badge_width(label, radius)
    draw.rounded_rectangle((x, cy - radius, x + w, cy + radius), radius, fill=fill)
    draw_text(draw, (x + w // 2, cy), label, round(radius * 1.2), ink, anchor="mm")
    return w


def signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def encode(img: Image.Image, palette: Image.Image | None = None) -> bytes:
    """The picture as PNG bytes ready for sendPhoto, in at most 256 colours: mapped onto ``palette`` (a "P"
    image; fast, for the table pictures) or onto an adaptive palette of its own (slower, for cards)."""
    w, h = img.size
    if w + h > 10000 or max(w, h) > 20 * min(w, h):
        raise ValueError(f"a {w}×{h} picture breaks Telegram's photo limits")
    rgb = img if img.mode == "RGB" else img.convert("RGB")
    if palette is not None:
        small = rgb.quantize(palette=palette, dither=Image.Dither.NONE)
    else:
        small = rgb.quantize(PALETTE_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    # zlib level 1: a table picture 8% larger than at level 3 (39 KB against 36, under the 60 KB budget) in three
    # quarters of its time; the encode is half of what a picture costs the bot (bench/render.py, py-spy at 100 tables)
    small.save(out, "PNG", compress_level=1)
    data = out.getvalue()
    if len(data) > TELEGRAM_MAX_BYTES:
        raise ValueError(f"picture of {len(data)} bytes is over Telegram's 10 MB")
    return data


def faces_swatch(sizes: tuple[int, ...], width: int, ground: RGB) -> Image.Image:
    """Every tile face and the back, plain and as 赖子, at each of ``sizes``, none covering another, in rows
    ``width`` pixels wide on ``ground``: the tiles' part of a fixed palette's swatch (``palette_of``)."""
    faces = [(t, laizi) for laizi in (False, True) for t in [*range(NUM_KINDS), HIDDEN]]
    spots, y = [], 0
    for size in sizes:
        w, h = tile_dims(size)
        per_row = max(1, width // w)
        spots += [TileSpot(i % per_row * w, y + i // per_row * h, t, size, laizi) for i, (t, laizi) in enumerate(faces)]
        y += -(-len(faces) // per_row) * h
    swatch = Image.new("RGB", (width, y), ground)
    for spot in spots:
        paste(swatch, spot)
    return swatch


def palette_of(swatch: Image.Image, colors: int = PALETTE_COLORS) -> Image.Image:
    """A fixed palette for pictures made of the colours in ``swatch`` (rendering.palettes computes and stores it)."""
    return swatch.convert("RGB").quantize(colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


PALETTES_FILE: Final = Path(__file__).with_name("palettes.json")


@cache
def stored_palette(name: str) -> Image.Image:
    """The fixed palette ``name`` (``table``, ``result``, ``stats_card``) as rendering.palettes stored it, a "P"
    image for ``encode``: computing it from its swatch took every bot process about half a second at start."""
    palette = Image.new("P", (1, 1))
    palette.putpalette(_stored_palettes()[name])
    # Realized here, before it is shared: left to the first quantize, two threads' pictures at once (a bot's
    # warm-up and its first picture) could each put the palette into the image while the other converted with it
    # outside the GIL, and the process crashed (a segmentation fault, seen in the suite).
    palette.load()
    return palette


@cache
def _stored_palettes() -> dict[str, list[int]]:
    """The palettes file, read once for all three."""
    palettes: dict[str, list[int]] = json.loads(PALETTES_FILE.read_text(encoding="utf-8"))
    return palettes
