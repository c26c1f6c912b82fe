"""The stored palettes (rendering/palettes.json) still cover the colours their pictures draw.

A palette is stored because computing it cost every bot process half a second at start; a picture that gains a
colour its palette lacks would be drawn in the nearest wrong one. A stored palette passes while it maps its swatch
as closely as a palette computed afresh does; on a Pillow that anti-aliases a little differently the two differ
slightly, and that is no failure. After a change to what a picture draws: ``python -m rendering.palettes``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

from rendering.draw import stored_palette
from rendering.palettes import SWATCHES, computed

ROOT = Path(__file__).resolve().parents[2]
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


# Four threads quantizing one picture with a stored palette fresh from its cache, the interpreter switching threads
# as often as it can: before the palette was realized when stored, a process crashed within 200 rounds (5 of 5
# runs, at rounds 0-77), as a bot's warm-up and its first picture once did together in the suite.
_THREADS_AT_ONCE = """
import os, sys, threading
from PIL import Image
from rendering import draw
sys.setswitchinterval(1e-6)
picture = Image.frombytes("RGB", (720, 967), os.urandom(720 * 967 * 3))
for _ in range(200):
    draw.stored_palette.cache_clear()
    palette = draw.stored_palette("table")
    start = threading.Barrier(4)
    def quantize():
        start.wait()
        picture.quantize(palette=palette, dither=Image.Dither.NONE)
    threads = [threading.Thread(target=quantize) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
"""


def test_threads_drawing_at_once_share_a_stored_palette_safely() -> None:
    done = subprocess.run([sys.executable, "-c", _THREADS_AT_ONCE], cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, f"the process ended with {done.returncode} (-11: a segmentation fault)"
