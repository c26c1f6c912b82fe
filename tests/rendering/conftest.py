"""Fixtures for the picture tests: ``drawn`` records every text Pillow is asked to draw."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import ImageDraw


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every (text, font file) passed to ImageDraw.text while the test runs."""
    calls: list[tuple[str, str]] = []
    original = ImageDraw.ImageDraw.text

    def spy(self: ImageDraw.ImageDraw, xy: object, text: str, *args: object, **kwargs: object) -> None:
        calls.append((text, str(getattr(kwargs.get("font"), "path", ""))))
        original(self, xy, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", spy)
    yield calls
