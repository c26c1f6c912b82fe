"""Make rendering/fonts/: the bundled fonts every picture draws its glyphs from, and their coverage file.

Run by hand when a label needs a new character or a script is added (never at run time; CI uses the
committed files):

    apt-get update && apt-get install -y fonts-noto-cjk fonts-noto-core fonts-symbola
    .venv/bin/python scripts/make_font_subset.py

Each font of ``rendering.fonts.FONT_FILES`` is cut from its Debian source to the characters listed below
(``FontSource``), hinting dropped. The main font, Noto Sans CJK SC Bold, keeps every character of GB 2312,
Big5's common set (levels 1 with its symbols), JIS X 0208 and KS X 1001's Hangul and symbols, Latin,
Greek and Cyrillic, and every label of rendering.labels and msgstr of bot/locales (read, not changed).
Noto Sans Bold adds the rest of Latin, Greek and Cyrillic; Symbola adds emoji and symbols (monochrome,
Unicode 9: a newer emoji such as 🥰 draws as '?');
Noto Sans Arabic, Hebrew, Thai and Devanagari keep their whole script with its shaping features.
It writes ``coverage.txt`` (per font, the code point ranges its cmap maps, which rendering.fonts reads to
pick a font per character) and the licences: OFL.txt for the Noto fonts, Symbola-LICENSE.txt for Symbola.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po
from fontTools import subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTCollection, TTFont  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rendering.fonts import COVERAGE_PATH, FONT_FILES, FONTS_DIR, INVISIBLE, TILE_GLYPHS, format_ranges, parse_ranges  # noqa: E402
from rendering.labels import all_label_text  # noqa: E402

NOTO_CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
NOTO = Path("/usr/share/fonts/truetype/noto")
SYMBOLA = Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf")
NOTO_CJK_COPYRIGHT = Path("/usr/share/doc/fonts-noto-cjk/copyright")
SYMBOLA_COPYRIGHT = Path("/usr/share/doc/fonts-symbola/copyright")
SC_NAME = "Noto Sans CJK SC Bold"

Ranges = tuple[tuple[int, int], ...]
LATIN_GREEK_CYRILLIC: Ranges = (
    (0x20, 0x24F),
    (0x250, 0x2FF),
    (0x300, 0x36F),
    (0x370, 0x3FF),
    (0x400, 0x52F),
    (0x1E00, 0x1FFF),
    (0x2000, 0x206F),
    (0x20A0, 0x20CF),
    (0x2100, 0x214F),
)
CJK_EXTRA: Ranges = (
    (0x2010, 0x2027),
    (0x2030, 0x203B),
    (0x2190, 0x2199),
    (0x2460, 0x24FF),
    (0x3000, 0x30FF),
    (0x3130, 0x318F),
    (0x31F0, 0x31FF),
    (0xFF00, 0xFFEF),
)
SYMBOLS: Ranges = (
    (0x2190, 0x21FF),
    (0x2300, 0x23FF),
    (0x2460, 0x27BF),
    (0x2900, 0x297F),
    (0x2B00, 0x2BFF),
    (0x1F000, 0x1F0FF),
    (0x1F100, 0x1F1FF),
    (0x1F300, 0x1F6FF),
    (0x1F900, 0x1F9FF),
    (0x1FA70, 0x1FAFF),
)
WHOLE_FONT: Ranges = ((0x20, 0x10FFFF),)


def double_byte(encoding: str, leads: range, trails: Iterable[int]) -> set[str]:
    """Every character of a two-byte encoding with these lead and trail bytes (invalid pairs skipped)."""
    out: set[str] = set()
    trail_list = list(trails)
    for lead in leads:
        for trail in trail_list:
            try:
                out.update(bytes((lead, trail)).decode(encoding))
            except UnicodeDecodeError:
                continue
    return out


def gb2312() -> set[str]:
    return double_byte("gb2312", range(0xA1, 0xF8), range(0xA1, 0xFF))


def big5_common() -> set[str]:
    """Big5's symbols (A1–A3) and level 1, its 5,401 frequently used characters (A4–C6)."""
    return double_byte("big5", range(0xA1, 0xC7), [*range(0x40, 0x7F), *range(0xA1, 0xFF)])


def jis_x_0208() -> set[str]:
    return double_byte("euc_jp", range(0xA1, 0xF5), range(0xA1, 0xFF))


def ks_x_1001_hangul() -> set[str]:
    """KS X 1001 without its hanja (rows CA–FD): symbols, jamo and the 2,350 common Hangul syllables."""
    return double_byte("euc_kr", range(0xA1, 0xCA), range(0xA1, 0xFF))


def catalogue_text() -> str:
    """Every label of the pictures and every msgstr of the bot's catalogues."""
    parts = [all_label_text(), TILE_GLYPHS]
    for po in sorted((ROOT / "bot" / "locales").glob("*/LC_MESSAGES/messages.po")):
        with po.open("rb") as f:
            for message in read_po(f):
                strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
                parts += [str(s) for s in strings if s]
    return "".join(parts)


def displayable_needed() -> str:
    """The catalogue's characters that draw something (a variation selector or joiner draws nothing)."""
    return "".join(c for c in catalogue_text() if unicodedata.category(c) not in INVISIBLE)


