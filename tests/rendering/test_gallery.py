"""`make gallery`: every kind of picture, from a match the automatic player plays."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from rendering.gallery import build


def test_gallery_writes_every_picture_in_both_languages(tmp_path: Path) -> None:
    written = build(tmp_path, max_hands=30)
    kinds = ("table_seat", "table_spectator", "result", "exhausted", "leaderboard", "player_card", "replay")
    expected = {f"{kind}_{lang}.png" for kind in kinds for lang in ("zh", "en")} | {"tiles.png"}
    assert {p.name for p in written} == expected
    for path in written:
        with Image.open(path) as img:
            assert img.format == "PNG" and img.width >= 600 and img.width + img.height <= 10000
