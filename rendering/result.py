"""The end of a hand: the result picture of a win and the picture of a 荒庄.

    png = render_result(hand.view(None), names, "zh", win_tile=tile)   # after a win (view.result set)
    png = render_exhausted(hand.view(None), names, "en")              # after 荒庄 (view.exhausted)

A result shows the winner's hand (the winning tile set apart) with its melds, the patterns (胡牌类型), soft or
hard, the base, 封顶/金顶 and 承包 when they apply, and one row per seat: its revealed hand, every multiplier
that made its amount, and what it pays or receives. ``totals`` (running scores after the hand) are optional.
Like the table, the pictures are 720 px wide (a phone's width) and grow downwards: multiplier lines wrap
between multipliers, chips go on to a second row, so nothing is cut; only names end with '…'.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from PIL import Image, ImageDraw

from game.scoring import REASON_NAMES, Settlement
from game.tiles import Tile, tile_label
from game.view import SeatView
from rendering.draw import (
    DARK,
    DEALER_RED,
    FELT,
    GOLD,
    HIGHLIGHT,
    LOSS_RED,
    MUTED,
    PANEL,
    PLATE,
    TEXT,
    WHITE,
    WIN_GREEN,
    FeederMark,
    TileSpot,
    badge,
    badge_width,
    draw_feeder,
    encode,
    faces_swatch,
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
from rendering.fonts import draw_text, text_width, wrap
from rendering.labels import Lang, check_lang, how_text, pattern_name, seat_wind, text
from rendering.tile_faces import tile_dims

# Phone first, like the table: 720 px wide, each seat's row stacked (name and payment, hand, multipliers).
WIDTH: Final = 720
WIN_SIZE: Final = 38
CHIP_TOP: Final = 118
CHIP_LINE: Final = 44  # chips wrap onto as many rows as they need; the 承包 line and the hand follow
LIABLE_H: Final = 34
ROW_SIZE: Final = 26
ROW_HEAD: Final = 44  # a seat row's name line
ROW_TILES: Final = tile_dims(ROW_SIZE)[1] + meld_stack_rise(ROW_SIZE)
LINE_FONT: Final = 19
LINE_H: Final = 24
LINES_X: Final = 28
LINES_W: Final = WIDTH - 2 * LINES_X
MELD_GAP: Final = 8
ROW_GAP: Final = 8
LANG_INDEX: Final = {"zh": 0, "en": 1}  # game.scoring labels are (中文, English) pairs


def _check(view: SeatView, names: Sequence[str], totals: Sequence[int] | None) -> None:
    if len(names) != 4 or (totals is not None and len(totals) != 4):
        raise ValueError("names (and totals) need one entry per seat (4 each)")
    if view.revealed is None:
        raise ValueError("the hand is not over: its view reveals no hands")


def _hand_spots(
    view: SeatView, seat: int, x: int, bottom: int, size: int, win_tile: Tile | None = None
) -> tuple[list[TileSpot], TileSpot | None, int]:
    """A seat's revealed concealed tiles then its melds, bottoms on ``bottom``; the winning tile set apart.
    Returns the spots, the winning tile's spot and the x where the row ends."""
    assert view.revealed is not None
    concealed = sorted(view.revealed[seat])
    if win_tile is not None and win_tile in concealed:
        concealed.remove(win_tile)
        concealed.append(win_tile)
    h = tile_dims(size)[1]
    spots = tile_row(concealed, x, bottom - h, size, view.laizi, apart_last=win_tile is not None)
    win_spot = spots[-1] if win_tile is not None and spots else None
    x = (spots[-1].box[2] if spots else x) + MELD_GAP * 2
    for meld in view.melds[seat]:
        spots += meld_spots(meld, seat, x, bottom, size, view.laizi)
        x += meld_width(size) + MELD_GAP
    return spots, win_spot, x


def _feeders(view: SeatView, seat: int, spots: list[TileSpot]) -> list[FeederMark]:
    """The giver of each of a seat's melds, for spots laid out by _hand_spots (melds after the concealed)."""
    assert view.revealed is not None
    meld_tiles = spots[len(view.revealed[seat]) :]
    marks = []
    for meld in view.melds[seat]:
        count = 4 if meld.is_gang else 3
        mark = feeder_mark(meld, meld_tiles[:count])
        meld_tiles = meld_tiles[count:]
        if mark is not None:
            marks.append(mark)
    return marks


