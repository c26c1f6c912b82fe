"""The usage examples in rendering's docstrings (the project's pytest collects doctests of game/ only)."""

from __future__ import annotations

import doctest

import pytest

from rendering import fonts, labels, tile_faces


@pytest.mark.parametrize("module", [fonts, labels, tile_faces])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
