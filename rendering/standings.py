"""Standings pictures: a group's leaderboard and one player's card with a skill-over-time chart.

The bot fills the plain dataclasses below from storage; titles (RULES.md §10) follow from the skill:

    png = render_leaderboard([LeaderboardRow(1, "Alice", 5120, 42, 2720), ...], "zh", "周五麻将群")
    png = render_player_card(PlayerCard("Alice", 5120, 42, 13, 960, (2400, 2520, ...)), "en")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageDraw

from game.titles import TITLES, Title, title_for
from rendering.draw import DARK, FELT, GOLD, LOSS_RED, MUTED, PANEL, PLATE, TEXT, WIN_GREEN, encode, signed
from rendering.fonts import draw_text, text_width
from rendering.labels import Lang, check_lang, text

WIDTH: Final = 1000
ROW_H: Final = 58
HEAD_H: Final = 130
MEDALS: Final = ((242, 193, 78), (200, 206, 214), (205, 127, 50))
CHART_LINE: Final = (120, 200, 255)


def title_name(title: Title, lang: Lang) -> str:
    return title.zh if lang == "zh" else title.en


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    name: str
    skill: int
    hands: int
    net: int  # net points over the period the board covers

    @property
    def title(self) -> Title:
        return title_for(self.skill)


@dataclass(frozen=True)
class PlayerCard:
    name: str
    skill: int
    hands: int
    wins: int
    biggest_win: int  # the most points won in one hand
    skill_history: tuple[int, ...] = ()  # skill after each hand, oldest first

    @property
    def title(self) -> Title:
        return title_for(self.skill)

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0


# Leaderboard columns: label key, right edge (numbers) or left edge (text), alignment.
_COLUMNS: Final = (("col_rank", 70, "mm"), ("col_name", 120, "lm"), ("col_title", 480, "lm"),
                   ("col_skill", 770, "rm"), ("col_hands", 860, "rm"), ("col_net", 970, "rm"))


def leaderboard_image(rows: Sequence[LeaderboardRow], lang: Lang, title: str) -> Image.Image:
    check_lang(lang)
    height = HEAD_H + max(1, len(rows)) * ROW_H + 24
    img = Image.new("RGB", (WIDTH, height), FELT)
    d = ImageDraw.Draw(img)
    draw_text(d, (30, 44), text("leaderboard", lang), 40, GOLD, anchor="lm")
    board_w = text_width(text("leaderboard", lang), 40)
    draw_text(d, (30 + board_w + 20, 48), title, 26, TEXT, anchor="lm", max_width=WIDTH - board_w - 80)
    for key, x, anchor in _COLUMNS:
        draw_text(d, (x, HEAD_H - 24), text(key, lang), 18, MUTED, anchor=anchor)
    if not rows:
        draw_text(d, (WIDTH // 2, HEAD_H + ROW_H // 2), text("no_rows", lang), 24, MUTED, anchor="mm")
    for i, row in enumerate(rows):
        y = HEAD_H + i * ROW_H
        cy = y + ROW_H // 2
        d.rounded_rectangle((16, y + 4, WIDTH - 16, y + ROW_H - 4), 10, fill=PANEL if i % 2 == 0 else PLATE)
        if row.rank <= len(MEDALS):
            d.ellipse((52, cy - 18, 88, cy + 18), fill=MEDALS[row.rank - 1])
        draw_text(d, (70, cy), str(row.rank), 22, DARK if row.rank <= len(MEDALS) else TEXT, anchor="mm")
        draw_text(d, (120, cy), row.name, 24, TEXT, anchor="lm", max_width=340)
        draw_text(d, (480, cy), title_name(row.title, lang), 22, GOLD, anchor="lm", max_width=190)
        draw_text(d, (770, cy), str(row.skill), 24, TEXT, anchor="rm")
        draw_text(d, (860, cy), str(row.hands), 22, MUTED, anchor="rm")
        color = WIN_GREEN if row.net > 0 else LOSS_RED if row.net < 0 else TEXT
        draw_text(d, (970, cy), signed(row.net), 24, color, anchor="rm")
    return img


def render_leaderboard(rows: Sequence[LeaderboardRow], lang: Lang = "zh", title: str = "") -> bytes:
    """The leaderboard card of a group, rows in the order given, encoded for sendPhoto."""
    return encode(leaderboard_image(rows, lang, title))


def _next_title(skill: int) -> Title | None:
    later = [t for t in TITLES if t.min_skill is not None and t.min_skill > skill]
    return later[0] if later else None


def player_card_image(card: PlayerCard, lang: Lang) -> Image.Image:
    check_lang(lang)
    img = Image.new("RGB", (WIDTH, 720), FELT)
    d = ImageDraw.Draw(img)
    draw_text(d, (30, 50), card.name, 40, TEXT, anchor="lm", max_width=560)
    draw_text(d, (30, 104), title_name(card.title, lang), 30, GOLD, anchor="lm")
    draw_text(d, (WIDTH - 30, 44), f"{text('col_skill', lang)}", 20, MUTED, anchor="rm")
    draw_text(d, (WIDTH - 30, 86), str(card.skill), 44, GOLD, anchor="rm")
    upcoming = _next_title(card.skill)
    if upcoming is not None and upcoming.min_skill is not None:
        note = text("next_title", lang).format(title=title_name(upcoming, lang), n=upcoming.min_skill - card.skill)
        draw_text(d, (WIDTH - 30, 124), note, 18, MUTED, anchor="rm")
    stats = ((text("col_hands", lang), str(card.hands)), (text("wins", lang), str(card.wins)),
             (text("win_rate", lang), f"{card.win_rate:.0%}"), (text("biggest_win", lang), signed(card.biggest_win)))
    box_w = (WIDTH - 60 - 3 * 16) // 4
    for i, (label, value) in enumerate(stats):
        x = 30 + i * (box_w + 16)
        d.rounded_rectangle((x, 150, x + box_w, 250), 14, fill=PANEL)
        draw_text(d, (x + box_w // 2, 180), label, 18, MUTED, anchor="mm")
        draw_text(d, (x + box_w // 2, 222), value, 32, TEXT, anchor="mm")
    d.rounded_rectangle((30, 270, WIDTH - 30, 700), 14, fill=PANEL)
    draw_text(d, (50, 296), text("skill_history", lang), 20, MUTED, anchor="lm")
    _chart(d, card.skill_history or (card.skill,), (100, 330, WIDTH - 60, 670), lang)
    return img


def chart_range(history: Sequence[int]) -> tuple[int, int, int]:
    """(low, high, step): round grid values (1, 2 or 5 × 10^k apart, about four steps) around ``history``."""
    lo, hi = min(history), max(history)
    if hi - lo < 100:  # a flat history still gets a readable scale around it
        lo, hi = (lo + hi) // 2 - 50, (lo + hi) // 2 + 50
    span = hi - lo
    step = 1
    while span / step > 5:
        step = _next_step(step)
    low = (lo // step) * step
    high = max(-(-hi // step) * step, low + step)
    return low, high, step


def _next_step(step: int) -> int:
    """1 → 2 → 5 → 10 → 20 ..."""
    return step * 5 // 2 if str(step)[0] == "2" else step * 2


def chart_points(history: Sequence[int], box: tuple[int, int, int, int]) -> list[tuple[float, float]]:
    """Where each skill value of ``history`` is plotted inside ``box`` (x left to right, higher skill up)."""
    x0, y0, x1, y1 = box
    lo, hi, _ = chart_range(history)
    step = (x1 - x0) / max(1, len(history) - 1)
    return [(x0 + i * step, y1 - (v - lo) / (hi - lo) * (y1 - y0)) for i, v in enumerate(history)]


def _chart(d: ImageDraw.ImageDraw, history: Sequence[int], box: tuple[int, int, int, int], lang: Lang) -> None:
    x0, y0, x1, y1 = box
    lo, hi, step = chart_range(history)

    def y_of(v: int) -> float:
        return y1 - (v - lo) / (hi - lo) * (y1 - y0)

    for v in range(lo, hi + 1, step):  # grid lines with their values
        d.line([(x0, y_of(v)), (x1, y_of(v))], fill=PLATE, width=1)
        draw_text(d, (x0 - 10, y_of(v)), str(v), 15, MUTED, anchor="rm")
    points = chart_points(history, box)
    if len(points) > 1:
        d.polygon([(x0, y1), *points, (points[-1][0], y1)], fill=(30, 90, 110))
    for t in TITLES:  # the title thresholds inside the chart, dashed
        if t.min_skill is not None and lo < t.min_skill < hi:
            y = y_of(t.min_skill)
            for x in range(x0, x1, 16):
                d.line([(x, y), (min(x + 8, x1), y)], fill=GOLD, width=1)
            draw_text(d, (x0 + 6, y - 4), title_name(t, lang), 14, GOLD, anchor="lb")
    if len(points) > 1:
        d.line(points, fill=CHART_LINE, width=4, joint="curve")
    last_x, last_y = points[-1]
    d.ellipse((last_x - 6, last_y - 6, last_x + 6, last_y + 6), fill=GOLD)


def render_player_card(card: PlayerCard, lang: Lang = "zh") -> bytes:
    """A player's card: title, skill, record and the skill-over-time chart, encoded for sendPhoto."""
    return encode(player_card_image(card, lang))
