"""Every string a picture may print is drawn with real glyphs: checked against the committed fonts' own cmaps.

The corpus: every character of GB 2312, Big5's level 1, kana, Hangul, Cyrillic, Greek, accented Latin, emoji,
the gallery's hard names, every label and every msgstr of the bot's catalogues. Pictures of every kind are
rendered with the hard names while each Pillow text call is recorded, so what was actually drawn is checked.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

from game.tiles import parse_tile
from rendering.fonts import (
    FONT_FILES,
    FONTS_DIR,
    INVISIBLE,
    MISSING,
    TILE_GLYPHS,
    coverage,
    displayable,
    text_runs,
)
from rendering.gallery import HARD_NAMES, build
from rendering.labels import LANGS, all_label_text
from rendering.result import exhausted_image, result_image
from rendering.standings_cards import LeaderboardRow, PlayerCard, leaderboard_image, player_card_image
from rendering.table_picture import table_image
from tests.rendering.scenes import SCORES, example_c, late_view

ROOT = Path(__file__).resolve().parents[2]


@cache
def cmap(name: str) -> frozenset[int]:
    return frozenset(TTFont(str(FONTS_DIR / name), lazy=True).getBestCmap())


def double_byte(encoding: str, leads: range, trails: range) -> str:
    out = []
    for lead in leads:
        for trail in trails:
            try:
                out.append(bytes((lead, trail)).decode(encoding))
            except UnicodeDecodeError:
                continue
    return "".join(out)


def corpus() -> dict[str, str]:
    gb2312 = double_byte("gb2312", range(0xA1, 0xF8), range(0xA1, 0xFF))
    return {
        "gb2312": gb2312,
        "big5 level 1": double_byte("big5", range(0xA4, 0xC7), range(0x40, 0xFF)),
        "kana": double_byte("euc_jp", range(0xA4, 0xA6), range(0xA1, 0xFF)),
        "hangul": double_byte("euc_kr", range(0xB0, 0xC9), range(0xA1, 0xFF)),
        "cyrillic": "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюяЇїІіЄєҐґЎў",
        "greek": "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρσςτυφχψωάέήίόύώϊϋΐΰ",
        "accented latin": "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿÀÉÎÕÜŁłŚśŹźŻżĞğİıŞşČčĎďĚěŇňŘřŠšŤťŮůŽžẠạẤấỆệỲỳ",
        "emoji": "🀄🔥😀😂😍👍🎉❤⭐🌸🐼🍜🏆💯🙏🤖",
        "rtl": "محمد علي שלום",
        "hard names": "".join(HARD_NAMES),
    }


def catalogue() -> list[str]:
    strings = [all_label_text()]
    for po in sorted((ROOT / "bot" / "locales").glob("*/LC_MESSAGES/messages.po")):
        with po.open("rb") as f:
            for message in read_po(f):
                texts = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
                strings += [str(t) for t in texts if t]
    return strings


def drawn_glyphs_missing(s: str) -> str:
    """The characters of ``s`` that its runs would draw with a font lacking them (a .notdef box)."""
    return "".join(c for run in text_runs(displayable(s)) for c in run.text if ord(c) not in cmap(FONT_FILES[run.font]))


def test_coverage_file_is_exactly_the_committed_fonts_cmaps_and_the_fonts_are_small() -> None:
    assert set(coverage()) == set(FONT_FILES)
    for name in FONT_FILES:
        assert coverage()[name] == set(cmap(name)), name
    assert sum((FONTS_DIR / name).stat().st_size for name in FONT_FILES) < 8 * 1024 * 1024
    assert (FONTS_DIR / "OFL.txt").read_text(encoding="utf-8").count("SIL OPEN FONT LICENSE") == 1
    assert "free for any use" in (FONTS_DIR / "Symbola-LICENSE.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("script", list(corpus()))
def test_every_character_of_the_corpus_has_a_glyph(script: str) -> None:
    chars = corpus()[script]
    visible = "".join(c for c in unicodedata.normalize("NFC", chars) if unicodedata.category(c) not in INVISIBLE)
    assert displayable(chars) == visible  # nothing became '?'
    assert drawn_glyphs_missing(chars) == ""


def test_every_catalogue_string_has_its_glyphs() -> None:
    strings = catalogue()
    assert len(strings) > 100
    for s in strings:
        assert MISSING not in displayable(s.replace(MISSING, "")), s
        assert drawn_glyphs_missing(s) == "", s


def test_tile_faces_draw_their_glyphs_from_the_main_font() -> None:
    assert [c for c in TILE_GLYPHS if ord(c) not in cmap(FONT_FILES[0])] == []  # tiles use no fallback


def test_a_character_outside_every_font_is_reported_not_drawn_as_a_box() -> None:
    assert drawn_glyphs_missing("𠮷") == ""  # became '?', which the main font has
    assert displayable("𠮷") == MISSING


def test_every_picture_kind_draws_hard_names_with_glyphs_its_fonts_have(
    tmp_path: Path, drawn: list[tuple[str, str]]
) -> None:
    build(tmp_path, max_hands=30)
    assert len(drawn) > 200
    for text, path in drawn:
        assert path, f"{text!r} drawn without a bundled font"
        missing = [c for c in text if ord(c) not in cmap(Path(path).name)]
        assert not missing, (text, Path(path).name)
    shown = "".join(text for text, _ in drawn)
    for needle in ("谢霆锋", "电脑", "Ковалёва", "🀄", "🔥", "武汉麻将群"):
        assert needle in shown, needle
    assert any(unicodedata.bidirectional(c) == "AL" for c in shown)


def picture_kinds(names: tuple[str, str, str, str]) -> None:
    """Draw every kind of picture, in both languages, with these four names (and the first as group title)."""
    over = dataclasses.replace(example_c(), result=None, exhausted=True)
    rows = [LeaderboardRow(i + 1, name, 3000 - 100 * i, 10, 50) for i, name in enumerate(names)]
    for lang in LANGS:
        table_image(late_view(0), names, SCORES, lang)
        table_image(late_view(None), names, SCORES, lang)
        result_image(example_c(), names, lang, parse_tile("4z"))
        exhausted_image(over, names, lang)
        leaderboard_image(rows, lang, names[0])
        player_card_image(PlayerCard(names[0], 3000, 10, 4, 640, (2400, 2800, 3000)), lang)


@pytest.mark.parametrize(
    "script", ["gb2312", "big5 level 1", "kana", "hangul", "cyrillic", "greek", "accented latin", "emoji", "rtl"]
)
def test_every_picture_kind_draws_names_of_every_script_with_real_glyphs(
    script: str, drawn: list[tuple[str, str]]
) -> None:
    chars = corpus()[script]
    sample = "".join(chars[i] for i in range(0, len(chars), max(1, len(chars) // 48)))[:48]
    names = (sample[:12], sample[12:24], sample[24:36], sample[36:48] or sample[:12])
    picture_kinds(names)
    for text, path in drawn:
        assert [c for c in text if ord(c) not in cmap(Path(path).name)] == [], (text, Path(path).name)
    shown = "".join(text for text, _ in drawn)
    assert MISSING not in "".join(t for t, _ in drawn if any(c in t for c in sample))
    assert sum(c in shown for c in sample) >= len(set(sample)) // 2  # the names were really drawn
