"""The table seen from one seat (the private picture) or by the group (the spectator picture).

    png_or_jpeg = render_table_view(hand.view(seat), names, scores, "zh")   # bytes for sendPhoto
    jpeg = render_spectator_view(hand.view(None), names, scores, "en")

The viewer sits at the bottom (seat 0 for a spectator), 上家 on the left, 对家 across, 下家 on the right.
``table_layout(view)`` is the geometry: where every tile of every seat is pasted (``TileSpot``s), which
tests use to crop the picture; ``table_image`` returns the unencoded picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from PIL import Image, ImageDraw

from game.melds import Meld
from game.tiles import HIDDEN, NUM_KINDS, Tile
from game.view import SeatView
from rendering.draw import (
    DARK,
    DEALER_RED,
    FELT,
    GOLD,
    HIGHLIGHT,
    MUTED,
    PANEL,
    PLATE,
    READY_BLUE,
    TEXT,
    WHITE,
    FeederMark,
    TileSpot,
    badge,
    draw_feeder,
    encode,
    feeder_mark,
    frame,
    meld_spots,
    meld_stack_rise,
    meld_width,
    palette_of,
    paste,
    signed,
    tile_row,
)
from rendering.fonts import draw_text, text_width
from rendering.labels import Lang, check_lang, seat_wind, text
from rendering.tiles import tile_dims

WIDTH: Final = 1280
HEIGHT: Final = 690
MARGIN: Final = 8
PANEL_W: Final = 416
PANEL_H: Final = 280
OWN_SIZE: Final = 64  # the viewer's hand and melds
OTHER_HAND_SIZE: Final = 22
OTHER_MELD_SIZE: Final = 26
RIVER_SIZE: Final = 28
RIVER_COLS: Final = 13
TABLE_COLORS: Final = 48  # the table's fixed palette: fewer colours, smaller and faster PNGs
RIVER_GAP: Final = 2  # room for the latest discard's frame between tiles
RIVER_ROWS: Final = 3  # rows that fit without squeezing; a longer river is squeezed, never cut
INFO_SIZE: Final = 40
CLAIM_SIZE: Final = 48
WAIT_SIZE: Final = 32
MELD_GAP: Final = 8
PLATE_H: Final = 38
COMPASS_R: Final = 50
DISCARD_LABEL_W: Final = 150  # room for "西 Bob 打出" beside the 听牌提示
MIDDLE_TOP: Final = MARGIN + PANEL_H + MARGIN
OWN_PLATE_TOP: Final = HEIGHT - 10 - tile_dims(OWN_SIZE)[1] - meld_stack_rise(OWN_SIZE) - 6 - PLATE_H
MIDDLE_H: Final = OWN_PLATE_TOP - MARGIN - MIDDLE_TOP
# Opponent panels by position relative to the bottom seat: 上家 left, 对家 middle, 下家 right.
PANEL_X: Final = {3: MARGIN, 2: MARGIN * 2 + PANEL_W, 1: MARGIN * 3 + PANEL_W * 2}
RELATIVE_KEYS: Final = ("you", "next", "across", "prev")

Box = tuple[int, int, int, int]


@dataclass
class TableLayout:
    """Where everything goes. Lists are indexed by seat (0–3), not by position on the picture."""

    bottom: int  # the seat drawn at the bottom
    plates: list[Box] = field(default_factory=lambda: [(0, 0, 0, 0)] * 4)
    hands: list[list[TileSpot]] = field(default_factory=lambda: [[] for _ in range(4)])
    melds: list[list[TileSpot]] = field(default_factory=lambda: [[] for _ in range(4)])
    rivers: list[list[TileSpot]] = field(default_factory=lambda: [[] for _ in range(4)])
    gang_counts_at: list[tuple[int, int]] = field(default_factory=lambda: [(0, 0)] * 4)
    drawn: TileSpot | None = None  # the viewer's freshly drawn tile (also the last spot of its hand)
    indicator: TileSpot | None = None
    laizi: TileSpot | None = None
    claimable: TileSpot | None = None  # the discard this viewer may claim, large
    discard_shown: TileSpot | None = None  # else the discard on the table now, large
    waits: list[TileSpot] = field(default_factory=list)
    latest_discard: TileSpot | None = None
    feeders: list[FeederMark] = field(default_factory=list)  # who fed each meld, where there is room

    def middle_spots(self) -> list[TileSpot]:
        """The tiles of the middle boxes: the 赖子 and 赖子皮, the claimable or latest discard, the waits."""
        extras = (self.indicator, self.laizi, self.claimable, self.discard_shown)
        return [s for s in extras if s is not None] + self.waits

    def all_spots(self) -> list[TileSpot]:
        spots = [s for seat in range(4) for s in (*self.hands[seat], *self.melds[seat], *self.rivers[seat])]
        return spots + self.middle_spots()


def position(seat: int, bottom: int) -> int:
    """0 = bottom, 1 = 下家 (right), 2 = 对家 (top), 3 = 上家 (left)."""
    return (seat - bottom) % 4


def concealed_tiles(view: SeatView, seat: int) -> tuple[Tile, ...]:
    """What the picture shows of a seat's concealed hand: faces for the viewer or once revealed, else backs."""
    if view.revealed is not None:
        return view.revealed[seat]
    if seat == view.seat:
        return view.hand + ((view.drawn,) if view.drawn is not None else ())
    return (HIDDEN,) * view.hand_sizes[seat]


