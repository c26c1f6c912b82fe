"""Replays of a stored hand: one picture per step, from one seat, the group's or with every hand open, and
the whole hand as one animated picture.

    png = render_replay_frame(view, names, scores, "zh", step=12, total=87, action=actions[11])
    gif = render_replay_animation(rules, seed, dealer, actions, names, "zh")   # ≤ 2 MB, run it in a thread

Frames are the table picture (rendering.table_picture) with a caption strip below saying which step it is and
what was just played. ``game.replay`` steps the hand; with ``open_hands`` every concealed tile is face up.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from PIL import Image, ImageDraw

from game.actions import Action
from game.replay import replay_views
from game.rules import Rules
from game.tiles import tile_label
from game.view import SeatView
from rendering.draw import FELT, GOLD, TEXT, paste, tile_row
from rendering.fonts import draw_text
from rendering.labels import Lang, check_lang, seat_wind
from rendering.table_picture import table_image
from rendering.tile_faces import tile_dims

CAPTION_H: Final = 44
# Every hand open: a row each below the table, 14 tiles and a name across 720 px, still big at GIF scale.
HAND_SIZE: Final = 36
HAND_ROW_H: Final = 60
HAND_LABEL_W: Final = 160
FRAME_MS: Final = 700  # a step at reading speed
FINAL_MS: Final = 5000  # the end of the hand stays up longer
MAX_BYTES: Final = 2_000_000
# Animation frames at full size (its open hands readable on a phone), smaller for a hand too long to fit
# MAX_BYTES: at the smallest, the open hands are still 36 × 0.6 ≈ 22 px a tile.
SCALES: Final = (1.0, 0.8, 0.6)
GIF_COLORS: Final = 64
# What each action kind is called in a caption (characters the bundled font holds).
ACTION_WORDS: Final[dict[str, tuple[str, str]]] = {
    "deal": ("开局", "Deal"),
    "discard": ("打出", "discards"),
    "hu": ("胡", "wins"),
    "hongzhong_gang": ("红中杠", "red-dragon kong"),
    "laizi_gang": ("赖子杠", "wildcard kong"),
    "an_gang": ("暗杠", "concealed kong"),
    "xu_gang": ("蓄杠", "added kong"),
    "chong_gang": ("冲杠", "kong on a discard"),
    "peng": ("碰", "pung"),
    "chi": ("吃", "chow"),
    "pass": ("过", "pass"),
}


def caption(step: int, total: int, action: Action | None, names: Sequence[str], lang: Lang) -> str:
    """``"12/87 · 东 Alice 打出 五万"``: the step and what was just played (None: the deal)."""
    words = ACTION_WORDS["deal" if action is None else action.kind]
    head = f"{step}/{total} · "
    if action is None:
        return head + words[lang == "en"]
    what = f"{seat_wind(action.seat, lang)} {names[action.seat]} {words[lang == 'en']}"
    if action.tile is not None:
        what += f" {tile_label(action.tile, lang)}"
    return head + what


def replay_frame_image(
    view: SeatView, names: Sequence[str], scores: Sequence[int], lang: Lang, text: str
) -> Image.Image:
    """The table picture of ``view`` with ``text`` in a caption strip below it; when every hand is open (全开,
    or the hand is over), the table shows their backs and each hand lies face up, large, in a row of its own
    below the table (the table's panels would draw them too small to read)."""
    check_lang(lang)
    revealed = view.revealed
    table = table_image(view if revealed is None else replace(view, revealed=None), names, scores, lang)
    rows = 0 if revealed is None else len(revealed)
    img = Image.new("RGB", (table.width, table.height + rows * HAND_ROW_H + CAPTION_H), FELT)
    img.paste(table, (0, 0))
    d = ImageDraw.Draw(img)
    for seat, tiles in enumerate(revealed or ()):
        y = table.height + seat * HAND_ROW_H
        label = f"{seat_wind(seat, lang)} {names[seat]}"
        draw_text(d, (16, y + HAND_ROW_H // 2), label, 20, TEXT, anchor="lm", max_width=HAND_LABEL_W - 8)
        for spot in tile_row(tiles, 16 + HAND_LABEL_W, y + (HAND_ROW_H - tile_dims(HAND_SIZE)[1]) // 2,
                             HAND_SIZE, view.laizi, gap=2):  # fmt: skip
            paste(img, spot, FELT)
    table_h = table.height + rows * HAND_ROW_H
    draw_text(
        d,
        (16, table_h + CAPTION_H // 2),
        text,
        24,
        GOLD if view.phase == "over" else TEXT,
        anchor="lm",
        max_width=table.width - 32,
    )
    return img


def render_replay_frame(
    view: SeatView,
    names: Sequence[str],
    scores: Sequence[int],
    lang: Lang = "zh",
    *,
    step: int,
    total: int,
    action: Action | None,
) -> bytes:
    """One replay picture (PNG): ``view`` after ``step`` of ``total`` actions, ``action`` the last one."""
    out = io.BytesIO()
    replay_frame_image(view, names, scores, lang, caption(step, total, action, names, lang)).save(out, "PNG")
    return out.getvalue()


def render_replay_animation(
    rules: Rules,
    seed: int,
    dealer: int,
    actions: Sequence[Action],
    names: Sequence[str],
    lang: Lang = "zh",
    *,
    seat: int | None = None,
    open_hands: bool = True,
    scores: Sequence[int] = (0, 0, 0, 0),
) -> bytes:
    """The whole hand as an animated GIF (what Telegram's sendAnimation plays): len(actions) + 1 frames,
    FRAME_MS each and FINAL_MS on the last, at the largest of SCALES that fits MAX_BYTES.

    Pure and CPU-bound (a few seconds for a long hand): call it from a thread or a process. ValueError if
    even the smallest scale would pass MAX_BYTES.
    """
    total = len(actions)
    frames = []
    for step, view in enumerate(replay_views(rules, seed, dealer, actions, seat, open_hands)):
        shown = scores
        if view.result is not None:  # the final frame shows what the hand paid
            shown = [a + b for a, b in zip(scores, view.result.payments, strict=True)]
        text = caption(step, total, actions[step - 1] if step else None, names, lang)
        frames.append(replay_frame_image(view, names, shown, lang, text))
    durations = [FRAME_MS] * total + [FINAL_MS]
    for scale in SCALES:
        data = _gif(
            [f.resize((round(f.width * scale), round(f.height * scale)), Image.Resampling.BILINEAR) for f in frames],
            durations,
        )
        if len(data) <= MAX_BYTES:
            return data
    raise ValueError(f"the replay would be {len(data)} bytes, over {MAX_BYTES}")


def _gif(frames: Sequence[Image.Image], durations: Sequence[int]) -> bytes:
    # One palette for every frame (the last has every colour the hand shows): Pillow then stores each frame as
    # its difference from the one before, a few tiles, instead of a whole picture.
    palette = frames[-1].quantize(colors=GIF_COLORS, method=Image.Quantize.FASTOCTREE)
    shared = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    out = io.BytesIO()
    shared[0].save(out, "GIF", save_all=True, append_images=shared[1:], duration=list(durations), loop=0)
    return out.getvalue()
