"""Standings pictures: a group's leaderboard and one player's card with a skill-over-time chart.

The bot fills the plain dataclasses below from storage; titles (RULES.md §10) follow from the skill:

    png = render_leaderboard([LeaderboardRow(1, "Alice", 5120, 42, 2720), ...], "zh", "周五麻将群")
    png = render_player_card(PlayerCard("Alice", 5120, 42, 13, 960, (2400, 2520, ...)), "en")
    stats = CardStats((card.all_time, card.month, card.season), ("", "", card.season_label))  # storage.StatsCard
    png = render_player_card(PlayerCard("Alice", 5120, 42, 13, 960, history, stats=stats), "zh")

With ``stats`` the card grows a panel of figures over all time, this month and this season: rates, average
win and loss, caps, 托管, and how often each pattern was won. Any object with ``StatsFigures``' attributes
serves (storage.stats.PlayerStats does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from PIL import Image, ImageDraw

from game.patterns import PATTERNS
from game.titles import TITLES, Title, title_for
from rendering.draw import (
    DARK,
    FELT,
    GOLD,
    LOSS_RED,
    MUTED,
    PANEL,
    PLATE,
    TEXT,
    WIN_GREEN,
    encode,
    signed,
    stored_palette,
)
from rendering.fonts import draw_text, text_width
from rendering.labels import Lang, check_lang, pattern_name, text

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


class StatsFigures(Protocol):
    """One period's figures, as storage.stats.PlayerStats has them."""

    @property
    def hands(self) -> int: ...
    @property
    def win_rate(self) -> float: ...
    @property
    def self_draw_rate(self) -> float: ...
    @property
    def deal_in_rate(self) -> float: ...
    @property
    def open_rate(self) -> float: ...
    @property
    def average_win(self) -> float: ...
    @property
    def average_loss(self) -> float: ...
    @property
    def biggest_win(self) -> int: ...
    @property
    def hard_wins(self) -> int: ...
    @property
    def capped_wins(self) -> int: ...
    @property
    def golden_wins(self) -> int: ...
    @property
    def tuoguan(self) -> int: ...
    @property
    def patterns(self) -> Mapping[str, int]: ...


@dataclass(frozen=True)
class CardStats:
    periods: tuple[StatsFigures, StatsFigures, StatsFigures]  # all time, this month, this season
    season_label: tuple[str, str, str] = ("", "", "")  # shown under the column headings, e.g. "2026-Q4"


# The figures panel: (中文, English) row labels (characters the bundled font holds) and how to read each.
STATS_LABELS: Final[dict[str, tuple[str, str]]] = {
    "all": ("全部", "All time"),
    "month": ("本月", "Month"),
    "season": ("本季", "Season"),
    "hands": ("局数", "Hands"),
    "win_rate": ("胜率", "Win rate"),
    "self_draw_rate": ("自摸率", "Self-draw rate"),
    "deal_in_rate": ("放冲率", "Deal-in rate"),
    "open_rate": ("开口率", "Open rate"),
    "average_win": ("赢分/胡", "Avg win"),
    "average_loss": ("输分/局", "Avg loss"),
    "biggest_win": ("最大胡", "Biggest win"),
    "hard_wins": ("硬胡", "Hard wins"),
    "capped_wins": ("封顶", "Capped"),
    "golden_wins": ("金顶", "Golden cap"),
    "tuoguan": ("托管次数", "Auto-play"),
}
_RATES: Final = frozenset({"win_rate", "self_draw_rate", "deal_in_rate", "open_rate"})
_SIGNED: Final = frozenset({"average_win", "average_loss", "biggest_win"})
STATS_ROW_H: Final = 30


def stats_label(key: str, lang: Lang) -> str:
    zh, en = STATS_LABELS[key]
    return zh if lang == "zh" else en


def figure(stats: StatsFigures, key: str) -> str:
    """One cell of the panel: a rate as a percentage, points signed, counts plain."""
    value = getattr(stats, key)
    if key in _RATES:
        return f"{value:.0%}"
    if key in _SIGNED:
        return signed(round(value))
    return str(value)


@dataclass(frozen=True)
class PlayerCard:
    name: str
    skill: int
    hands: int
    wins: int
    biggest_win: int  # the most points won in one hand
    skill_history: tuple[int, ...] = ()  # skill after each hand, oldest first
    stats: CardStats | None = None  # the figures panel below the chart

    @property
    def title(self) -> Title:
        return title_for(self.skill)

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0


