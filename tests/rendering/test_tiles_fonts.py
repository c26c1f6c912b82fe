"""Tile faces, and names shortened or replaced by the text drawing (glyph coverage: test_text_coverage.py)."""

from __future__ import annotations

import pytest
from PIL import ImageChops, ImageDraw

from game.tiles import HIDDEN, NUM_KINDS
from rendering import fonts
from rendering.fonts import FONT_FILES, displayable, draw_text, fit, text_runs, text_width
from rendering.labels import text
from rendering.tile_faces import render_tile, tile_dims


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


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="language"):
        text("laizi", "fr")  # type: ignore[arg-type]


def test_characters_no_font_has_become_question_marks_and_invisible_ones_vanish() -> None:
    assert displayable("张三𠮷") == "张三?"  # 𠮷 (CJK extension B) is in no bundled font
    assert displayable("e\u0301\ufe0f") == "é"  # composed; a variation selector no font has draws nothing
    assert displayable("Ｂｏｂ，李") == "Ｂｏｂ，李"  # full-width forms the font has stay as they are


def test_long_names_are_cut_between_characters_with_an_ellipsis_measured_with_the_fonts() -> None:
    short = fit("Bob the very long named player of the table", 20, 120)
    assert short.endswith("…") and len(short) < 20 and text_width(short, 20) <= 120
    assert fit("Zoe\u0301" * 10, 20, 60).removesuffix("…").endswith(("é", "o"))  # é is never split from its mark
    img = render_tile(0, 40).copy()
    for name in ("😀" * 30, "محمد" * 10, "谢霆锋" * 10):
        assert draw_text(ImageDraw.Draw(img), (0, 0), name, 10, (0, 0, 0), max_width=30) <= 30
    assert fit("🔥🔥🔥", 20, 2) == "…"


def test_right_to_left_runs_are_shaped_by_raqm_or_else_reversed(monkeypatch: pytest.MonkeyPatch) -> None:
    (run,) = text_runs("محمد علي")  # the space between two Arabic words stays in the Arabic run
    assert run.rtl and FONT_FILES[run.font].startswith("NotoSansArabic")
    monkeypatch.setattr(fonts, "HAS_RAQM", True)
    assert run.shown() == ("محمد علي", "rtl")
    monkeypatch.setattr(fonts, "HAS_RAQM", False)
    assert run.shown() == ("يلع دمحم", None)
    assert [(r.text, r.rtl) for r in text_runs("Bob שרה")] == [("Bob ", False), ("שרה", True)]


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_draw_text_draws_what_pillow_draws_its_masks_kept(mode: str) -> None:
    """draw_text keeps each run's glyph mask (fonts._mask) instead of asking Pillow to rasterise it again: the
    pixels are Pillow's own, at fractional positions, in every script, drawn once or a second time from the cache."""
    from PIL import Image

    cases = [("谢霆锋 🔥 Lucky", 26, (10.3, 30.6)), ("محمد", 22, (200.75, 80.2)), ("Анна-Мария", 18, (5.5, 120.5))]
    cases += [("第 1 局 · 庄 东", 31, (300.1, 170.9))]
    for attempt in range(2):  # the second time from the cache
        ours, pillows = Image.new(mode, (520, 220), "white"), Image.new(mode, (520, 220), "white")
        d, p = ImageDraw.Draw(ours), ImageDraw.Draw(pillows)
        for s, size, (x, y) in cases:
            draw_text(d, (x, y), s, size, (20, 110, 60), anchor="ls")
            for run, w in fonts.measured(displayable(s), size):
                shown, direction = run.shown()
                p.text(
                    (x, y), shown, font=fonts.face(run.font, size), fill=(20, 110, 60), anchor="ls", direction=direction
                )
                x += w
        assert ours.tobytes() == pillows.tobytes(), (mode, attempt)
    assert fonts._mask.cache_info().hits > 0
    with pytest.raises(ValueError, match="RGB or RGBA"):
        draw_text(ImageDraw.Draw(Image.new("P", (50, 50))), (5, 30), "谢", 20, (0, 0, 0))
