"""Every word the pictures print, in Simplified Chinese and English (RULES.md §13 wording).

``text(key, lang)`` returns the label; ``lang`` is ``"zh"`` or ``"en"``. scripts/make_font_subset.py reads
``all_label_text()`` so the bundled font holds exactly the characters these labels use.

>>> text("laizi", "zh"), text("laizi", "en")
('赖子', 'Wildcard')
>>> text("wall_left", "en").format(n=12)
'12 left'
"""

from __future__ import annotations

from typing import Final, Literal

from game.melds import WinHow
from game.patterns import PATTERNS
from game.scoring import FACTOR_NAMES, REASON_NAMES
from game.tiles import HONOR_CN, HONOR_EN, tile_cn, tile_en
from game.titles import TITLES

Lang = Literal["zh", "en"]
LANGS: Final[tuple[Lang, ...]] = ("zh", "en")

_LABELS: Final[dict[str, tuple[str, str]]] = {
    # the table
    "laizi": ("赖子", "Wildcard"),
    "indicator": ("赖子皮", "Indicator"),
    "wall_left": ("剩 {n} 张", "{n} left"),
    "dealer": ("庄", "Dealer"),
    "ready": ("听", "Ready"),
    "waits": ("听牌提示", "Waiting on"),
    "claimable": ("可以要牌", "You may claim"),  # which claims: the buttons say
    "discarded": ("{name} 打出", "{name} discarded"),
    "hongzhong_gangs": ("红中杠 ×{n}", "Red kong ×{n}"),
    "laizi_gangs": ("赖子杠 ×{n}", "Wild kong ×{n}"),
    "tiles_in_hand": ("{n} 张", "{n} tiles"),
    "spectator": ("观战", "Spectator"),
    "you": ("自己", "You"),
    "prev": ("上家", "Prev"),
    "across": ("对家", "Across"),
    "next": ("下家", "Next"),
    "phase_turn": ("{name} 出牌", "{name} to play"),
    "phase_claim": ("等待吃碰杠胡", "Waiting for claims"),
    "phase_rob": ("抢杠?", "Rob the kong?"),
    "phase_haidi": ("海底", "The last tiles"),
    "phase_over": ("本局结束", "Hand over"),
    # the result
    "win": ("胡", "Win"),
    "how_discard": ("放冲: {name}", "Deal-in: {name}"),
    "how_self_draw": ("自摸", "Self-draw"),
    "how_gang_draw": ("杠上开花", "Win on a kong draw"),
    "how_haidi": ("海底捞", "Last-tile win"),
    "how_rob_gang": ("抢杠: {name}", "Robbing the kong: {name}"),
    "soft": ("软胡", "Soft win"),
    "hard": ("硬胡", "Hard win"),
    "base": ("底分 {n}", "Base {n}"),
    "big_win": ("大胡", "Big win"),
    "small_win": ("屁胡", "Plain win"),
    "cap_capped": ("封顶", "Cap"),
    "cap_golden": ("金顶", "Golden cap"),
    "cap_cap": ("封顶", "cap"),
    "cap_bright": ("光明顶", "bright cap"),
    "total": ("累计 {n}", "Total {n}"),
    "no_factors": ("无翻", "no doubling"),
    "liable": ("承包: {name}", "Liability: {name}"),
    "payments": ("输赢", "Payments"),
    "multipliers": ("倍数", "Multipliers"),
    "exhausted": ("荒庄", "Exhaustive draw"),
    "exhausted_note": ("牌墙摸完，无人胡牌，庄家连庄", "The wall ran out with no winner; the dealer stays"),
    "invalid": ("不算胡", "No valid win"),
    # standings
    "leaderboard": ("排行榜", "Leaderboard"),
    "col_rank": ("名次", "#"),
    "col_name": ("玩家", "Player"),
    "col_title": ("称号", "Title"),
    "col_skill": ("技能值", "Skill"),
    "col_hands": ("局数", "Hands"),
    "col_net": ("净分", "Net"),
    "wins": ("胜局", "Wins"),
    "win_rate": ("胜率", "Win rate"),
    "biggest_win": ("最大胡", "Biggest win"),
    "skill_history": ("技能值走势", "Skill over time"),
    "no_rows": ("暂无战绩", "No hands played yet"),
    "next_title": ("距 {title} 还差 {n}", "{n} to {title}"),
}

_HOW_KEYS: Final[dict[WinHow, str]] = {
    "discard": "how_discard",
    "self_draw": "how_self_draw",
    "gang_draw": "how_gang_draw",
    "haidi": "how_haidi",
    "rob_gang": "how_rob_gang",
}

# Seat winds by seat (RULES.md §2: seats 0–3 are 东南西北).
_WINDS_EN_SHORT: Final = ("E", "S", "W", "N")


def check_lang(lang: str) -> None:
    """ValueError unless ``lang`` is one the pictures speak (checked before any drawing starts)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use 'zh' or 'en'")


def text(key: str, lang: Lang) -> str:
    """The label ``key`` in ``lang``; KeyError for an unknown key, ValueError for an unknown language."""
    check_lang(lang)
    zh, en = _LABELS[key]
    return zh if lang == "zh" else en


def how_text(how: WinHow, lang: Lang, name: str = "") -> str:
    return text(_HOW_KEYS[how], lang).format(name=name)


def seat_wind(seat: int, lang: Lang) -> str:
    return HONOR_CN[seat] if lang == "zh" else _WINDS_EN_SHORT[seat]


def pattern_name(pattern_id: str, lang: Lang) -> str:
    p = PATTERNS[pattern_id]
    return p.zh if lang == "zh" else p.en


def all_label_text() -> str:
    """Every fixed string a picture may print, for the font subset."""
    parts = [zh + en for zh, en in _LABELS.values()]
    parts += [p.zh + p.en for p in PATTERNS.values()]
    parts += [t.zh + t.en for t in TITLES]
    parts += [tile_cn(t) + tile_en(t) for t in range(34)]
    parts += list(HONOR_CN) + list(HONOR_EN)
    parts += [zh + en for zh, en in (*FACTOR_NAMES.values(), *REASON_NAMES.values())]
    return "".join(parts)