def winner_spots(
    view: SeatView, win_tile: Tile | None = None, lang: Lang = "zh"
) -> tuple[list[TileSpot], TileSpot | None]:
    """Where the result picture in ``lang`` draws the winner's hand and melds, and the winning tile's spot
    (set apart); the hand sits under the chips, whose rows depend on the language."""
    if view.result is None:
        raise ValueError("the view holds no settlement: the hand was not won")
    bottom = _win_top(view.result, lang) + tile_dims(WIN_SIZE)[1] + meld_stack_rise(WIN_SIZE)
    spots, win_spot, _ = _hand_spots(view, view.result.winner, 24, bottom, WIN_SIZE, win_tile)
    return spots, win_spot


def _win_top(s: Settlement, lang: Lang) -> int:
    """Where the winner's hand row starts: under the last row of chips and the 承包 line, if any."""
    last_row = max(cy for _, cy, _ in _chip_places(_chip_labels(s, lang)))
    return last_row + CHIP_LINE // 2 + (LIABLE_H if s.valid and s.liable is not None else 0) + 8


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4g}"


Chip = tuple[str, tuple[int, int, int], tuple[int, int, int], int]  # label, fill, ink, font size


def _chip_labels(s: Settlement, lang: Lang) -> list[Chip]:
    """The patterns, soft or hard, the base and the cap of a win; or why it is not valid."""
    if not s.valid:
        reason = REASON_NAMES[s.reason][LANG_INDEX[lang]] if s.reason in REASON_NAMES else (s.reason or "")
        return [(f"{text('invalid', lang)}: {reason}", HIGHLIGHT, WHITE, 20)]
    # A pattern's English name is written to run on in a sentence ("plain win"); a chip is a label of its own.
    chips: list[Chip] = [(_label_case(pattern_name(p, lang)), GOLD, DARK, 22) for p in s.patterns]
    chips.append((text("soft" if s.soft else "hard", lang), PLATE, TEXT, 20))
    chips.append((text("base", lang).format(n=s.base), PLATE, TEXT, 20))
    if s.cap != "none":
        chips.append((text(f"cap_{s.cap}", lang), HIGHLIGHT, WHITE, 20))
    return chips


def _label_case(name: str) -> str:
    return name[:1].upper() + name[1:]


def _chip_places(chips: list[Chip]) -> list[tuple[int, int, Chip]]:
    """(x, centre y, chip) for chips in rows, going on to a new row rather than off the picture."""
    x, cy = 24, CHIP_TOP
    places = []
    for chip in chips:
        w = _chip_width(chip)
        if x + w > WIDTH - 24 and x > 24:
            x, cy = 24, cy + CHIP_LINE
        places.append((x, cy, chip))
        x += w + 10
    return places


def _chip_width(chip: Chip) -> int:
    label, _, _, size = chip
    return min(text_width(label, size), WIDTH - 72) + 24


