"""The table pictures, checked by where each tile is drawn (crops compared with render_tile's own output)."""

from __future__ import annotations

import dataclasses
import io
import itertools
import re

import pytest
from PIL import Image

from game.melds import Meld
from game.tiles import HIDDEN, HONGZHONG, parse_tile
from rendering.draw import DEALER_RED
from rendering.fonts import text_width
from rendering.labels import Lang
from rendering.table_picture import (
    GANG_FONT,
    WIDTH,
    gang_counts,
    render_spectator_view,
    render_table_view,
    table_image,
    table_layout,
)
from rendering.tile_faces import render_tile
from tests.rendering.scenes import HANDS, LAIZI, MELDS, NAMES, RIVERS, SCORES, late_view, make_view, shows, uncovered


def test_own_hand_is_drawn_sorted_at_the_layout_spots_with_the_drawn_tile_apart() -> None:
    drawn = parse_tile("9p")
    view = make_view(0, drawn=drawn)
    img = table_image(view, NAMES, SCORES, "zh")
    lay = table_layout(view, "zh")
    spots = lay.hands[0]
    assert [s.tile for s in spots] == [*HANDS[0], drawn]
    assert all(shows(img, s) for s in spots)
    assert lay.drawn == spots[-1]
    gaps = [b.x - a.box[2] for a, b in itertools.pairwise(spots)]
    assert gaps[:-1] == [0] * (len(spots) - 2) and gaps[-1] > 0
    assert min(s.size for s in spots) > max(s.size for seat in (1, 2, 3) for s in lay.hands[seat])


def test_laizi_is_marked_wherever_it_appears() -> None:
    view = make_view(0)
    img = table_image(view, NAMES, SCORES, "zh")
    lay = table_layout(view, "zh")
    laizi_spots = [s for s in lay.all_spots() if s.tile == LAIZI]
    assert {s.laizi for s in laizi_spots} == {True}
    assert len(laizi_spots) >= 3  # own hand, seat 1's river, the 赖子 shown in the middle
    for spot in laizi_spots:  # spot.image(): the tile with the 赖子's mark (and, thrown into a river, a bar)
        assert shows(img, spot)
        assert not shows(img, spot, render_tile(LAIZI, spot.size, rotated=spot.rotated))