def expand(ranges: Ranges) -> set[str]:
    return {chr(c) for lo, hi in ranges for c in range(lo, hi + 1)}


@dataclass(frozen=True)
class FontSource:
    """Where a bundled font comes from and what of it is kept; ``shaping`` keeps every layout feature."""

    load: str  # a path, or "cjk" for the SC face of the Noto CJK collection
    ranges: Ranges
    shaping: bool = False
    licence: str = "OFL.txt"


SOURCES: dict[str, FontSource] = {
    "NotoSansCJKsc-Bold-subset.otf": FontSource("cjk", LATIN_GREEK_CYRILLIC + CJK_EXTRA),
    "NotoSans-Bold-subset.ttf": FontSource(str(NOTO / "NotoSans-Bold.ttf"), LATIN_GREEK_CYRILLIC),
    "Symbola-subset.ttf": FontSource(str(SYMBOLA), SYMBOLS, licence="Symbola-LICENSE.txt"),
    "NotoSansArabic-Bold-subset.ttf": FontSource(str(NOTO / "NotoSansArabic-Bold.ttf"), WHOLE_FONT, True),
    "NotoSansHebrew-Bold-subset.ttf": FontSource(str(NOTO / "NotoSansHebrew-Bold.ttf"), WHOLE_FONT, True),
    "NotoSansThai-Bold-subset.ttf": FontSource(str(NOTO / "NotoSansThai-Bold.ttf"), WHOLE_FONT, True),
    "NotoSansDevanagari-Bold-subset.ttf": FontSource(str(NOTO / "NotoSansDevanagari-Bold.ttf"), WHOLE_FONT, True),
}


def open_source(source: FontSource) -> TTFont:
    if source.load != "cjk":
        return TTFont(source.load)
    fonts = [f for f in TTCollection(str(NOTO_CJK)).fonts if f["name"].getDebugName(4) == SC_NAME]
    if not fonts:
        raise SystemExit(f"{SC_NAME} is not in {NOTO_CJK}")
    return fonts[0]


def wanted(name: str, source: FontSource) -> set[str]:
    chars = expand(source.ranges)
    if source.load == "cjk":
        chars |= gb2312() | big5_common() | jis_x_0208() | ks_x_1001_hangul() | set(catalogue_text())
    return {c for c in chars if unicodedata.category(c) not in ("Cc", "Cs", "Co", "Cn")}


def make(name: str, source: FontSource) -> TTFont:
    font = open_source(source)
    options = subset.Options()
    options.layout_features = ["*"] if source.shaping else ["kern", "locl", "liga", "ccmp", "mark", "mkmk"]
    options.hinting = False
    options.notdef_outline = True
    options.name_IDs = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(c) for c in wanted(name, source)))
    subsetter.subset(font)
    font.recalcTimestamp = False  # keep the source's date, so a rerun writes the same bytes
    font.save(str(FONTS_DIR / name))
    return font


def debian_licence(path: Path, marker: str) -> str:
    """The indented licence paragraph after ``marker`` in a Debian copyright file, unindented."""
    lines = path.read_text(encoding="utf-8").split(marker, 2)[-1].splitlines()
    body: list[str] = []
    for line in lines:
        if line and not line.startswith(" "):
            break
        body.append("" if line.strip() == "." else line[1:])
    return "\n".join(body).strip() + "\n"


def write_licences() -> None:
    header = (
        "Noto Sans CJK SC Bold: Copyright © 2014-2021 Adobe (http://www.adobe.com/), with Reserved Font Name "
        "'Source'.\nNoto Sans, Noto Sans Arabic, Hebrew, Thai, Devanagari: Copyright 2012-2020 Google LLC.\n"
        "Subset by scripts/make_font_subset.py for this project.\n\n"
    )
    ofl = debian_licence(NOTO_CJK_COPYRIGHT, "License: SIL-1.1\n")
    (FONTS_DIR / "OFL.txt").write_text(header + ofl, encoding="utf-8")
    symbola = SYMBOLA_COPYRIGHT.read_text(encoding="utf-8").split("The Debian packaging is:")[0]
    (FONTS_DIR / "Symbola-LICENSE.txt").write_text(
        "Symbola, subset by scripts/make_font_subset.py for this project.\n\n" + symbola.strip() + "\n",
        encoding="utf-8",
    )


def main() -> None:
    FONTS_DIR.mkdir(parents=True, exist_ok=True)
    lines = []
    for name in FONT_FILES:
        font = make(name, SOURCES[name])
        cmap = sorted(font.getBestCmap())
        lines.append(f"{name} {format_ranges(cmap)}")
        print(f"{name}: {(FONTS_DIR / name).stat().st_size // 1024} KB, {len(cmap)} characters")
    COVERAGE_PATH.write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_licences()
    covered = {chr(c) for line in lines for c in parse_ranges(line.partition(" ")[2])}
    missing = "".join(sorted(set(displayable_needed()) - covered))
    total = sum((FONTS_DIR / n).stat().st_size for n in FONT_FILES)
    print(f"total {total / 1024 / 1024:.2f} MB" + (f"; in no font: {missing}" if missing else ""))


if __name__ == "__main__":
    main()