def table_layout(view: SeatView, lang: Lang = "zh") -> TableLayout:
    bottom = view.seat if view.seat is not None else 0
    lay = TableLayout(bottom)
    for seat in range(4):
        pos = position(seat, bottom)
        tiles = concealed_tiles(view, seat)
        # a hand holding 3n+2 tiles has just drawn or claimed: set its last tile apart
        apart = len(tiles) % 3 == 2 and (seat != view.seat or view.drawn is not None)
        if pos == 0:
            _layout_bottom(lay, view, seat, tiles, apart)
        else:
            _layout_panel(lay, view, seat, PANEL_X[pos], tiles, apart)
    _layout_middle(lay, view, lang)
    return lay


def _layout_panel(lay: TableLayout, view: SeatView, seat: int, px: int, tiles: tuple[Tile, ...],
                  apart: bool) -> None:
    py = MARGIN
    lay.plates[seat] = (px + 6, py + 6, px + PANEL_W - 6, py + 6 + PLATE_H)
    hand_y = py + 50
    lay.hands[seat] = tile_row(tiles, px + 10, hand_y, OTHER_HAND_SIZE, view.laizi, apart_last=apart)
    lay.gang_counts_at[seat] = (px + PANEL_W - 10, hand_y)
    meld_bottom = hand_y + tile_dims(OTHER_HAND_SIZE)[1] + 6 + meld_stack_rise(OTHER_MELD_SIZE) + tile_dims(
        OTHER_MELD_SIZE)[1]
    x = px + 10
    for meld in view.melds[seat]:
        _add_meld(lay, seat, meld_spots(meld, seat, x, meld_bottom, OTHER_MELD_SIZE, view.laizi), meld)
        x += meld_width(OTHER_MELD_SIZE) + MELD_GAP
    river_top = meld_bottom + 6
    lay.rivers[seat] = _river(view, seat, px + (PANEL_W - RIVER_COLS * (RIVER_SIZE + RIVER_GAP)) // 2, river_top,
                              py + PANEL_H - river_top)


