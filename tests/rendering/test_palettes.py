"""The stored palettes (rendering/palettes.json) still cover the colours their pictures draw.

A palette is stored because computing it cost every bot process half a second at start; a picture that gains a
colour its palette lacks would be drawn in the nearest wrong one. A stored palette passes while it maps its swatch
as closely as a palette computed afresh does; on a Pillow that anti-aliases a little differently the two differ
slightly, and that is no failure. After a change to what a picture draws: ``python -m rendering.palettes``.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

from rendering.draw import stored_palette
from rendering.palettes import SWATCHES, computed

# How much worse than a fresh palette a stored one may map its swatch (mean error per channel, 0-255).
SLACK = 1.25


def mapping_error(swatch: Image.Image, palette: Image.Image) -> float:
    """Mean absolute difference per channel between the swatch and its quantization onto ``palette``."""
    rgb = swatch.convert("RGB")
    mapped = rgb.quantize(palette=palette, dither=Image.Dither.NONE).convert("RGB")
    return sum(ImageStat.Stat(ImageChops.difference(rgb, mapped)).mean) / 3


@pytest.mark.parametrize("name", sorted(SWATCHES))
def test_the_stored_palette_maps_its_swatch_as_well_as_a_fresh_one(name: str) -> None:
    swatch = SWATCHES[name][0]()
    fresh, stored = mapping_error(swatch, computed(name)), mapping_error(swatch, stored_palette(name))
    assert stored <= fresh * SLACK + 0.05, (
        f"run `python -m rendering.palettes`: {name} maps at {stored} against {fresh}"
    )
    assert len(stored_palette(name).getpalette() or []) == 3 * SWATCHES[name][1]


def test_a_colour_the_stored_palette_lacks_is_caught() -> None:
    swatch = SWATCHES["table"][0]()
    ImageDraw.Draw(swatch).rectangle((0, 0, swatch.width // 3, swatch.height // 3), fill=(40, 90, 250))  # a blue
    extended = swatch.convert("RGB").quantize(SWATCHES["table"][1], method=Image.Quantize.MEDIANCUT)
    assert mapping_error(swatch, stored_palette("table")) > mapping_error(swatch, extended) * SLACK + 0.05