def test_a_thrown_hongzhong_or_laizi_in_a_river_is_marked() -> None:
    # Seat 1's river holds the 赖子 (a 丢赖子); give seat 3's river a thrown 红中 too: both carry the red bar,
    # no other river tile does.
    base = make_view(0)
    rivers = list(base.rivers)
    rivers[3] = (*rivers[3], HONGZHONG)
    view = dataclasses.replace(base, rivers=tuple(rivers))
    img = table_image(view, NAMES, SCORES, "en")
    lay = table_layout(view, "en")
    spots = [s for river in lay.rivers for s in river]
    thrown = [s for s in spots if s.thrown]
    assert sorted(s.tile for s in thrown) == sorted([LAIZI, HONGZHONG])
    for spot in spots:
        x0, _, x1, y1 = spot.box
        foot = img.getpixel(((x0 + x1) // 2, y1 - 2))
        assert (foot == DEALER_RED) is spot.thrown, spot
        assert shows(img, spot)  # the tile itself is drawn whole above its bar


def test_melds_rivers_claimable_and_waits_are_drawn() -> None:
    view = make_view(0)
    img = table_image(view, NAMES, SCORES, "en")
    lay = table_layout(view, "en")
    for seat in range(4):
        assert [s.tile for s in lay.rivers[seat]] == RIVERS[seat]
        assert all(shows(img, s) for s in uncovered(lay.rivers[seat] + lay.melds[seat]))
    # the claimed tile of each meld lies on its side; seat 2's 暗杠 shows backs only to seat 0
    assert [s.rotated for s in lay.melds[0]] == [True, False, False]
    assert {s.tile for s in lay.melds[2][3:]} == {HIDDEN}
    assert lay.latest_discard == lay.rivers[2][-1]
    # the giver of the viewer's peng (seat 3, 上家) is named above its claimed tile
    turned = lay.melds[0][0].box
    assert [(m.seat, turned[0] < m.x < turned[2], m.y < turned[1]) for m in lay.feeders if m.y > lay.frame.own[1]] == [
        (3, True, True)
    ]
    assert lay.claimable is not None and lay.claimable.tile == parse_tile("8m") and shows(img, lay.claimable)
    assert [s.tile for s in lay.waits] == list(view.waits) and all(shows(img, s) for s in lay.waits)


def test_no_hidden_tile_of_another_seat_leaks_into_a_private_picture() -> None:
    own_faces = {t for t in HANDS[1]} | {MELDS[2][1].tile}
    for viewer in (0, 2, 3):
        view = make_view(viewer)
        img = table_image(view, NAMES, SCORES, "zh")
        lay = table_layout(view, "zh")
        assert [s.tile for s in lay.hands[1]] == [HIDDEN] * len(HANDS[1])
        for spot in lay.hands[1]:
            assert shows(img, spot)
            assert not any(shows(img, spot, render_tile(t, spot.size)) for t in own_faces)
    # ...while seat 1's own picture shows exactly those faces at its own hand
    view1 = make_view(1)
    lay1 = table_layout(view1, "zh")
    img1 = table_image(view1, NAMES, SCORES, "zh")
    assert [s.tile for s in lay1.hands[1]] == list(HANDS[1]) and all(shows(img1, s) for s in lay1.hands[1])


def test_spectator_picture_shows_only_backs_for_hands_and_concealed_kongs() -> None:
    view = make_view(None)
    img = table_image(view, NAMES, SCORES, "zh")
    lay = table_layout(view, "zh")
    for seat in range(4):
        assert [s.tile for s in lay.hands[seat]] == [HIDDEN] * len(HANDS[seat])
        assert all(shows(img, s) for s in lay.hands[seat])
    assert {s.tile for s in lay.melds[2][3:]} == {HIDDEN}
    assert lay.claimable is None and lay.waits == [] and lay.drawn is None


def test_hands_are_shown_once_the_hand_is_over() -> None:
    view = make_view(None, over=True)
    lay = table_layout(view, "en")
    img = table_image(view, NAMES, SCORES, "en")
    for seat in range(4):
        assert sorted(s.tile for s in lay.hands[seat]) == sorted(HANDS[seat])
        assert all(shows(img, s) for s in lay.hands[seat])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_encoded_pictures_fit_telegram(lang: Lang) -> None:
    for view in (make_view(0, parse_tile("9p")), make_view(None), late_view(0), late_view(None)):
        render = render_table_view if view.seat is not None else render_spectator_view
        data = render(view, NAMES, SCORES, lang)
        img = Image.open(io.BytesIO(data))
        assert img.format == "PNG" and img.size == table_layout(view, lang).size
        assert img.width == WIDTH and img.height > img.width  # portrait: Telegram shows it large on a phone
        assert len(data) < 60 * 1024


def test_wrong_view_kind_or_player_lists_are_refused() -> None:
    with pytest.raises(ValueError, match="spectator"):
        render_table_view(make_view(None), NAMES, SCORES)
    with pytest.raises(ValueError, match="spectator"):
        render_spectator_view(make_view(0), NAMES, SCORES)
    with pytest.raises(ValueError, match="4 each"):
        render_table_view(make_view(0), NAMES[:3], SCORES)


@pytest.mark.parametrize("seat", [0, None])
def test_tiles_drawn_are_readable_on_a_phone_720_px_wide(seat: int | None) -> None:
    view = late_view(seat)
    lay = table_layout(view, "en")
    img = table_image(view, NAMES, SCORES, "en")
    rivers = [s for river in lay.rivers for s in river]
    assert len(rivers) == sum(len(r) for r in view.rivers) >= 78
    assert all(shows(img, s) for s in uncovered(rivers))  # measured where they were really drawn
    assert min(lay.shown_width(s) for s in rivers) >= 24
    if seat is not None:
        hand = lay.hands[seat]
        assert len(hand) == len(HANDS[seat]) and all(shows(img, s) for s in hand)
        assert min(lay.shown_width(s) for s in hand) >= 44
    # the tile on the table is shown large and framed in its river, and the seat to act is outlined
    big = lay.claimable if seat is not None else lay.discard_shown
    assert big is not None and big.tile == view.rivers[2][-1] and lay.shown_width(big) >= 50
    assert lay.latest_discard == lay.rivers[2][-1]


def test_tiles_never_run_outside_their_panel_even_with_four_melds_each() -> None:
    four = tuple(
        Meld("chong_gang" if i % 2 else "peng", (parse_tile(t),), 3) for i, t in enumerate(("1z", "2z", "3z", "4z"))
    )
    for view in (late_view(0), late_view(None)):
        crowded = dataclasses.replace(view, melds=(view.melds[0], four, four, four), hand_sizes=(13, 1, 1, 1))
        lay = table_layout(crowded, "zh")
        for seat in range(4):
            box = lay.frame.panels.get((seat - lay.bottom) % 4, lay.frame.own)
            for spot in (*lay.rivers[seat], *lay.melds[seat], *lay.hands[seat]):
                x0, y0, x1, y1 = spot.box
                assert box[0] <= x0 and x1 <= box[2] and box[1] <= y0 and y1 <= box[3], (seat, spot)


def test_english_pictures_name_tiles_in_words(drawn: list[tuple[str, str]]) -> None:
    view = dataclasses.replace(
        late_view(None),
        last_discard=(2, parse_tile("7z")),
        rivers=(*late_view(None).rivers[:2], (parse_tile("7z"),), late_view(None).rivers[3]),
    )
    table_image(view, NAMES, SCORES, "en")
    texts = " ".join(t for t, _ in drawn)
    assert "discarded: Red" in texts and "Wildcard" in texts and "5 Dot" in texts
    assert not re.search(r"\b[1-9][mpsz]\b", texts)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_kong_counts_are_never_covered_by_a_side_panels_thirteen_backs(lang: Lang) -> None:
    view = dataclasses.replace(
        make_view(0), hand_sizes=(13, 13, 13, 14), hongzhong_gangs=(0, 2, 2, 2), laizi_gangs=(0, 2, 1, 2)
    )
    for seen in (view, dataclasses.replace(view, seat=None, hand=(), claimable=None, waits=())):
        lay = table_layout(seen, lang)
        for seat in range(1, 4):  # the panels of the others (the spectator's bottom seat is 0 too)
            label, at = gang_counts(seen, seat, lang), lay.gang_counts_at[seat]
            assert label and at is not None and len(lay.hands[seat]) == seen.hand_sizes[seat]
            x1, cy = at
            x0, half = x1 - text_width(label, GANG_FONT), GANG_FONT * 2 // 3
            panel = lay.frame.panels[(seat - lay.bottom) % 4]
            assert panel[0] < x0 and panel[1] < cy - half and cy + half < panel[3]
            for spot in (*lay.hands[seat], *lay.melds[seat], *lay.rivers[seat]):
                sx0, sy0, sx1, sy1 = spot.box
                assert not (sx0 < x1 and x0 < sx1 and sy0 < cy + half and cy - half < sy1), (lang, seat, spot)
