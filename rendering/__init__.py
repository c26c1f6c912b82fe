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
]
