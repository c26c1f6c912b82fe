"""Pillow pictures for the bot: tiles, the table (private and spectator), results, standings.

Every ``render_*`` function except ``render_tile`` returns PNG bytes ready for Telegram's sendPhoto;
``lang`` is "zh" (Simplified Chinese) or "en". Glyphs come from the bundled fonts only (rendering.fonts:
Noto Sans CJK SC first, then fallbacks for other scripts and emoji), so any name draws the same everywhere.

    from rendering import render_table_view, render_spectator_view, render_result, render_exhausted
    photo = render_table_view(hand.view(seat), names, scores, "zh")

``python -m rendering.gallery build/gallery`` writes one of each picture from real engine states.
"""

from rendering.result import render_exhausted, render_result
from rendering.standings_cards import LeaderboardRow, PlayerCard, render_leaderboard, render_player_card
from rendering.table_picture import render_spectator_view, render_table_view
from rendering.tile_faces import render_tile, tile_dims


def warm_up() -> None:
    """Draw one table picture and throw it away: the fonts, glyph caches and the table's palette load now (about
    a tenth of a second), not when the first player of a process waits for their first picture."""
    from game.match import Match
    from game.rules import Rules

    hand = Match(Rules(), 1).new_hand(1)
    render_table_view(hand.view(0), ["东 王小明🀄", "Ольга", "Bob", "谢霆锋"], [0, 0, 0, 0], "zh")


__all__ = [
    "LeaderboardRow",
    "PlayerCard",
    "render_exhausted",
    "render_leaderboard",
    "render_player_card",
    "render_result",
    "render_spectator_view",
    "render_table_view",
    "render_tile",
    "tile_dims",
    "warm_up",
]
