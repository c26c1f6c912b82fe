"""The player card with its statistics panel: storage's figures drawn as they are, in both languages, fast."""

from __future__ import annotations

import dataclasses
import io
import time

from PIL import Image

from game.patterns import PATTERNS
from rendering.fonts import coverage
from rendering.standings_cards import STATS_LABELS, CardStats, PlayerCard, figure, player_card_image, render_player_card
from storage.stats import PlayerStats


def stats(hands: int) -> PlayerStats:
    return PlayerStats(
        hands=hands, wins=hands // 4, self_draws=hands // 10, deal_ins=hands // 8, deal_in_known=hands,
        opened=hands // 2, open_known=hands, losses=hands // 2, win_points=hands * 40, loss_points=-hands * 25,
        biggest_win=960, hard_wins=3, capped_wins=2, golden_wins=1, tuoguan=4,
        patterns={p: i for i, p in enumerate(PATTERNS)},
    )  # fmt: skip


def test_the_card_grows_a_stats_panel_in_both_languages() -> None:
    card = PlayerCard("Alice", 5120, 400, 100, 960, (2400, 2600, 5120))
    with_stats = dataclasses.replace(card, stats=CardStats((stats(400), stats(40), stats(120)), ("", "", "2026-Q4")))
    plain = player_card_image(card, "zh")
    for lang in ("zh", "en"):
        img = Image.open(io.BytesIO(render_player_card(with_stats, lang)))
        assert img.width == plain.width and img.height > plain.height
    assert figure(stats(400), "win_rate") == "25%" and figure(stats(400), "average_loss") == "-50"
    assert figure(stats(0), "self_draw_rate") == "0%"
    start = time.perf_counter()
    for _ in range(5):
        render_player_card(with_stats, "zh")
    assert (time.perf_counter() - start) / 5 < 0.05 * 3  # 50 ms budget, with room for a loaded machine


def test_stats_labels_are_in_the_bundled_font() -> None:
    charset = {chr(c) for mapped in coverage().values() for c in mapped}  # what some bundled font draws
    used = "".join(zh + en for zh, en in STATS_LABELS.values())
    assert {c for c in used if not c.isspace()} <= charset
