"""Fixtures for the picture tests: ``drawn`` records every text drawn (rendering.fonts.draw_run, and Pillow's
ImageDraw.text for the tile faces)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import ImageDraw, ImageFont

from rendering import fonts


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every (text, font file) drawn while the test runs."""
    calls: list[tuple[str, str]] = []
    original = ImageDraw.ImageDraw.text

    def spy(self: ImageDraw.ImageDraw, xy: object, text: str, *args: object, **kwargs: object) -> None:
        calls.append((text, str(getattr(kwargs.get("font"), "path", ""))))
        original(self, xy, text, *args, **kwargs)  # type: ignore[arg-type]

    def run_spy(
        draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, font: ImageFont.FreeTypeFont, *args: object
    ) -> None:
        calls.append((text, str(font.path)))
        original_run(draw, xy, text, font, *args)  # type: ignore[arg-type]

    original_run = fonts.draw_run
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", spy)
    monkeypatch.setattr(fonts, "draw_run", run_spy)
    yield calls