def _layout_bottom(lay: TableLayout, view: SeatView, seat: int, tiles: tuple[Tile, ...], apart: bool) -> None:
    h = tile_dims(OWN_SIZE)[1]
    lay.plates[seat] = (MARGIN + 6, OWN_PLATE_TOP, MARGIN + 620, OWN_PLATE_TOP + PLATE_H)
    lay.gang_counts_at[seat] = (WIDTH - MARGIN - 6, OWN_PLATE_TOP + 4)
    row_y = HEIGHT - 10 - h
    lay.hands[seat] = tile_row(tiles, MARGIN + 8, row_y, OWN_SIZE, view.laizi, apart_last=apart)
    if seat == view.seat and view.drawn is not None:
        lay.drawn = lay.hands[seat][-1]
    melds = view.melds[seat]
    x = WIDTH - MARGIN - 8 - len(melds) * (meld_width(OWN_SIZE) + MELD_GAP) + MELD_GAP
    for meld in melds:
        _add_meld(lay, seat, meld_spots(meld, seat, x, row_y + h, OWN_SIZE, view.laizi), meld)
        x += meld_width(OWN_SIZE) + MELD_GAP
    center_x = MARGIN * 2 + PANEL_W + (PANEL_W - RIVER_COLS * (RIVER_SIZE + RIVER_GAP)) // 2
    rows = max(1, min(RIVER_ROWS, -(-len(view.rivers[seat]) // RIVER_COLS)))
    top = MIDDLE_TOP + max(14, (MIDDLE_H - rows * tile_dims(RIVER_SIZE)[1]) // 2)
    lay.rivers[seat] = _river(view, seat, center_x, top, MIDDLE_TOP + MIDDLE_H - 14 - top)


def _add_meld(lay: TableLayout, seat: int, spots: list[TileSpot], meld: Meld) -> None:
    lay.melds[seat] += spots
    mark = feeder_mark(meld, spots)
    if mark is not None:
        lay.feeders.append(mark)


def _river(view: SeatView, seat: int, x: int, y: int, height: int) -> list[TileSpot]:
    """The seat's discards in rows of RIVER_COLS; rows squeeze together when more than fit in ``height``."""
    tiles = view.rivers[seat]
    w, h = tile_dims(RIVER_SIZE)
    w, h = w + RIVER_GAP, h + RIVER_GAP
    rows = max(1, -(-len(tiles) // RIVER_COLS))
    step = min(h, (height - h) // max(1, rows - 1)) if rows > 1 else h
    return [TileSpot(x + (i % RIVER_COLS) * w, y + (i // RIVER_COLS) * step, t, RIVER_SIZE, t == view.laizi)
            for i, t in enumerate(tiles)]


def _layout_middle(lay: TableLayout, view: SeatView, lang: Lang) -> None:
    x = MARGIN + 14 + text_width(text("laizi", lang), 20) + 10
    lay.laizi = TileSpot(x, MIDDLE_TOP + 14, view.laizi, INFO_SIZE, True)
    x += tile_dims(INFO_SIZE)[0] + 24 + text_width(text("indicator", lang), 20) + 10
    lay.indicator = TileSpot(x, MIDDLE_TOP + 14, view.indicator, INFO_SIZE, view.indicator == view.laizi)
    if view.last_discard is not None:
        seat, tile = view.last_discard
        river = lay.rivers[seat]
        if river and river[-1].tile == tile:
            lay.latest_discard = river[-1]
    right = MARGIN * 3 + PANEL_W * 2 + 16
    y = MIDDLE_TOP + 36
    if view.claimable is not None:
        lay.claimable = TileSpot(right, y, view.claimable, CLAIM_SIZE, view.claimable == view.laizi)
        right += max(tile_dims(CLAIM_SIZE)[0], text_width(text("claimable", lang), 18)) + 28
    elif view.last_discard is not None:
        tile = view.last_discard[1]
        lay.discard_shown = TileSpot(right, y, tile, CLAIM_SIZE, tile == view.laizi)
        right += (DISCARD_LABEL_W if view.waits else PANEL_W // 2) + 28
    if view.waits:
        per_row = max(1, (WIDTH - MARGIN - 16 - right) // (WAIT_SIZE + 4))
        w, h = tile_dims(WAIT_SIZE)
        lay.waits = [TileSpot(right + (i % per_row) * (w + 4), y + (i // per_row) * (h + 4), t, WAIT_SIZE,
                              t == view.laizi) for i, t in enumerate(view.waits)]


@cache
def _background() -> Image.Image:
    img = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    d = ImageDraw.Draw(img)
    for x in PANEL_X.values():
        d.rounded_rectangle((x, MARGIN, x + PANEL_W, MARGIN + PANEL_H), 14, fill=PANEL)
    for i in range(3):
        x = MARGIN + i * (PANEL_W + MARGIN)
        d.rounded_rectangle((x, MIDDLE_TOP, x + PANEL_W, MIDDLE_TOP + MIDDLE_H), 14, fill=PANEL if i != 1 else FELT)
    return img


@cache
def _palette() -> Image.Image:
    """The table's colours: the felt and panels, every tile face at every size used, plates and labels."""
    sizes = (OTHER_HAND_SIZE, RIVER_SIZE, WAIT_SIZE, CLAIM_SIZE, OWN_SIZE)
    swatch = _background().copy()
    d = ImageDraw.Draw(swatch)
    x = 0
    for size in sizes:
        w, h = tile_dims(size)
        for i, t in enumerate([*range(NUM_KINDS), HIDDEN]):
            for laizi in (False, True):
                paste(swatch, TileSpot((i * w) % (WIDTH - w), x + laizi * h, t, size, laizi))
        x += 2 * h
    d.rectangle((0, x, WIDTH // 2, x + 40), fill=GOLD)
    d.rectangle((WIDTH // 2, x, WIDTH, x + 40), fill=PLATE)
    for i, color in enumerate((TEXT, MUTED, DARK, HIGHLIGHT, DEALER_RED, READY_BLUE)):
        draw_text(d, (10 + i * 200, x + 20), "赖子皮 Wild 0123", 22, color, anchor="lm")
        draw_text(d, (WIDTH // 2 + 10 + i * 100, x + 20), "东南", 22, color, anchor="lm")
    return palette_of(swatch, TABLE_COLORS)


def _check_players(names: Sequence[str], scores: Sequence[int]) -> None:
    if len(names) != 4 or len(scores) != 4:
        raise ValueError("names and scores need one entry per seat (4 each)")


def table_image(view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang) -> Image.Image:
    """The table picture, unencoded; ``view.seat`` None draws the spectator picture."""
    _check_players(names, scores)
    check_lang(lang)
    lay = table_layout(view, lang)
    img = _background().copy()
    d = ImageDraw.Draw(img)
    for seat in range(4):
        _draw_plate(d, view, lay, seat, names, scores, lang)
    for seat in range(4):
        under = FELT if position(seat, lay.bottom) == 0 else PANEL  # the bottom seat's tiles lie on the felt
        for spot in (*lay.hands[seat], *lay.rivers[seat]):
            paste(img, spot, under)
        for spot in lay.melds[seat]:
            paste(img, spot)  # a gang's fourth tile lies on another tile: blend it in
    for spot in lay.middle_spots():
        paste(img, spot, PANEL)
    for mark in lay.feeders:
        draw_feeder(d, mark, lang)
    if lay.latest_discard is not None:
        frame(d, lay.latest_discard.box, HIGHLIGHT, width=RIVER_GAP, pad=0)
    _draw_middle(d, view, lay, names, lang)
    return img


def _draw_plate(d: ImageDraw.ImageDraw, view: SeatView, lay: TableLayout, seat: int, names: Sequence[str],
                scores: Sequence[int], lang: Lang) -> None:
    x0, y0, x1, y1 = lay.plates[seat]
    turn = view.turn == seat and view.phase != "over"
    fill, ink = (GOLD, DARK) if turn else (PLATE, TEXT)
    d.rounded_rectangle((x0, y0, x1, y1), 10, fill=fill)
    cy = (y0 + y1) // 2
    badge(d, (x0 + 20, cy), 14, seat_wind(seat, lang), ink, fill)
    x = x0 + 42
    score = signed(scores[seat])
    score_w = text_width(score, 22)
    draw_text(d, (x1 - 10, cy), score, 22, ink, anchor="rm")
    rel = text(RELATIVE_KEYS[position(seat, lay.bottom)], lang) if view.seat is not None else ""
    badges_w = (30 if seat == view.dealer else 0) + (30 if seat == view.seat and view.waits else 0)
    rel_w = text_width(rel, 15) + 10 if rel else 0
    x += draw_text(d, (x, cy), names[seat], 21, ink, anchor="lm",
                   max_width=x1 - x0 - 42 - score_w - 20 - badges_w - rel_w) + 8
    if seat == view.dealer:
        badge(d, (x + 12, cy), 12, text("dealer", lang), DEALER_RED, WHITE)
        x += 30
    if seat == view.seat and view.waits:
        badge(d, (x + 12, cy), 12, text("ready", lang), READY_BLUE, WHITE)
        x += 30
    if rel:
        draw_text(d, (x, cy), rel, 15, DARK if turn else MUTED, anchor="lm")
    gx, gy = lay.gang_counts_at[seat]
    lines = [text(key, lang).format(n=n) for key, n in (("hongzhong_gangs", view.hongzhong_gangs[seat]),
                                                        ("laizi_gangs", view.laizi_gangs[seat])) if n]
    for i, line in enumerate(lines):
        draw_text(d, (gx, gy + i * 17), line, 15, GOLD, anchor="ra")


def _draw_middle(d: ImageDraw.ImageDraw, view: SeatView, lay: TableLayout, names: Sequence[str],
                 lang: Lang) -> None:
    x0 = MARGIN + 14
    assert lay.laizi is not None and lay.indicator is not None
    label_y = lay.laizi.y + tile_dims(INFO_SIZE)[1] // 2
    draw_text(d, (x0, label_y), text("laizi", lang), 20, GOLD, anchor="lm")
    draw_text(d, (lay.indicator.x - 10, label_y), text("indicator", lang), 20, TEXT, anchor="rm")
    info_y = lay.laizi.y + tile_dims(INFO_SIZE)[1] + 26
    draw_text(d, (x0, info_y), text("wall_left", lang).format(n=view.wall_remaining), 24, TEXT, anchor="lm")
    phase = view.phase
    turn_name = f"{seat_wind(view.turn, lang)} {names[view.turn]}"
    status = text(f"phase_{phase}", lang).format(name=turn_name)
    draw_text(d, (x0, info_y + 40), status, 24, GOLD if phase != "over" else TEXT, anchor="lm",
              max_width=PANEL_W - 28 - COMPASS_R * 2 - 10)
    _draw_compass(d, view, lay.bottom, lang)
    if view.seat is None:
        draw_text(d, (WIDTH - MARGIN - PANEL_W // 2, MIDDLE_TOP + MIDDLE_H // 2), text("spectator", lang), 30, MUTED,
                  anchor="mm")
    head_y = MIDDLE_TOP + 20
    if lay.claimable is not None:
        draw_text(d, (lay.claimable.x - 6, head_y), text("claimable", lang), 18, HIGHLIGHT, anchor="lm")
        frame(d, lay.claimable.box, HIGHLIGHT, width=4, pad=3)
    if lay.discard_shown is not None and view.last_discard is not None:
        who = f"{seat_wind(view.last_discard[0], lang)} {names[view.last_discard[0]]}"
        draw_text(d, (lay.discard_shown.x - 6, head_y), text("discarded", lang).format(name=who), 18, TEXT,
                  anchor="lm", max_width=DISCARD_LABEL_W if view.waits else PANEL_W - 20)
        frame(d, lay.discard_shown.box, HIGHLIGHT, width=3, pad=2)
    if lay.waits:
        draw_text(d, (lay.waits[0].x, head_y), text("waits", lang), 18, GOLD, anchor="lm")


def _draw_compass(d: ImageDraw.ImageDraw, view: SeatView, bottom: int, lang: Lang) -> None:
    """The four winds where their seats sit, the seat to act in gold."""
    cx, cy, r = MARGIN + PANEL_W - COMPASS_R - 14, MIDDLE_TOP + MIDDLE_H - COMPASS_R - 14, COMPASS_R
    d.rounded_rectangle((cx - r, cy - r, cx + r, cy + r), 12, fill=PLATE)
    offsets = {0: (0, 1), 1: (1, 0), 2: (0, -1), 3: (-1, 0)}
    for seat in range(4):
        dx, dy = offsets[position(seat, bottom)]
        turn = seat == view.turn and view.phase != "over"
        badge(d, (cx + dx * (r - 18), cy + dy * (r - 18)), 15, seat_wind(seat, lang), GOLD if turn else PANEL,
              DARK if turn else TEXT)


def render_table_view(view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang = "zh") -> bytes:
    """The private picture of ``view`` (its seat at the bottom), encoded for sendPhoto."""
    if view.seat is None:
        raise ValueError("a spectator view has no seat: use render_spectator_view")
    return encode(table_image(view, names, scores, lang), _palette())


def render_spectator_view(view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang = "zh") -> bytes:
    """The group's picture: no concealed tile shown until the hand is over."""
    if view.seat is not None:
        raise ValueError("render_spectator_view needs a spectator view (seat None)")
    return encode(table_image(view, names, scores, lang), _palette())
