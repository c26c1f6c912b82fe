"""Replays: frames from a seat or with every hand open, and the animated picture of a whole hand."""

from __future__ import annotations

import io
import random

from PIL import Image

from game.replay import open_view, replay_views
from game.rules import Rules
from game.table import Hand
from game.tiles import HIDDEN, HONGZHONG
from rendering import render_spectator_view
from rendering.draw import tile_row
from rendering.fonts import coverage
from rendering.replay_frames import (
    ACTION_WORDS,
    CAPTION_H,
    FINAL_MS,
    FRAME_MS,
    HAND_LABEL_W,
    HAND_ROW_H,
    HAND_SIZE,
    MAX_BYTES,
    caption,
    render_replay_animation,
    render_replay_frame,
)
from rendering.table_picture import WIDTH
from rendering.tile_faces import tile_dims
from tests.rendering.scenes import shows

NAMES = ("Alice", "Bob", "Carol", "Dave")


def long_hand() -> Hand:
    """Random play that never wins and takes half the chi/peng it may: it runs to the 海底, 97 actions and many
    melds (the longest of 300 seeds)."""
    rng = random.Random(113)
    hand = Hand(Rules(), 113, 1)
    while not hand.finished:
        legal = [a for a in hand.legal_actions(hand.waiting_on()[0]) if a.kind != "hu"]
        claims = [a for a in legal if a.kind in ("chi", "peng")]
        # never a throw of 红中 or 赖子 unless nothing else is left (RULES.md §4): the same long hand as before
        kept = (HONGZHONG, hand.laizi)
        plain = [a for a in legal if a.kind == "pass" or (a.kind == "discard" and a.tile not in kept)] or legal
        hand.apply(rng.choice(claims) if claims and rng.random() < 0.5 else rng.choice(plain))
    return hand


def test_replay_views_follow_the_hand_and_open_every_hand() -> None:
    hand = long_hand()
    views = list(replay_views(Rules(), 113, 1, hand.actions, seat=2))
    assert len(views) == len(hand.actions) + 1 and views[-1] == hand.view(2)
    opened = open_view(hand, None)
    assert opened.revealed is not None and all(
        len(t) == s for t, s in zip(opened.revealed, opened.hand_sizes, strict=True)
    )
    mid = Hand.replay(Rules(), 113, 1, hand.actions[:30])
    seen = open_view(mid, 0)
    assert seen.revealed is not None
    for s in range(4):
        own = mid.view(s)
        assert seen.revealed[s] == own.hand + ((own.drawn,) if own.drawn is not None else ())
        assert seen.melds[s] == own.melds[s]  # 暗杠 face up too


def test_a_frame_has_its_caption_and_the_animation_fits() -> None:
    hand = long_hand()
    assert len(hand.actions) >= 90
    first = hand.actions[0]
    assert caption(1, 9, first, NAMES, "en").startswith(f"1/9 · {'ESWN'[first.seat]} {NAMES[first.seat]} ")
    assert caption(0, 9, None, NAMES, "zh") == "0/9 · 开局"
    png = render_replay_frame(hand.view(None), NAMES, (0, 0, 0, 0), "zh", step=3, total=9, action=first)
    table = Image.open(io.BytesIO(render_spectator_view(hand.view(None), NAMES, (0, 0, 0, 0), "zh")))
    # The hand is over: its four hands lie open, a row each, below the table.
    assert Image.open(io.BytesIO(png)).size == (table.width, table.height + 4 * HAND_ROW_H + CAPTION_H)
    data = render_replay_animation(Rules(), 113, 1, hand.actions, NAMES, "en")
    assert len(data) <= MAX_BYTES
    img = Image.open(io.BytesIO(data))
    assert img.format == "GIF" and img.n_frames == len(hand.actions) + 1  # what sendAnimation plays
    # Its open hands readable: the animation 720 px wide, or at least 20 px a tile.
    assert img.width >= WIDTH or HAND_SIZE * img.width / WIDTH >= 20, img.size
    img.seek(1)
    img.load()
    assert img.info["duration"] == FRAME_MS
    img.seek(img.n_frames - 1)
    img.load()
    assert img.info["duration"] == FINAL_MS


def test_caption_words_are_in_the_bundled_font() -> None:
    charset = {chr(c) for mapped in coverage().values() for c in mapped}  # what some bundled font draws
    words = "".join(zh + en for zh, en in ACTION_WORDS.values())
    assert {c for c in words if not c.isspace()} <= charset | set("-")


def test_every_hand_open_is_drawn_at_24_px_a_tile_at_720_px_wide() -> None:
    hand = long_hand()
    mid = Hand.replay(Rules(), 113, 1, hand.actions[:41])
    view = open_view(mid, None)  # 全开, mid-hand: a seat has just drawn (14 tiles)
    assert view.revealed is not None and max(len(t) for t in view.revealed) == 14
    png = render_replay_frame(view, ("王小明🀄", "谢霆锋", "Ольга", "超长名字" * 10), (0, 0, 0, 0), "zh",
                              step=41, total=97, action=hand.actions[40])  # fmt: skip
    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert img.width == WIDTH and HAND_SIZE >= 24
    top = img.height - CAPTION_H - 4 * HAND_ROW_H
    for seat, tiles in enumerate(view.revealed):
        y = top + seat * HAND_ROW_H + (HAND_ROW_H - tile_dims(HAND_SIZE)[1]) // 2
        spots = tile_row(tiles, 16 + HAND_LABEL_W, y, HAND_SIZE, view.laizi, gap=2)
        assert all(shows(img, spot) for spot in spots), seat  # each tile face up, whole, at 24+ px
        assert spots[-1].box[2] <= WIDTH and HIDDEN not in tiles
