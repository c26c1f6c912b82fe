"""What /me, /top, /rank and /history show: the player card, the leaderboard, the titles, a hand's replay.

A replay is a finished hand's events seen from one seat (their own draws; never another seat's hidden tiles),
then every hand as revealed at the end and the payments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC
from typing import Final

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import replay_data, standings_data
from bot.i18n import pick, t
from bot.outbox import Content
from bot.views.game_views import picture_lang
from bot.views.rows import rows_by_width
from game.patterns import PATTERNS
from game.rating import MIN_RATED_MATCHES, Rating
from game.table import Event, Hand
from game.tiles import parse_tile, parse_tiles, tile_label, tiles_label
from game.titles import TITLES, title_for
from rendering.standings_cards import CardStats, LeaderboardRow, PlayerCard, render_leaderboard, render_player_card
from storage.ratings import RatedPlayer
from storage.standings import HistoryEntry, LeaderboardEntry
from storage.standings import PlayerCard as CardData
from storage.stats import PatternBoardEntry, StatsCard

PERIODS: Final = ("week", "month", "season", "all")
MAX_TEXT: Final = 4000  # a Telegram message holds 4096 characters


def _pattern(pattern_id: str, lang: str) -> str:
    p = PATTERNS.get(pattern_id)
    return pattern_id if p is None else pick(p, lang)


def card_content(card: CardData, stats: StatsCard, lang: str) -> Content:
    """The player card: title, skill, record, skill over time and the statistics panel."""
    p = card.player
    figures = CardStats((stats.all_time, stats.month, stats.season), ("", "", stats.season_label))
    picture = PlayerCard(
        p.display_name,
        p.skill,
        p.hands,
        p.wins,
        p.biggest_win,
        tuple(point.skill for point in card.skill_history),
        stats=figures,
    )
    record = (
        t("me_record", lang, hands=p.hands, wins=p.wins, rate=round(100 * p.win_rate), best=p.biggest_win)
        if p.hands
        else t("me_no_hand", lang)  # not "best hand +0"
    )
    caption = t("me_caption", lang, name=p.display_name, title=pick(p.title, lang), skill=p.skill, record=record)
    return Content(caption, render=lambda: render_player_card(picture, picture_lang(lang)))


def board_content(
    entries: Sequence[LeaderboardEntry],
    lang: str,
    title: str,
    caption: str | None = None,
    markup: InlineKeyboardMarkup | None = None,
) -> Content:
    """A leaderboard picture (a group's, a league night's or a season's) headed ``title``."""
    rows = [LeaderboardRow(e.rank, e.display_name, e.skill, e.hands, e.points) for e in entries]
    return Content(caption or title, markup, render=lambda: render_leaderboard(rows, picture_lang(lang), title))


def top_content(entries: Sequence[LeaderboardEntry], group_title: str, period: str, lang: str) -> Content:
    buttons = [
        InlineKeyboardButton(
            ("✓ " if p == period else "") + t(f"top_period_{p}", lang), callback_data=standings_data("top", p)
        )
        for p in PERIODS
    ]
    caption = t("top_caption", lang, period=t(f"top_period_{period}", lang), count=len(entries))
    heading = f"{group_title} · {t(f'top_period_{period}', lang)}"
    return board_content(entries, lang, heading, caption, InlineKeyboardMarkup(rows_by_width(buttons)))


def pattern_board_text(entries: Sequence[PatternBoardEntry], pattern: str, lang: str) -> str:
    """Who in the group won most often with one pattern (or hard wins)."""
    name = t("stats_hard", lang) if pattern == "hard" else _pattern(pattern, lang)
    if not entries:
        return t("top_pattern_none", lang, pattern=name)
    lines = "\n".join(
        t("top_pattern_line", lang, rank=e.rank, name=e.display_name, times=e.times, wins=e.wins) for e in entries
    )
    return t("top_pattern", lang, pattern=name, lines=lines)


def rank_text(skill: int, lang: str) -> str:
    mine = title_for(skill)
    lines = []
    for title in TITLES:
        threshold = t("rank_below_zero", lang) if title.min_skill is None else f"≥ {title.min_skill}"
        lines.append(("👉 " if title == mine else "   ") + f"{pick(title, lang)}  {threshold}")
    return t("rank_text", lang, skill=skill, lines="\n".join(lines))


def history_text(entries: Sequence[HistoryEntry], lang: str) -> str:
    if not entries:
        return t("history_none", lang)
    lines = []
    for n, e in enumerate(entries, 1):
        when = e.ended_at.astimezone(UTC).strftime("%m-%d %H:%M")
        if e.won:
            outcome = " · ".join(_pattern(p, lang) for p in (e.summary or {}).get("patterns", ()))
        elif e.winner is None:
            outcome = t("history_exhausted", lang)
        else:
            outcome = t("history_lost", lang, wind=t(f"wind_{e.winner}", lang))
        lines.append(
            t(
                "history_line",
                lang,
                n=n,
                when=when,
                wind=t(f"wind_{e.seat}", lang),
                points=f"{e.points:+d}",
                outcome=outcome,
            )
            + (f" · {e.share_code}" if e.share_code else "")
        )
    return t("history_text", lang, lines="\n".join(lines))


def history_markup(entries: Sequence[HistoryEntry]) -> InlineKeyboardMarkup | None:
    """A ▶ button per hand: the step-by-step picture replay (by share code), else the text log."""
    buttons = [
        InlineKeyboardButton(
            f"▶ {n}",
            callback_data=replay_data(e.share_code, 0, None) if e.share_code else standings_data("h", e.hand_id),
        )
        for n, e in enumerate(entries, 1)
    ]
    return InlineKeyboardMarkup(rows_by_width(buttons)) if buttons else None


def replay_text(hand: Hand, viewer: int | None, names: Sequence[str], number: int, lang: str) -> str:
    """A finished hand as readable lines, seen from ``viewer``'s seat (None: as a spectator): the seats named
    once under the head, then each seat by its wind (a long name on every line would bury the play)."""

    def seat(s: int) -> str:
        return t(f"wind_{s}", lang)

    lines = [
        t(
            "replay_head",
            lang,
            number=number,
            dealer=seat(hand.dealer),
            laizi=tile_label(hand.laizi, lang),
            indicator=tile_label(hand.indicator, lang),
            preset=t(f"value_preset_{hand.rules.preset}", lang),
        ),
        " · ".join(f"{seat(s)} {name}" for s, name in enumerate(names)),
    ]
    for event in hand.log:
        line = _event_line(event.for_seat(viewer), viewer, seat, lang)
        if line:
            lines.append(line)
    revealed = hand.view(viewer).revealed or ()
    lines += [
        t("replay_revealed", lang, seat=seat(s), tiles=tiles_label(tiles, lang)) for s, tiles in enumerate(revealed)
    ]
    payments = hand.result.payments if hand.result is not None else (0, 0, 0, 0)
    lines.append(t("replay_payments", lang, payments=" · ".join(f"{seat(s)} {p:+d}" for s, p in enumerate(payments))))
    return "\n".join(lines)


def _event_line(e: Event, viewer: int | None, seat: Callable[[int], str], lang: str) -> str | None:
    data = e.data

    def tile(raw: str) -> str:
        return tile_label(parse_tile(raw), lang)

    if e.kind == "deal":
        if "hand" not in data or e.seat != viewer:
            return None
        return t("replay_deal", lang, tiles=tiles_label(parse_tiles(data["hand"]), lang))
    if e.kind in ("draw", "haidi"):
        if "tile" not in data or e.seat is None:
            return None  # another seat's draw: nothing to see
        return t(f"replay_{e.kind}", lang, seat=seat(e.seat), tile=tile(data["tile"]))
    if e.kind == "pass" or (e.seat is None and e.kind != "exhausted"):
        return None
    if e.kind == "exhausted":
        return t("replay_exhausted", lang)
    assert e.seat is not None
    if e.kind == "win":
        patterns = " · ".join(_pattern(p, lang) for p in data.get("settlement", {}).get("patterns", ()))
        return t(
            "replay_win",
            lang,
            seat=seat(e.seat),
            tile=tile(data["tile"]),
            how=t(f"how_{data['how']}", lang),
            patterns=patterns,
        )
    shown_tile = tile(data["tile"]) if "tile" in data else "?"
    giver = seat(data["from"]) if data.get("from") is not None else ""
    return t(f"replay_{e.kind}", lang, seat=seat(e.seat), tile=shown_tile, giver=giver)


def chunks(text: str, size: int = MAX_TEXT) -> list[str]:
    """Whole lines packed into messages of at most ``size`` characters."""
    out: list[str] = []
    for line in text.split("\n"):
        if out and len(out[-1]) + 1 + len(line) <= size:
            out[-1] += "\n" + line
        else:
            out.append(line[:size])
    return out


def _rating_fields(rating: Rating) -> dict[str, str]:
    return {"mu": f"{rating.mu:.1f}", "low": f"{rating.low:.1f}", "high": f"{rating.high:.1f}"}


def rating_text(rated: RatedPlayer | None, lang: str) -> str:
    """/me's line on the rating across all play: its value, its likely range and the place among everyone."""
    if rated is None:
        return t("rating_none", lang)
    return t("rating_line", lang, place=rated.place, matches=rated.matches, **_rating_fields(rated.rating))


def global_top_text(best: list[RatedPlayer], lang: str) -> str:
    """/top global: the best ratings among those with at least MIN_RATED_MATCHES rated matches."""
    if not best:
        return t("top_global_empty", lang, n=MIN_RATED_MATCHES)
    rows = [
        t("top_global_row", lang, place=r.place, name=r.name, matches=r.matches, **_rating_fields(r.rating))
        for r in best
    ]
    return "\n".join([t("top_global_title", lang, n=MIN_RATED_MATCHES), *rows])
