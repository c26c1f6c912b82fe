"""Result, 荒庄 and standings pictures from hand-built data (RULES.md §12 example C)."""

from __future__ import annotations

import dataclasses
import io

import pytest
from PIL import Image

from game.rules import Rules
from game.tiles import parse_tile, tile_label
from game.titles import title_for
from rendering.labels import LANGS, Lang, text
from rendering.result import (
    _factor_lines,
    exhausted_image,
    render_exhausted,
    render_result,
    result_image,
    winner_spots,
)
from rendering.standings_cards import (
    LeaderboardRow,
    PlayerCard,
    chart_points,
    chart_range,
    leaderboard_image,
    player_card_image,
    render_leaderboard,
    render_player_card,
)
from tests.game.test_table import THROW_HANDS, THROW_SCRIPT, layout, play
from tests.rendering.scenes import NAMES, example_c, make_view, shows

P = parse_tile


def test_result_shows_the_winning_hand_with_the_winning_tile_apart() -> None:
    view = example_c()
    assert view.result is not None and view.result.cap == "golden" and view.result.liable == 2
    img = result_image(view, NAMES, "zh", win_tile=P("4z"), totals=(0, 0, -1200, 1200))
    spots, win_spot = winner_spots(view, P("4z"))
    assert win_spot is not None and win_spot.tile == P("4z") and win_spot.x > spots[0].box[2]
    assert [s.tile for s in spots[:2]] == [P("4z"), P("4z")]
    assert all(shows(img, s) for s in (spots[0], win_spot))
    # the 暗杠 is shown face up in the middle once the hand is over
    assert P("5z") in {s.tile for s in spots[2:]}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_result_and_exhausted_encode_for_telegram(lang: Lang) -> None:
    for data in (
        render_result(example_c(), NAMES, lang, P("4z")),
        render_exhausted(dataclasses.replace(example_c(), result=None, exhausted=True), NAMES, lang),
    ):
        img = Image.open(io.BytesIO(data))
        assert img.format == "PNG" and img.width + img.height <= 10000 and len(data) < 1024 * 1024


def test_result_refuses_views_that_are_not_over() -> None:
    with pytest.raises(ValueError, match="not over"):
        result_image(make_view(0), NAMES)
    with pytest.raises(ValueError, match="not won"):
        result_image(make_view(None, over=True), NAMES)
    with pytest.raises(ValueError, match="荒庄"):
        exhausted_image(make_view(None, over=True), NAMES)


def test_leaderboard_grows_with_its_rows_and_titles_follow_skill() -> None:
    rows = [LeaderboardRow(i + 1, f"P{i}", 5000 - 900 * i, 10 + i, 300 - 200 * i) for i in range(6)]
    assert rows[0].title == title_for(5000) and rows[-1].title.zh == title_for(500).zh
    one, six = leaderboard_image(rows[:1], "zh", "群"), leaderboard_image(rows, "en", "Friday")
    assert one.width == six.width and six.height > one.height
    assert leaderboard_image([], "zh", "").height == one.height  # an empty board says so in one row
    assert Image.open(io.BytesIO(render_leaderboard(rows, "zh", "周五麻将群"))).format == "PNG"


def test_player_card_record_and_chart() -> None:
    history = (2400, 2600, 2300, 4100, 3900)
    card = PlayerCard("王小明", 3900, 5, 2, 1200, history)
    assert card.win_rate == 0.4 and card.title.zh == "本科生"
    assert PlayerCard("new", 2400, 0, 0, 0).win_rate == 0.0
    low, high, step = chart_range(history)
    assert low <= 2300 and high >= 4100 and (high - low) % step == 0
    box = (100, 330, 940, 670)
    points = chart_points(history, box)
    assert [x for x, _ in points] == sorted(x for x, _ in points)
    assert min(points, key=lambda p: p[1])[0] == points[3][0]  # the highest skill is drawn highest
    assert all(box[1] <= y <= box[3] for _, y in points)
    for lang in LANGS:
        assert player_card_image(card, lang).size == (1000, 720)
    assert Image.open(io.BytesIO(render_player_card(PlayerCard("new", 2400, 0, 0, 0)))).format == "PNG"


@pytest.mark.parametrize("lang", LANGS)
def test_result_lines_wrap_and_are_never_cut_and_tiles_are_named_in_words(
    lang: Lang, drawn: list[tuple[str, str]]
) -> None:
    view = example_c()
    s = view.result
    assert s is not None
    result_image(view, NAMES, lang, win_tile=P("4z"), totals=(0, 0, -1200, 1200))
    texts = [t for t, _ in drawn]
    assert not [t for t in texts if t.endswith("…")]
    shown = " ".join(texts)
    for seat in range(4):
        score = s.seats[seat]
        if seat != s.winner and score.cap is not None:
            assert f"→ {text('cap_' + score.cap, lang)} {score.owed}" in shown
    assert tile_label(P("4z"), lang) in shown and "4z" not in shown


@pytest.mark.parametrize(
    ("thrown", "zh", "en"), [("7z", "打红中 ×2", "thrown red dragon ×2"), ("2z", "丢赖子 ×2", "thrown wildcard ×2")]
)
def test_the_multiplier_lines_name_a_thrown_hongzhong_or_laizi(thrown: str, zh: str, en: str) -> None:
    hand = layout(0, THROW_HANDS, head="9s9p", indicator="1z", rules=Rules(min_payment=0), pad=40)
    play(hand, *THROW_SCRIPT, f"2 discard {thrown}", "3 discard 5m", "1 hu")
    s = hand.view(None).result
    assert s is not None
    assert _factor_lines(s, 2, "zh")[0].startswith(zh)
    assert _factor_lines(s, 2, "en")[0].startswith(en)
    assert result_image(hand.view(None), NAMES, "en", parse_tile("5m")).width > 0
