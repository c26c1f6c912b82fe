"""The player card with its statistics panel: storage's figures drawn as they are, in both languages."""

from __future__ import annotations

import io

from PIL import Image

from rendering.fonts import coverage
from rendering.standings_cards import STATS_LABELS, figure, player_card_image, render_player_card
from tests.rendering.scenes import CARD, CARD_WITH_STATS, player_stats


def test_the_card_grows_a_stats_panel_in_both_languages() -> None:
    """(How fast it is drawn: bench/render.py's stats_card_ms_median.)"""
    plain = player_card_image(CARD, "zh")
    for lang in ("zh", "en"):
        img = Image.open(io.BytesIO(render_player_card(CARD_WITH_STATS, lang)))
        assert img.width == plain.width and img.height > plain.height
    assert figure(player_stats(400), "win_rate") == "25%" and figure(player_stats(400), "average_loss") == "-50"
    assert figure(player_stats(0), "self_draw_rate") == "0%"


def test_stats_labels_are_in_the_bundled_font() -> None:
    charset = {chr(c) for mapped in coverage().values() for c in mapped}  # what some bundled font draws
    used = "".join(zh + en for zh, en in STATS_LABELS.values())
    assert {c for c in used if not c.isspace()} <= charset
