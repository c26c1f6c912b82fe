"""The fixed palettes the pictures are encoded with, and the command that stores them.

A table, result or statistics card picture is quantized onto a fixed palette (``rendering.draw.encode``): an
adaptive one for each picture cost too much of its time budget. A palette is computed from a swatch of every
colour its pictures use (each module's ``palette_swatch``) and stored in ``palettes.json``, which
``rendering.draw.stored_palette`` reads: computing the table's alone took every bot process about half a second
at start. After a change to what a picture draws, write the file again::

    python -m rendering.palettes

``tests/rendering/test_palettes.py`` fails while a stored palette no longer covers its swatch's colours.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from PIL import Image

from rendering import result, standings_cards, table_picture
from rendering.draw import PALETTE_COLORS, PALETTES_FILE, palette_of

# name -> (its swatch, how many colours)
SWATCHES: dict[str, tuple[Callable[[], Image.Image], int]] = {
    "table": (table_picture.palette_swatch, table_picture.TABLE_COLORS),
    "result": (result.palette_swatch, PALETTE_COLORS),
    "stats_card": (standings_cards.palette_swatch, PALETTE_COLORS),
}


def computed(name: str) -> Image.Image:
    """The palette ``name`` computed afresh from its swatch."""
    swatch, colors = SWATCHES[name]
    return palette_of(swatch(), colors)


def main() -> None:
    palettes = {name: computed(name).getpalette() for name in SWATCHES}
    PALETTES_FILE.write_text(json.dumps(palettes, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {PALETTES_FILE} ({', '.join(f'{n}: {len(p or []) // 3} colours' for n, p in palettes.items())})")


if __name__ == "__main__":
    main()