# Leaderboard columns: label key, right edge (numbers) or left edge (text), alignment.
_COLUMNS: Final = (
    ("col_rank", 70, "mm"),
    ("col_name", 120, "lm"),
    ("col_title", 480, "lm"),
    ("col_skill", 770, "rm"),
    ("col_hands", 860, "rm"),
    ("col_net", 970, "rm"),
)


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
    img = Image.new("RGB", (WIDTH, 720 + (_stats_height() if card.stats else 0)), FELT)
    d = ImageDraw.Draw(img)
    draw_text(d, (30, 50), card.name, 40, TEXT, anchor="lm", max_width=560)
    draw_text(d, (30, 104), title_name(card.title, lang), 30, GOLD, anchor="lm")
    draw_text(d, (WIDTH - 30, 44), f"{text('col_skill', lang)}", 20, MUTED, anchor="rm")
    draw_text(d, (WIDTH - 30, 86), str(card.skill), 44, GOLD, anchor="rm")
    upcoming = _next_title(card.skill)
    if upcoming is not None and upcoming.min_skill is not None:
        note = text("next_title", lang).format(title=title_name(upcoming, lang), n=upcoming.min_skill - card.skill)
        draw_text(d, (WIDTH - 30, 124), note, 18, MUTED, anchor="rm")
    stats = (
        (text("col_hands", lang), str(card.hands)),
        (text("wins", lang), str(card.wins)),
        (text("win_rate", lang), f"{card.win_rate:.0%}"),
        (text("biggest_win", lang), signed(card.biggest_win)),
    )
    box_w = (WIDTH - 60 - 3 * 16) // 4
    for i, (label, value) in enumerate(stats):
        x = 30 + i * (box_w + 16)
        d.rounded_rectangle((x, 150, x + box_w, 250), 14, fill=PANEL)
        draw_text(d, (x + box_w // 2, 180), label, 18, MUTED, anchor="mm")
        draw_text(d, (x + box_w // 2, 222), value, 32, TEXT, anchor="mm")
    d.rounded_rectangle((30, 270, WIDTH - 30, 700), 14, fill=PANEL)
    draw_text(d, (50, 296), text("skill_history", lang), 20, MUTED, anchor="lm")
    _chart(d, card.skill_history or (card.skill,), (100, 330, WIDTH - 60, 670), lang)
    if card.stats is not None:
        _stats_panel(d, card.stats, 720, lang)
    return img


def _stats_height() -> int:
    return (1 + max(len(STATS_LABELS) - 3, len(PATTERNS))) * STATS_ROW_H + 70


def _stats_panel(d: ImageDraw.ImageDraw, stats: CardStats, top: int, lang: Lang) -> None:
    """Two tables side by side, a column per period: the figures on the left, the patterns on the right."""
    d.rounded_rectangle((30, top, WIDTH - 30, top + _stats_height() - 20), 14, fill=PANEL)
    general = [(stats_label(k, lang), [figure(p, k) for p in stats.periods]) for k in list(STATS_LABELS)[3:]]
    patterns = [(pattern_name(k, lang), [str(p.patterns.get(k, 0)) for p in stats.periods]) for k in PATTERNS]
    for x, rows in ((50, general), (WIDTH // 2 + 10, patterns)):
        for i, key in enumerate(("all", "month", "season")):
            cx = x + 260 + i * 70
            draw_text(d, (cx, top + 24), stats_label(key, lang), 17, GOLD, anchor="rm")
            if stats.season_label[i]:
                draw_text(d, (cx, top + 44), stats.season_label[i], 12, MUTED, anchor="rm", max_width=90)
        for r, (label, cells) in enumerate(rows):
            y = top + 70 + r * STATS_ROW_H
            draw_text(d, (x, y), label, 17, MUTED, anchor="lm", max_width=180)
            for i, cell in enumerate(cells):
                draw_text(d, (x + 260 + i * 70, y), cell, 18, TEXT, anchor="rm")


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
    # A card with figures is tall: an adaptive palette of its own would cost most of the 50 ms budget.
    return encode(player_card_image(card, lang), stored_palette("stats_card") if card.stats else None)


def palette_swatch() -> Image.Image:
    """The colours of a card with figures (its felt, panels, chart and anti-aliased text), for its fixed palette
    (rendering.palettes)."""
    sample = _SampleFigures()
    card = PlayerCard("Sample 样本", 5000, 10, 3, 960, (2400, 5000), CardStats((sample, sample, sample), ("Q1",) * 3))
    return player_card_image(card, "zh")


@dataclass(frozen=True)
class _SampleFigures:
    hands: int = 100
    win_rate: float = 0.25
    self_draw_rate: float = 0.4
    deal_in_rate: float = 0.12
    open_rate: float = 0.6
    average_win: float = 120.0
    average_loss: float = -60.0
    biggest_win: int = 960
    hard_wins: int = 3
    capped_wins: int = 2
    golden_wins: int = 1
    tuoguan: int = 0
    patterns: Mapping[str, int] = field(default_factory=lambda: dict.fromkeys(PATTERNS, 8))
