"""Telegram's size limits, and the helpers that keep every write within them.

fit(text, MAX_TEXT)                      # cut, with an ellipsis, to 4,096 (UTF-16) characters
with_lines(caption, news, MAX_CAPTION)   # the caption and as many of the newest lines as fit
"""

from __future__ import annotations

from typing import Final

MAX_TEXT: Final = 4096  # Telegram's limits, counted in UTF-16 code units
MAX_CAPTION: Final = 1024


def length(text: str) -> int:
    """The length Telegram counts: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` (UTF-16) characters, an ellipsis where it was cut."""
    if length(text) <= limit:
        return text
    cut = text[: limit - 1]
    while length(cut) > limit - 1:
        cut = cut[:-1]
    return cut + "…"


def with_lines(text: str, lines: list[str], limit: int) -> tuple[str, list[str]]:
    """``text`` followed by as many of the newest ``lines`` as fit in ``limit``: (the whole, the lines kept)."""
    kept = list(lines)
    while kept and length("\n".join([text, *kept])) > limit:
        kept.pop(0)
    return fit("\n".join([text, *kept]), limit), kept
