"""Tile faces and the bundled font."""

from __future__ import annotations

import pytest
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]
from PIL import ImageChops, ImageDraw

from game.tiles import HIDDEN, NUM_KINDS
from rendering.fonts import CHARSET_PATH, FONT_PATH, MISSING, TILE_GLYPHS, displayable, draw_text, fit
from rendering.labels import LANGS, all_label_text, text
from rendering.tiles import render_tile, tile_dims


@pytest.mark.parametrize("size", [12, 28, 64])
def test_every_tile_has_its_own_face_at_every_size(size: int) -> None:
    faces = [render_tile(t, size).tobytes() for t in [*range(NUM_KINDS), HIDDEN]]
    assert len(set(faces)) == NUM_KINDS + 1
    assert all(render_tile(t, size).size == tile_dims(size) for t in range(NUM_KINDS))


def test_tiles_are_cached_and_rotated_tiles_lie_on_their_side() -> None:
    assert render_tile(5, 40) is render_tile(5, 40)
    w, h = tile_dims(40)
    assert render_tile(5, 40, rotated=True).size == (h, w)
    assert h > w


def test_laizi_mark_changes_the_face_but_never_the_back() -> None:
    for t in range(NUM_KINDS):
        marked, plain = render_tile(t, 40, laizi=True).convert("RGB"), render_tile(t, 40).convert("RGB")
        assert ImageChops.difference(marked, plain).getbbox() is not None
    assert render_tile(HIDDEN, 40, laizi=True) is render_tile(HIDDEN, 40)


@pytest.mark.parametrize(("tile", "size"), [(34, 40), (-2, 40), (0, 4), (0, 1000)])
def test_bad_tile_or_size_is_refused(tile: int, size: int) -> None:
    with pytest.raises(ValueError):
        render_tile(tile, size)


def test_committed_charset_is_exactly_the_fonts_cmap_and_the_font_is_small() -> None:
    cmap = {chr(c) for c in TTFont(str(FONT_PATH)).getBestCmap()}
    assert set(CHARSET_PATH.read_text(encoding="utf-8")) == cmap
    assert FONT_PATH.stat().st_size < 400 * 1024
    assert (FONT_PATH.parent / "OFL.txt").read_text(encoding="utf-8").count("SIL OPEN FONT LICENSE") == 1


def test_every_label_and_tile_glyph_is_in_the_font() -> None:
    needed = all_label_text() + TILE_GLYPHS
    assert MISSING not in displayable(needed.replace(MISSING, ""))
    for lang in LANGS:
        assert displayable(text("leaderboard", lang)) == text("leaderboard", lang)


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="language"):
        text("laizi", "fr")  # type: ignore[arg-type]


def test_names_outside_the_font_fall_back_to_question_marks() -> None:
    assert displayable("Ｂｏｂ") == "Bob"  # full-width letters fold to ASCII
    assert displayable("张三😀𠮷") == "张三??"
    assert displayable("你好，世界").startswith("?")  # 你 is not a label character: '?', never a crash
    assert "，" in displayable("王，李")  # full-width punctuation the font has stays as it is


def test_long_names_are_shortened_to_fit() -> None:
    short = fit("Bob the very long named player of the table", 20, 120)
    assert short.endswith("…") and len(short) < 20
    img = render_tile(0, 40).copy()
    assert draw_text(ImageDraw.Draw(img), (0, 0), "😀" * 30, 10, (0, 0, 0), max_width=30) <= 30
