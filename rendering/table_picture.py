"""The table seen from one seat (the private picture) or by the group (the spectator picture).

    png = render_table_view(hand.view(seat), names, scores, "zh")   # bytes for sendPhoto
    png = render_spectator_view(hand.view(None), names, scores, "en")

A portrait picture 720 px wide, made to be read on a phone. From the top: the 赖子 and 赖子皮 with the wall
count; 对家 across the full width; 上家 (left) and 下家 (right) side by side; for a spectator, seat 0 like 对家;
the action band (the tile the viewer may claim or the latest discard, large and named in words, whose turn
it is, the viewer's waits); then the viewer's river, plate, melds and hand, large. The seat to act has a gold
plate and a gold outline. A 红中 or 赖子 in a river was thrown (×2): a red bar runs along its foot.
``table_layout(view)`` is the geometry: where every tile is pasted (``TileSpot``s)
and how wide it shows at a display width (``shown_width``), which tests use to crop and measure the picture;
``table_image`` returns the unencoded picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from PIL import Image, ImageDraw

from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, Tile, tile_label
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
    badge_width,
    draw_feeder,
    encode,
    feeder_mark,
    frame,
    meld_spots,
    meld_stack_rise,
    meld_width,
    paste,
    signed,
    stored_palette,
    tile_row,
)
from rendering.fonts import draw_text, text_width
from rendering.labels import Lang, check_lang, seat_wind, text
from rendering.tile_faces import tile_dims

# Phone first: a portrait picture 720 px wide, the width Telegram shows a photo on a phone, so every size
# below is what a player sees there. River tiles ≥ 24 px, the viewer's hand ≥ 44 px.
WIDTH: Final = 720
MARGIN: Final = 8
PAD: Final = 6
OWN_SIZE: Final = 46  # the viewer's concealed hand
OWN_MELD_SIZE: Final = 36
OTHER_HAND_SIZE: Final = 16  # backs: only their count matters
OTHER_MELD_SIZE: Final = 22  # four melds fit across a side panel
RIVER_SIZE: Final = 26
RIVER_GAP: Final = 2  # room for the latest discard's frame between tiles
INFO_SIZE: Final = 30  # the 赖子 and 赖子皮 in the header
CLAIM_SIZE: Final = 56  # the tile that may be claimed, or the latest discard
WAIT_SIZE: Final = 30
MELD_GAP: Final = 6
GANG_LINE_H: Final = 18  # a half panel's line for its 红中杠 / 赖子杠 counts
GANG_FONT: Final = 15
PLATE_H: Final = 36
HEADER_H: Final = 50
HEADER_FONT: Final = 20
ACTION_H: Final = 124
TABLE_COLORS: Final = 48  # the table's fixed palette: fewer colours, smaller and faster PNGs
HALF_W: Final = (WIDTH - 3 * MARGIN) // 2
# Rows of river each panel keeps room for; a longer river squeezes its rows together, never cut.
FULL_RIVER_ROWS: Final = 2
SIDE_RIVER_ROWS: Final = 3
RELATIVE_KEYS: Final = ("you", "next", "across", "prev")

Box = tuple[int, int, int, int]


def _river_h(rows: int) -> int:
    return rows * (tile_dims(RIVER_SIZE)[1] + RIVER_GAP)


def _meld_row_h(size: int) -> int:
    return tile_dims(size)[1] + meld_stack_rise(size)


FULL_PANEL_H: Final = PAD + PLATE_H + PAD + _meld_row_h(OTHER_MELD_SIZE) + PAD + _river_h(FULL_RIVER_ROWS) + PAD
SIDE_PANEL_H: Final = (
    PAD
    + PLATE_H
    + PAD
    + tile_dims(OTHER_HAND_SIZE)[1]
    + PAD
    + GANG_LINE_H
    + _meld_row_h(OTHER_MELD_SIZE)
    + PAD
    + _river_h(SIDE_RIVER_ROWS)
    + PAD
)
OWN_RIVER_H: Final = _river_h(FULL_RIVER_ROWS) + 2 * PAD
OWN_ROWS_H: Final = PLATE_H + PAD + _meld_row_h(OWN_MELD_SIZE) + PAD + tile_dims(OWN_SIZE)[1] + 2 * PAD


@dataclass(frozen=True)
class Frame:
    """The fixed boxes of one kind of picture (a seat's or the spectator's), by position: 0 = bottom,
    1 = 下家 (right), 2 = 对家 (top), 3 = 上家 (left)."""

    spectator: bool
    panels: dict[int, Box]
    action: Box  # the claimable tile or latest discard, whose turn, the waits
    own: Box  # the viewer's river, plate, melds and hand (empty for a spectator)
    height: int


@cache
def frame_of(spectator: bool) -> Frame:
    y = MARGIN + HEADER_H + MARGIN
    panels = {2: (MARGIN, y, WIDTH - MARGIN, y + FULL_PANEL_H)}
    y += FULL_PANEL_H + MARGIN
    panels[3] = (MARGIN, y, MARGIN + HALF_W, y + SIDE_PANEL_H)
    panels[1] = (WIDTH - MARGIN - HALF_W, y, WIDTH - MARGIN, y + SIDE_PANEL_H)
    y += SIDE_PANEL_H + MARGIN
    if spectator:
        panels[0] = (MARGIN, y, WIDTH - MARGIN, y + FULL_PANEL_H)
        y += FULL_PANEL_H + MARGIN
    action = (MARGIN, y, WIDTH - MARGIN, y + ACTION_H)
    y += ACTION_H + MARGIN
    own = (MARGIN, y, WIDTH - MARGIN, y + (0 if spectator else OWN_RIVER_H + OWN_ROWS_H))
    return Frame(spectator, panels, action, own, own[3] + (0 if spectator else MARGIN))


@dataclass
class TableLayout:
    """Where everything goes. Lists are indexed by seat (0–3), not by position on the picture."""

    bottom: int  # the seat drawn at the bottom
    frame: Frame
    plates: list[Box] = field(default_factory=lambda: [(0, 0, 0, 0)] * 4)
    hands: list[list[TileSpot]] = field(default_factory=lambda: [[] for _ in range(4)])
    melds: list[list[TileSpot]] = field(default_factory=lambda: [[] for _ in range(4)])
    rivers: list[list[TileSpot]] = field(default_factory=lambda: [[] for _ in range(4)])
    # where an opponent's 红中杠 and 赖子杠 counts end (right-aligned, beside its backs); the viewer's are on its plate
    gang_counts_at: list[tuple[int, int] | None] = field(default_factory=lambda: [None] * 4)
    drawn: TileSpot | None = None  # the viewer's freshly drawn tile (also the last spot of its hand)
    indicator: TileSpot | None = None
    laizi: TileSpot | None = None
    claimable: TileSpot | None = None  # the discard this viewer may claim, large
    discard_shown: TileSpot | None = None  # else the discard on the table now, large
    waits: list[TileSpot] = field(default_factory=list)
    latest_discard: TileSpot | None = None
    feeders: list[FeederMark] = field(default_factory=list)  # who fed each meld, where there is room

    @property
    def size(self) -> tuple[int, int]:
        return WIDTH, self.frame.height

    def shown_width(self, spot: TileSpot, display_width: int = 720) -> float:
        """How wide ``spot`` appears, in pixels, when the picture is shown ``display_width`` pixels wide."""
        x0, _, x1, _ = spot.box
        return (x1 - x0) * display_width / WIDTH

    def middle_spots(self) -> list[TileSpot]:
        """The tiles of the header and the action band: 赖子 and 赖子皮, the claimable or latest discard, waits."""
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
    lay = TableLayout(bottom, frame_of(view.seat is None))
    for seat in range(4):
        pos = position(seat, bottom)
        tiles = concealed_tiles(view, seat)
        # a hand holding 3n+2 tiles has just drawn or claimed: set its last tile apart
        apart = len(tiles) % 3 == 2 and (seat != view.seat or view.drawn is not None)
        if pos in lay.frame.panels:
            _layout_panel(lay, view, seat, lay.frame.panels[pos], tiles, apart)
        else:
            _layout_own(lay, view, seat, tiles, apart)
    _layout_header(lay, view, lang)
    _layout_action(lay, view, lang)
    return lay


def _layout_panel(lay: TableLayout, view: SeatView, seat: int, box: Box, tiles: tuple[Tile, ...], apart: bool) -> None:
    """Plate, backs, melds and river inside ``box``; a full-width panel has its melds beside the backs."""
    x0, y0, x1, _ = box
    full = x1 - x0 > HALF_W
    lay.plates[seat] = (x0 + PAD, y0 + PAD, x1 - PAD, y0 + PAD + PLATE_H)
    y = y0 + PAD + PLATE_H + PAD
    lay.hands[seat] = tile_row(tiles, x0 + PAD + 2, y, OTHER_HAND_SIZE, view.laizi, apart_last=apart)
    lay.gang_counts_at[seat] = (x1 - PAD - 2, y + tile_dims(OTHER_HAND_SIZE)[1] // 2)
    melds_x = (lay.hands[seat][-1].box[2] + 3 * MELD_GAP) if full and lay.hands[seat] else x0 + PAD + 2
    if not full:  # 14 backs reach a half panel's edge: its kong counts get a line of their own below them
        y += tile_dims(OTHER_HAND_SIZE)[1] + PAD
        lay.gang_counts_at[seat] = (x1 - PAD - 2, y + GANG_LINE_H // 2)
        y += GANG_LINE_H
    meld_bottom = y + _meld_row_h(OTHER_MELD_SIZE)
    _add_melds(lay, view, seat, melds_x, meld_bottom, OTHER_MELD_SIZE)
    rows = FULL_RIVER_ROWS if full else SIDE_RIVER_ROWS
    lay.rivers[seat] = _river(view, seat, x0 + PAD + 2, meld_bottom + PAD, x1 - x0 - 2 * PAD, _river_h(rows))


def _layout_own(lay: TableLayout, view: SeatView, seat: int, tiles: tuple[Tile, ...], apart: bool) -> None:
    """The viewer's river, then plate, melds and hand at the bottom, large."""
    x0, y0, x1, _ = lay.frame.own
    lay.rivers[seat] = _river(view, seat, x0 + PAD + 2, y0 + PAD, x1 - x0 - 2 * PAD, _river_h(FULL_RIVER_ROWS))
    y = y0 + OWN_RIVER_H
    lay.plates[seat] = (x0, y, x1, y + PLATE_H)
    meld_bottom = y + PLATE_H + PAD + _meld_row_h(OWN_MELD_SIZE)
    _add_melds(lay, view, seat, x0 + PAD, meld_bottom, OWN_MELD_SIZE)
    lay.hands[seat] = tile_row(tiles, x0 + PAD, meld_bottom + PAD, OWN_SIZE, view.laizi, apart_last=apart)
    if seat == view.seat and view.drawn is not None:
        lay.drawn = lay.hands[seat][-1]