def _chips(d: ImageDraw.ImageDraw, chips: list[Chip]) -> None:
    for x, cy, chip in _chip_places(chips):
        label, fill, ink, size = chip
        w = _chip_width(chip)
        d.rounded_rectangle((x, cy - size // 2 - 8, x + w, cy + size // 2 + 8), 12, fill=fill)
        draw_text(d, (x + 12, cy), label, size, ink, anchor="lm", max_width=w - 24)


def _headline(d: ImageDraw.ImageDraw, s: Settlement, names: Sequence[str], lang: Lang, win_tile: Tile | None) -> None:
    """Who won; then how, and on which tile, in words; and who is liable (承包) under the chips."""
    win = text("win", lang)
    name_w = WIDTH - 48 - text_width(win, 34) - 14
    x = 24 + draw_text(d, (24, 36), names[s.winner], 34, GOLD, anchor="lm", max_width=name_w) + 14
    draw_text(d, (x, 36), win, 34, TEXT, anchor="lm")
    how = how_text(s.how, lang, names[s.from_seat] if s.from_seat is not None else "")
    if win_tile is not None:
        how += f" · {tile_label(win_tile, lang)}"
    draw_text(d, (24, 78), how, 22, TEXT, anchor="lm", max_width=WIDTH - 48)
    if s.valid and s.liable is not None:
        rule = "qiang_gang" if s.liable_rule == "rob_gang" else s.liable_rule
        why = f" ({pattern_name(rule, lang)})" if rule else ""
        liable = text("liable", lang).format(name=names[s.liable]) + why
        liable_y = _win_top(s, lang) - 8 - LIABLE_H // 2
        draw_text(d, (24, liable_y), liable, 20, LOSS_RED, anchor="lm", max_width=WIDTH - 48)


def _player_cell(
    d: ImageDraw.ImageDraw, view: SeatView, seat: int, cy: int, names: Sequence[str], lang: Lang, width: int
) -> None:
    x = LINES_X + badge(d, (LINES_X, cy), 14, seat_wind(seat, lang), TEXT, PLATE) + 8
    dealer = text("dealer", lang)
    dealer_w = badge_width(dealer, 11) + 8 if seat == view.dealer else 0
    x += draw_text(d, (x, cy), names[seat], 20, TEXT, anchor="lm", max_width=width - (x - LINES_X) - dealer_w) + 6
    if seat == view.dealer:
        badge(d, (x + 2, cy), 11, dealer, DEALER_RED, WHITE)


def _row_heights(lines: Sequence[list[str]]) -> list[int]:
    return [ROW_HEAD + ROW_TILES + 8 + LINE_H * len(seat_lines) + 6 for seat_lines in lines]


def _seat_rows(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    view: SeatView,
    top: int,
    names: Sequence[str],
    lang: Lang,
    payments: Sequence[int],
    totals: Sequence[int] | None,
    lines: Sequence[list[str]],
    winner: int | None,
) -> None:
    """One row per seat: name, payment (and total), revealed hand and melds, the multiplier lines (wrapped,
    never cut)."""
    y = top
    for seat, height in enumerate(_row_heights(lines)):
        d.rounded_rectangle((16, y, WIDTH - 16, y + height), 12, fill=PLATE if seat == winner else PANEL)
        cy = y + ROW_HEAD // 2 + 2
        pay = payments[seat]
        color = WIN_GREEN if pay > 0 else LOSS_RED if pay < 0 else TEXT
        right = WIDTH - LINES_X - draw_text(d, (WIDTH - LINES_X, cy), signed(pay), 28, color, anchor="rm") - 12
        if totals is not None:
            total = text("total", lang).format(n=signed(totals[seat]))
            right -= draw_text(d, (right, cy), total, 16, MUTED, anchor="rm") + 12
        _player_cell(d, view, seat, cy, names, lang, right - LINES_X)
        if seat == winner:
            draw_text(d, (LINES_X, y + ROW_HEAD + ROW_TILES // 2), text("win", lang), 28, GOLD, anchor="lm")
        else:
            spots, _, _ = _hand_spots(view, seat, LINES_X, y + ROW_HEAD + ROW_TILES, ROW_SIZE)
            for spot in spots:
                paste(img, spot)
            for mark in _feeders(view, seat, spots):
                draw_feeder(d, mark, lang)
        lines_top = y + ROW_HEAD + ROW_TILES + 8
        for i, line in enumerate(lines[seat]):
            draw_text(d, (LINES_X, lines_top + i * LINE_H + LINE_H // 2), line, LINE_FONT, TEXT, anchor="lm")
        y += height + ROW_GAP


def _factor_lines(s: Settlement, seat: int, lang: Lang) -> list[str]:
    """Every multiplier of a seat, then its raw amount and what caps made of it, wrapped between multipliers."""
    score = s.seats[seat]
    i = LANG_INDEX[lang]
    parts = [f.label(i) for f in (*score.factors, *score.extras)]
    factors = " · ".join(parts) if parts else text("no_factors", lang)
    lines = wrap(f"{factors} = ×{_num(score.multiplier)}", LINE_FONT, LINES_W, sep=" · ")
    if seat != s.scorer and s.valid:  # under 杠进杠出 the robbed seat's multiplier sets every amount (§6)
        winner_mult = s.seats[s.scorer].multiplier
        calc = f"{s.base} × {_num(winner_mult)} × {_num(score.multiplier)} = {_num(score.raw)}"
        if score.cap is not None:
            calc += f" → {text('cap_' + score.cap, lang)} {score.owed}"
        joined = f"{lines[-1]}   {calc}"
        lines[-1:] = (
            [joined] if text_width(joined, LINE_FONT) <= LINES_W else [lines[-1], *wrap(calc, LINE_FONT, LINES_W)]
        )
    return lines


def result_image(
    view: SeatView,
    names: Sequence[str],
    lang: Lang = "zh",
    win_tile: Tile | None = None,
    totals: Sequence[int] | None = None,
) -> Image.Image:
    """The result picture, unencoded."""
    _check(view, names, totals)
    s = view.result
    if s is None:
        raise ValueError("the view holds no settlement: the hand was not won")
    check_lang(lang)
    rows_top = _win_top(s, lang) + tile_dims(WIN_SIZE)[1] + meld_stack_rise(WIN_SIZE) + 20
    lines = [_factor_lines(s, seat, lang) for seat in range(4)]
    img = Image.new("RGB", (WIDTH, rows_top + sum(_row_heights(lines)) + 4 * ROW_GAP + 8), FELT)
    d = ImageDraw.Draw(img)
    _headline(d, s, names, lang, win_tile)
    _chips(d, _chip_labels(s, lang))
    # the winning hand, big
    spots, win_spot = winner_spots(view, win_tile, lang)
    for spot in spots:
        paste(img, spot)
    for mark in _feeders(view, s.winner, spots):
        draw_feeder(d, mark, lang)
    if win_spot is not None:
        frame(d, win_spot.box, GOLD, width=4)
    _seat_rows(img, d, view, rows_top, names, lang, s.payments, totals, lines, s.winner)
    return img


def exhausted_image(
    view: SeatView, names: Sequence[str], lang: Lang = "zh", totals: Sequence[int] | None = None
) -> Image.Image:
    """The 荒庄 picture, unencoded: every hand revealed, nobody pays."""
    _check(view, names, totals)
    if not view.exhausted:
        raise ValueError("the view is not a 荒庄")
    check_lang(lang)
    note = wrap(text("exhausted_note", lang), 22, WIDTH - 48)
    rows_top = 96 + 30 * len(note)
    img = Image.new("RGB", (WIDTH, rows_top + sum(_row_heights([[]] * 4)) + 4 * ROW_GAP + 8), FELT)
    d = ImageDraw.Draw(img)
    draw_text(d, (24, 44), text("exhausted", lang), 40, GOLD, anchor="lm")
    for i, line in enumerate(note):
        draw_text(d, (24, 96 + 30 * i), line, 22, TEXT, anchor="lm")
    _seat_rows(img, d, view, rows_top, names, lang, (0, 0, 0, 0), totals, [[]] * 4, None)
    return img


def render_result(
    view: SeatView,
    names: Sequence[str],
    lang: Lang = "zh",
    win_tile: Tile | None = None,
    totals: Sequence[int] | None = None,
) -> bytes:
    """The result picture of a won hand, encoded for sendPhoto. ``win_tile`` (from the "win" event) is set
    apart in the winner's hand."""
    return encode(result_image(view, names, lang, win_tile, totals), stored_palette("result"))


def render_exhausted(
    view: SeatView, names: Sequence[str], lang: Lang = "zh", totals: Sequence[int] | None = None
) -> bytes:
    """The 荒庄 picture, encoded for sendPhoto."""
    return encode(exhausted_image(view, names, lang, totals), stored_palette("result"))


def palette_swatch() -> Image.Image:
    """The result's colours, for its fixed palette (rendering.palettes: an adaptive palette of each picture cost
    most of a hand's end, a third of the bot's time at 100 tables). Felt, panels and plate, every tile face at
    both sizes, each text colour on each background, anti-aliased."""
    faces = faces_swatch((WIN_SIZE, ROW_SIZE), WIDTH, FELT)
    inks = (TEXT, MUTED, DARK, HIGHLIGHT, DEALER_RED, LOSS_RED, WIN_GREEN, GOLD, WHITE)
    swatch = Image.new("RGB", (WIDTH, faces.height + 40 * len(inks) + 60), FELT)
    swatch.paste(faces, (0, 0))
    d = ImageDraw.Draw(swatch)
    y = faces.height
    for j, ground in enumerate((FELT, PANEL, PLATE)):
        top = y + j * 40 * len(inks) // 3
        d.rounded_rectangle((0, top, WIDTH, top + 40 * len(inks) // 3), 12, fill=ground)
        for i, ink in enumerate(inks):
            draw_text(d, (10 + (i % 3) * (WIDTH // 3), top + 20 + (i // 3) * 30), "胡 +120 −60 ×4 Wild", 22, ink,
                      anchor="lm")  # fmt: skip
    badge(d, (10, y + 40 * len(inks) + 20), 11, "庄", DEALER_RED, WHITE)
    frame(d, (60, y + 40 * len(inks) + 5, 100, y + 40 * len(inks) + 35), GOLD, width=4)
    return swatch
