"""The end of a hand: the result picture of a win and the picture of a 荒庄.

    png = render_result(hand.view(None), names, "zh", win_tile=tile)   # after a win (view.result set)
    png = render_exhausted(hand.view(None), names, "en")              # after 荒庄 (view.exhausted)

A result shows the winner's hand (the winning tile set apart) with its melds, the patterns (胡牌类型), soft or
hard, the base, 封顶/金顶 and 承包 when they apply, and one row per seat: its revealed hand, every multiplier
that made its amount, and what it pays or receives. ``totals`` (running scores after the hand) are optional.
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
    draw_feeder,
    encode,
    feeder_mark,
    frame,
    meld_spots,
    meld_stack_rise,
    meld_width,
    paste,
    signed,
    tile_row,
)
from rendering.fonts import draw_text, text_width, wrap
from rendering.labels import Lang, check_lang, how_text, pattern_name, seat_wind, text
from rendering.tiles import tile_dims

WIDTH: Final = 1280
WIN_SIZE: Final = 56
WIN_TOP: Final = 180  # where the winner's hand row starts, below two rows of chips
ROW_SIZE: Final = 26
ROW_H: Final = 96  # a seat's row with one line of multipliers; each further line adds LINE_H
LINE_FONT: Final = 19
LINE_H: Final = 24
LINES_X: Final = 330
LINES_W: Final = WIDTH - 16 - LINES_X - 12
MELD_GAP: Final = 10
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


def winner_spots(view: SeatView, win_tile: Tile | None = None) -> tuple[list[TileSpot], TileSpot | None]:
    """Where the result picture draws the winner's hand and melds, and the winning tile's spot (set apart)."""
    if view.result is None:
        raise ValueError("the view holds no settlement: the hand was not won")
    bottom = WIN_TOP + tile_dims(WIN_SIZE)[1] + meld_stack_rise(WIN_SIZE)
    spots, win_spot, _ = _hand_spots(view, view.result.winner, 24, bottom, WIN_SIZE, win_tile)
    return spots, win_spot


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4g}"


Chip = tuple[str, tuple[int, int, int], tuple[int, int, int], int]  # label, fill, ink, font size
CHIP_TOP: Final = 100
CHIP_LINE: Final = 46  # two lines of chips fit above WIN_TOP


def _chip_labels(s: Settlement, names: Sequence[str], lang: Lang) -> list[Chip]:
    """The patterns, soft or hard, the base, the cap and 承包 of a win; or why it is not valid."""
    if not s.valid:
        reason = REASON_NAMES[s.reason][LANG_INDEX[lang]] if s.reason in REASON_NAMES else (s.reason or "")
        return [(f"{text('invalid', lang)}: {reason}", HIGHLIGHT, WHITE, 24)]
    chips: list[Chip] = [(pattern_name(p, lang), GOLD, DARK, 26) for p in s.patterns]
    chips.append((text("soft" if s.soft else "hard", lang), PLATE, TEXT, 24))
    chips.append((text("base", lang).format(n=s.base), PLATE, TEXT, 24))
    if s.cap != "none":
        chips.append((text(f"cap_{s.cap}", lang), HIGHLIGHT, WHITE, 24))
    if s.liable is not None:
        rule = "qiang_gang" if s.liable_rule == "rob_gang" else s.liable_rule
        why = f" ({pattern_name(rule, lang)})" if rule else ""
        chips.append((text("liable", lang).format(name=names[s.liable]) + why, HIGHLIGHT, WHITE, 24))
    return chips


def _chips(d: ImageDraw.ImageDraw, chips: list[Chip]) -> None:
    """Rounded labels in a row, going on to a second row rather than off the picture."""
    x, cy = 24, CHIP_TOP
    for label, fill, ink, size in chips:
        w = min(text_width(label, size), WIDTH - 72) + 24
        if x + w > WIDTH - 24 and x > 24:
            x, cy = 24, cy + CHIP_LINE
        d.rounded_rectangle((x, cy - size // 2 - 8, x + w, cy + size // 2 + 8), 12, fill=fill)
        draw_text(d, (x + 12, cy), label, size, ink, anchor="lm", max_width=w - 24)
        x += w + 10


def _headline(d: ImageDraw.ImageDraw, s: Settlement, names: Sequence[str], lang: Lang, win_tile: Tile | None) -> None:
    """Who won, and how, and on which tile, in words."""
    from_name = names[s.from_seat] if s.from_seat is not None else ""
    x = 24 + draw_text(d, (24, 40), names[s.winner], 36, GOLD, anchor="lm", max_width=420) + 16
    x += draw_text(d, (x, 40), text("win", lang), 36, TEXT, anchor="lm") + 20
    how = how_text(s.how, lang, from_name)
    if win_tile is not None:
        how += f" · {tile_label(win_tile, lang)}"
    draw_text(d, (x, 42), how, 26, TEXT, anchor="lm", max_width=WIDTH - x - 24)


def _player_cell(
    d: ImageDraw.ImageDraw, view: SeatView, seat: int, x: int, cy: int, names: Sequence[str], lang: Lang, width: int
) -> None:
    badge(d, (x + 16, cy), 15, seat_wind(seat, lang), TEXT, PLATE)
    x += 38
    dealer_w = 30 if seat == view.dealer else 0
    x += draw_text(d, (x, cy), names[seat], 22, TEXT, anchor="lm", max_width=width - 38 - dealer_w) + 6
    if seat == view.dealer:
        badge(d, (x + 12, cy), 12, text("dealer", lang), DEALER_RED, WHITE)


def _row_heights(lines: Sequence[list[str]]) -> list[int]:
    return [ROW_H + LINE_H * max(0, len(seat_lines) - 1) for seat_lines in lines]


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
        _player_cell(d, view, seat, 28, y + 24, names, lang, 250)
        pay = payments[seat]
        color = WIN_GREEN if pay > 0 else LOSS_RED if pay < 0 else TEXT
        draw_text(d, (28, y + 66), signed(pay), 32, color, anchor="lm")
        if totals is not None:
            draw_text(d, (300, y + 66), text("total", lang).format(n=signed(totals[seat])), 16, MUTED, anchor="rm")
        if seat == winner:
            draw_text(d, (LINES_X, y + 30), text("win", lang), 30, GOLD, anchor="lm")
        else:
            bottom = y + 8 + tile_dims(ROW_SIZE)[1] + meld_stack_rise(ROW_SIZE)
            spots, _, _ = _hand_spots(view, seat, LINES_X, bottom, ROW_SIZE)
            for spot in spots:
                paste(img, spot)
            for mark in _feeders(view, seat, spots):
                draw_feeder(d, mark, lang)
        for i, line in enumerate(lines[seat]):
            draw_text(d, (LINES_X, y + 76 + i * LINE_H), line, LINE_FONT, TEXT, anchor="lm")
        y += height + 8


def _factor_lines(s: Settlement, seat: int, lang: Lang) -> list[str]:
    """Every multiplier of a seat, then its raw amount and what caps made of it, wrapped between multipliers."""
    score = s.seats[seat]
    i = LANG_INDEX[lang]
    parts = [f.label(i) for f in (*score.factors, *score.extras)]
    factors = " · ".join(parts) if parts else text("no_factors", lang)
    lines = wrap(f"{factors} = ×{_num(score.multiplier)}", LINE_FONT, LINES_W, sep=" · ")
    if seat != s.winner and s.valid:
        winner_mult = s.seats[s.winner].multiplier
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
    win_h = tile_dims(WIN_SIZE)[1] + meld_stack_rise(WIN_SIZE)
    rows_top = WIN_TOP + win_h + 30
    lines = [_factor_lines(s, seat, lang) for seat in range(4)]
    img = Image.new("RGB", (WIDTH, rows_top + sum(_row_heights(lines)) + 4 * 8 + 12), FELT)
    d = ImageDraw.Draw(img)
    _headline(d, s, names, lang, win_tile)
    _chips(d, _chip_labels(s, names, lang))
    # the winning hand, big
    spots, win_spot = winner_spots(view, win_tile)
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
    rows_top = 130
    img = Image.new("RGB", (WIDTH, rows_top + 4 * (ROW_H + 8) + 12), FELT)
    d = ImageDraw.Draw(img)
    draw_text(d, (24, 48), text("exhausted", lang), 44, GOLD, anchor="lm")
    draw_text(d, (24, 100), text("exhausted_note", lang), 22, TEXT, anchor="lm")
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
    return encode(result_image(view, names, lang, win_tile, totals))


def render_exhausted(
    view: SeatView, names: Sequence[str], lang: Lang = "zh", totals: Sequence[int] | None = None
) -> bytes:
    """The 荒庄 picture, encoded for sendPhoto."""
    return encode(exhausted_image(view, names, lang, totals))