def _add_melds(lay: TableLayout, view: SeatView, seat: int, x: int, bottom: int, size: int) -> None:
    for meld in view.melds[seat]:
        spots = meld_spots(meld, seat, x, bottom, size, view.laizi)
        lay.melds[seat] += spots
        mark = feeder_mark(meld, spots)
        if mark is not None:
            lay.feeders.append(mark)
        x += meld_width(size) + MELD_GAP


def _river(view: SeatView, seat: int, x: int, y: int, width: int, height: int) -> list[TileSpot]:
    """The seat's discards in rows as wide as ``width``; rows squeeze together when more than fit in ``height``."""
    tiles = view.rivers[seat]
    thrown = (HONGZHONG, view.laizi)  # only ever discarded as a throw (§4)
    w, h = tile_dims(RIVER_SIZE)
    w, h = w + RIVER_GAP, h + RIVER_GAP
    cols = width // w
    rows = max(1, -(-len(tiles) // cols))
    step = min(h, (height - h) // max(1, rows - 1)) if rows > 1 else h
    return [
        TileSpot(x + (i % cols) * w, y + (i // cols) * step, t, RIVER_SIZE, t == view.laizi, thrown=t in thrown)
        for i, t in enumerate(tiles)
    ]


def _layout_header(lay: TableLayout, view: SeatView, lang: Lang) -> None:
    """The 赖子 and its 赖子皮, each after its label, along the top."""
    y = MARGIN + (HEADER_H - tile_dims(INFO_SIZE)[1]) // 2
    x = MARGIN + PAD + text_width(text("laizi", lang), HEADER_FONT) + 8
    lay.laizi = TileSpot(x, y, view.laizi, INFO_SIZE, True)
    x += INFO_SIZE + 8 + text_width(tile_label(view.laizi, lang), HEADER_FONT) + 20
    x += text_width(text("indicator", lang), HEADER_FONT) + 8
    lay.indicator = TileSpot(x, y, view.indicator, INFO_SIZE, view.indicator == view.laizi)


def _layout_action(lay: TableLayout, view: SeatView, lang: Lang) -> None:
    """The tile on the table, large at the left of the action band; the waits at its right."""
    x0, y0, x1, _ = lay.frame.action
    tile_y = y0 + ACTION_H - PAD - tile_dims(CLAIM_SIZE)[1]
    if view.last_discard is not None:
        seat, tile = view.last_discard
        river = lay.rivers[seat]
        if river and river[-1].tile == tile:
            lay.latest_discard = river[-1]
    if view.claimable is not None:
        lay.claimable = TileSpot(x0 + 2 * PAD, tile_y, view.claimable, CLAIM_SIZE, view.claimable == view.laizi)
    elif view.last_discard is not None:
        tile = view.last_discard[1]
        lay.discard_shown = TileSpot(x0 + 2 * PAD, tile_y, tile, CLAIM_SIZE, tile == view.laizi)
    w, h = tile_dims(WAIT_SIZE)
    left = x0 + 2 * PAD + CLAIM_SIZE + 24 + text_width(text("waits", lang), 18) + 8
    per_row = max(1, (x1 - PAD - left) // (w + 4))
    wait_y = y0 + ACTION_H - PAD - h
    lay.waits = [
        TileSpot(left + i * (w + 4), wait_y, t, WAIT_SIZE, t == view.laizi) for i, t in enumerate(view.waits[:per_row])
    ]


@cache
def _background(spectator: bool) -> Image.Image:
    fr = frame_of(spectator)
    img = Image.new("RGB", (WIDTH, fr.height), FELT)
    d = ImageDraw.Draw(img)
    for box in (*fr.panels.values(), fr.action):
        d.rounded_rectangle(box, 12, fill=PANEL)
    return img


def palette_swatch() -> Image.Image:
    """The table's colours, for its fixed palette (rendering.palettes): the felt and panels, every tile face at
    every size used, plates and labels."""
    sizes = (OTHER_HAND_SIZE, OTHER_MELD_SIZE, RIVER_SIZE, INFO_SIZE, WAIT_SIZE, OWN_MELD_SIZE, OWN_SIZE, CLAIM_SIZE)
    swatch = Image.new("RGB", (WIDTH * 2, 1400), FELT)
    swatch.paste(_background(True), (0, 0))
    d = ImageDraw.Draw(swatch)
    y = 0
    for size in sizes:
        w, h = tile_dims(size)
        for i, t in enumerate([*range(NUM_KINDS), HIDDEN]):
            for laizi in (False, True):
                paste(swatch, TileSpot(WIDTH + (i * w) % (WIDTH - w), y + laizi * h, t, size, laizi))
        y += 2 * h
    d.rectangle((WIDTH, y, WIDTH * 3 // 2, y + 40), fill=GOLD)
    d.rectangle((WIDTH * 3 // 2, y, WIDTH * 2, y + 40), fill=PLATE)
    for i, color in enumerate((TEXT, MUTED, DARK, HIGHLIGHT, DEALER_RED, READY_BLUE)):
        draw_text(d, (WIDTH + 10, y + 60 + i * 30), "赖子皮 Wild 0123", 22, color, anchor="lm")
        draw_text(d, (WIDTH * 3 // 2 + 10, y + 60 + i * 30), "东南", 22, color, anchor="lm")
    return swatch


def _check_players(names: Sequence[str], scores: Sequence[int]) -> None:
    if len(names) != 4 or len(scores) != 4:
        raise ValueError("names and scores need one entry per seat (4 each)")


def table_image(view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang) -> Image.Image:
    """The table picture, unencoded; ``view.seat`` None draws the spectator picture."""
    _check_players(names, scores)
    check_lang(lang)
    lay = table_layout(view, lang)
    img = _background(lay.frame.spectator).copy()
    d = ImageDraw.Draw(img)
    for seat in range(4):
        _draw_plate(d, view, lay, seat, names, scores, lang)
    for seat in range(4):
        own = position(seat, lay.bottom) not in lay.frame.panels  # the viewer's tiles lie on the felt
        for spot in lay.hands[seat]:
            paste(img, spot, FELT if own else PANEL)
        for spot in lay.rivers[seat]:
            paste(img, spot, FELT if own else PANEL)
        for spot in lay.melds[seat]:
            paste(img, spot)  # a gang's fourth tile lies on another tile: blend it in
    for spot in lay.middle_spots():
        paste(img, spot, FELT if spot in (lay.laizi, lay.indicator) else PANEL)
    for mark in lay.feeders:
        draw_feeder(d, mark, lang)
    if lay.latest_discard is not None:
        frame(d, lay.latest_discard.box, HIGHLIGHT, width=RIVER_GAP, pad=0)
    _draw_turn(d, view, lay)
    _draw_header(d, view, lay, lang)
    _draw_action(d, view, lay, names, lang)
    return img


def _draw_turn(d: ImageDraw.ImageDraw, view: SeatView, lay: TableLayout) -> None:
    """A gold outline round the seat to act, so whose turn it is shows before any text is read."""
    if view.phase == "over":
        return
    pos = position(view.turn, lay.bottom)
    box = lay.frame.panels.get(pos, lay.frame.own)
    d.rounded_rectangle(box, 12, outline=GOLD, width=3)


def gang_counts(view: SeatView, seat: int, lang: Lang) -> str:
    """``红中杠 ×2  赖子杠 ×1``: the seat's 红中杠 and 赖子杠 so far ("" for none)."""
    counts = (("hongzhong_gangs", view.hongzhong_gangs[seat]), ("laizi_gangs", view.laizi_gangs[seat]))
    return "  ".join(text(key, lang).format(n=n) for key, n in counts if n)


def _draw_plate(
    d: ImageDraw.ImageDraw,
    view: SeatView,
    lay: TableLayout,
    seat: int,
    names: Sequence[str],
    scores: Sequence[int],
    lang: Lang,
) -> None:
    """Wind, name, 庄 and 听 badges, where the seat sits, then its gang counts and score at the right."""
    x0, y0, x1, y1 = lay.plates[seat]
    turn = view.turn == seat and view.phase != "over"
    fill, ink = (GOLD, DARK) if turn else (PLATE, TEXT)
    d.rounded_rectangle((x0, y0, x1, y1), 10, fill=fill)
    cy = (y0 + y1) // 2
    badge(d, (x0 + 5, cy), 13, seat_wind(seat, lang), ink, fill)
    right = x1 - 8 - draw_text(d, (x1 - 8, cy), signed(scores[seat]), 20, ink, anchor="rm") - 8
    gangs = gang_counts(view, seat, lang)
    at = lay.gang_counts_at[seat]
    if gangs and at is not None:
        draw_text(d, at, gangs, GANG_FONT, GOLD, anchor="rm")
    elif gangs:
        right -= draw_text(d, (right, cy), gangs, GANG_FONT, DARK if turn else GOLD, anchor="rm") + 8
    rel = text(RELATIVE_KEYS[position(seat, lay.bottom)], lang) if view.seat is not None else ""
    badges = [(text("dealer", lang), DEALER_RED)] if seat == view.dealer else []
    badges += [(text("ready", lang), READY_BLUE)] if seat == view.seat and view.waits else []
    rel_w = text_width(rel, 14) + 8 if rel else 0
    badges_w = sum(badge_width(label, 11) + 6 for label, _ in badges)
    x = x0 + 38
    x += draw_text(d, (x, cy), names[seat], 20, ink, anchor="lm", max_width=right - x - badges_w - rel_w) + 6
    for label, color in badges:
        x += badge(d, (x, cy), 11, label, color, WHITE) + 6
    if rel:
        draw_text(d, (x, cy), rel, 14, DARK if turn else MUTED, anchor="lm")


def _draw_header(d: ImageDraw.ImageDraw, view: SeatView, lay: TableLayout, lang: Lang) -> None:
    """赖子 [tile] its name, 赖子皮 [tile], and the wall count (and 观战 for the group) at the right."""
    assert lay.laizi is not None and lay.indicator is not None
    cy = lay.laizi.y + tile_dims(INFO_SIZE)[1] // 2
    draw_text(d, (MARGIN + PAD, cy), text("laizi", lang), HEADER_FONT, GOLD, anchor="lm")
    draw_text(d, (lay.laizi.x + INFO_SIZE + 8, cy), tile_label(view.laizi, lang), HEADER_FONT, GOLD, anchor="lm")
    draw_text(d, (lay.indicator.x - 8, cy), text("indicator", lang), HEADER_FONT, TEXT, anchor="rm")
    wall = text("wall_left", lang).format(n=view.wall_remaining)
    if view.seat is None:
        wall = f"{text('spectator', lang)} · {wall}"
    draw_text(d, (WIDTH - MARGIN - PAD, cy), wall, 22, TEXT, anchor="rm")


def _draw_action(d: ImageDraw.ImageDraw, view: SeatView, lay: TableLayout, names: Sequence[str], lang: Lang) -> None:
    """What is on the table, named in words above the large tile; whose turn it is; the viewer's waits."""
    x0, y0, x1, _ = lay.frame.action
    line_y = y0 + PAD + 10
    if lay.claimable is not None:
        claim = f"{text('claimable', lang)}: {tile_label(lay.claimable.tile, lang)}"
        draw_text(d, (x0 + 2 * PAD, line_y), claim, 20, HIGHLIGHT, anchor="lm", max_width=x1 - x0 - 4 * PAD)
        frame(d, lay.claimable.box, HIGHLIGHT, width=4, pad=2)
    elif lay.discard_shown is not None and view.last_discard is not None:
        who = f"{seat_wind(view.last_discard[0], lang)} {names[view.last_discard[0]]}"
        said = f"{text('discarded', lang).format(name=who)}: {tile_label(lay.discard_shown.tile, lang)}"
        draw_text(d, (x0 + 2 * PAD, line_y), said, 20, TEXT, anchor="lm", max_width=x1 - x0 - 4 * PAD)
        frame(d, lay.discard_shown.box, HIGHLIGHT, width=3, pad=2)
    left = x0 + 2 * PAD + CLAIM_SIZE + 24
    status = text(f"phase_{view.phase}", lang).format(name=f"{seat_wind(view.turn, lang)} {names[view.turn]}")
    draw_text(
        d, (left, y0 + 62), status, 22, GOLD if view.phase != "over" else TEXT, anchor="lm", max_width=x1 - PAD - left
    )
    if lay.waits:
        wait_cy = lay.waits[0].y + tile_dims(WAIT_SIZE)[1] // 2
        draw_text(d, (lay.waits[0].x - 8, wait_cy), text("waits", lang), 18, GOLD, anchor="rm")


def render_table_view(view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang = "zh") -> bytes:
    """The private picture of ``view`` (its seat at the bottom), encoded for sendPhoto."""
    if view.seat is None:
        raise ValueError("a spectator view has no seat: use render_spectator_view")
    return encode(table_image(view, names, scores, lang), stored_palette("table"))


def render_spectator_view(view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang = "zh") -> bytes:
    """The group's picture: no concealed tile shown until the hand is over."""
    if view.seat is not None:
        raise ValueError("render_spectator_view needs a spectator view (seat None)")
    return encode(table_image(view, names, scores, lang), stored_palette("table"))
