"""The review of one player's hand as a picture: how often they agreed with the search, the expected points
their choices lost, each decision that mattered in one line (what they played, its rank among the legal
moves ``#k/N``, the points it gave up, what was better), and the three costliest decisions — the position as
they saw it, what they played, what was better, by how much.

    png = render_review(review, names, "zh")        # review: game.review.HandReview
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from PIL import Image, ImageDraw

from game.actions import Action
from game.review import DecisionReview, HandReview
from game.tiles import rank_of, tile_label
from rendering.draw import FELT, GOLD, LOSS_RED, MUTED, TEXT, encode
from rendering.fonts import draw_text
from rendering.labels import Lang, check_lang
from rendering.table_picture import table_image

WIDTH: Final = 720
HEADER_H: Final = 150
LINE_H: Final = 34  # a decision that mattered, one line each under the header
SCALE: Final = 0.6  # each position at 432 px: the tiles still readable on a phone
GAP: Final = 24
LABELS: Final[dict[str, tuple[str, str]]] = {
    "title": ("复盘", "Review"),
    "agreement": ("与推荐一致 {pct}%", "Agreed with the search {pct}%"),
    "loss": ("期望少得 {points} 分 · {n} 个决定", "Expected points lost {points} · {n} decisions"),
    "played": ("你的选择", "Your move"),
    "better": ("更好", "Better"),
    "cost": ("少得 {points} 分", "cost {points}"),
    "rank": ("排第 {rank}/{options}", "#{rank}/{options}"),
    "line": (
        "{n}. {played} 排第 {rank}/{options} · 少得 {points} 分 · 更好: {best}",
        "{n}. {played} #{rank}/{options} · cost {points} · better: {best}",
    ),
    "none": ("这一局没有可复盘的决定", "No decision to review in this hand"),
    "pass": ("过", "pass"),
    "hu": ("胡", "win"),
    "discard": ("打", "discard"),
    "chi": ("吃", "chow"),
    "peng": ("碰", "pung"),
    "chong_gang": ("冲杠", "kong"),
    "an_gang": ("暗杠", "concealed kong"),
    "xu_gang": ("蓄杠", "added kong"),
    "hongzhong_gang": ("红中杠", "red-dragon kong"),
    "laizi_gang": ("赖子杠", "wildcard kong"),
}


def _label(key: str, lang: Lang) -> str:
    return LABELS[key][lang == "en"]


def action_words(action: Action, lang: Lang) -> str:
    """An action in words: 打 五万, 碰 东, 吃 三四五条, 过."""
    words = _label(action.kind, lang)
    if action.tile is None:
        return words
    if action.kind == "chi":  # 吃 345条 / chow 345 Bamboo
        ranks = "".join(str(rank_of(action.tile) + k) for k in range(3))
        named = tile_label(action.tile, lang)
        return f"{words} {ranks} {named.split()[-1]}" if lang == "en" else f"{words} {ranks}{named[-1]}"
    return f"{words} {tile_label(action.tile, lang)}"


def _block(decision: DecisionReview, names: Sequence[str], lang: Lang) -> Image.Image:
    position = table_image(decision.view, names, (0, 0, 0, 0), lang)
    small = position.resize((round(position.width * SCALE), round(position.height * SCALE)), Image.Resampling.LANCZOS)
    block = Image.new("RGB", (WIDTH, small.height), FELT)
    block.paste(small, (0, 0))
    d = ImageDraw.Draw(block)
    x, text_w = small.width + 16, WIDTH - small.width - 24
    lines = [(_label("played", lang), MUTED, 22), (action_words(decision.played, lang), TEXT, 28),
             (_label("rank", lang).format(rank=decision.rank, options=decision.options), TEXT, 24),
             (_label("better", lang), MUTED, 22), (action_words(decision.best, lang), GOLD, 28),
             (_label("cost", lang).format(points=round(decision.loss)), LOSS_RED, 26)]  # fmt: skip
    y = 40
    for text, color, size in lines:
        draw_text(d, (x, y), text, size, color, max_width=text_w)
        y += size + 16
    return block


def mattered(review: HandReview) -> list[tuple[int, DecisionReview]]:
    """The decisions where another move did better on the search's worlds: (number in the hand, decision)."""
    return [(n, d) for n, d in enumerate(review.decisions, 1) if d.loss > 0]


def decision_line(n: int, d: DecisionReview, lang: Lang) -> str:
    """One decision that mattered, in words: 3. 打 五万 排第 4/11 · 少得 12 分 · 更好: 打 九条."""
    played, best = action_words(d.played, lang), action_words(d.best, lang)
    return _label("line", lang).format(
        n=n, played=played, rank=d.rank, options=d.options, points=round(d.loss), best=best
    )


def render_review(review: HandReview, names: Sequence[str], lang: Lang = "zh") -> bytes:
    check_lang(lang)
    blocks = [_block(d, names, lang) for d in review.costliest if d.loss > 0]
    lines = [decision_line(n, d, lang) for n, d in mattered(review)]
    header = HEADER_H + LINE_H * len(lines)
    height = header + sum(b.height + GAP for b in blocks) + (60 if not blocks else 0)
    img = Image.new("RGB", (WIDTH, height), FELT)
    d = ImageDraw.Draw(img)
    draw_text(d, (24, 20), _label("title", lang), 40, GOLD)
    draw_text(d, (24, 76), _label("agreement", lang).format(pct=round(100 * review.agreement)), 28, TEXT)
    loss = _label("loss", lang).format(points=round(review.total_loss), n=len(review.decisions))
    draw_text(d, (24, 112), loss, 24, MUTED, max_width=WIDTH - 48)
    for k, line in enumerate(lines):
        draw_text(d, (24, HEADER_H + k * LINE_H), line, 22, TEXT, max_width=WIDTH - 48)
    y = header
    for block in blocks:
        img.paste(block, (0, y))
        y += block.height + GAP
    if not blocks:
        draw_text(d, (24, header + 10), _label("none", lang), 26, TEXT)
    return encode(img)
