"""Pictures of real engine states: seeded hands played with random legal actions, or by the automatic player."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from game.ai import choose
from game.rules import Rules
from game.table import Hand
from game.tiles import HIDDEN, parse_tile
from rendering.result import render_exhausted, render_result, result_image, winner_spots
from rendering.table_picture import render_spectator_view, render_table_view, table_image, table_layout
from rendering.tile_faces import render_tile
from tests.rendering.scenes import NAMES, shows

SCORES = (0, 0, 0, 0)


def random_moments(seed: int, every: int = 9) -> list[Hand]:
    """Replays of one randomly played hand, one per ``every`` actions (claims preferred, so melds appear)."""
    rng = random.Random(seed)
    hand = Hand(Rules(), seed)
    moments = []
    while not hand.finished and len(hand.actions) < 150:
        seat = hand.waiting_on()[0]
        legal = hand.legal_actions(seat)
        claims = [a for a in legal if a.kind in ("peng", "chi", "chong_gang", "an_gang", "xu_gang", "hu")]
        hand.apply(rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(legal))
        if len(hand.actions) % every == 0:
            moments.append(Hand.replay(Rules(), seed, 0, hand.actions))
    return moments


@pytest.mark.parametrize("seed", [3, 11])
def test_every_seat_sees_its_own_tiles_and_only_backs_of_the_others(seed: int) -> None:
    moments = random_moments(seed)
    assert len(moments) >= 4
    for hand in moments[:6]:
        for viewer in range(4):
            view = hand.view(viewer)
            img = table_image(view, NAMES, SCORES, "zh")
            lay = table_layout(view, "zh")
            own = [s.tile for s in lay.hands[viewer]]
            expected = [*view.hand, *((view.drawn,) if view.drawn is not None else ())]
            assert own == (expected if view.revealed is None else list(view.revealed[viewer]))
            assert all(shows(img, s) for s in lay.hands[viewer])
            if view.revealed is not None:
                continue
            for other in range(4):
                if other == viewer:
                    continue
                theirs = hand.view(other)
                secret = set(theirs.hand) | ({theirs.drawn} if theirs.drawn is not None else set())
                assert all(s.tile == HIDDEN and shows(img, s) for s in lay.hands[other])
                assert not any(shows(img, s, render_tile(t, s.size)) for s in lay.hands[other] for t in secret)


@pytest.mark.parametrize("seed", [5, 8])
def test_spectator_pictures_show_no_concealed_tile(seed: int) -> None:
    for hand in random_moments(seed)[:6]:
        view = hand.view(None)
        if view.revealed is not None:
            continue
        lay = table_layout(view, "en")
        img = table_image(view, NAMES, SCORES, "en")
        for seat in range(4):
            assert all(s.tile == HIDDEN and shows(img, s) for s in lay.hands[seat])
            assert all(m.tiles == (HIDDEN,) for m in view.melds[seat] if m.kind == "an_gang")
        data = render_spectator_view(view, NAMES, SCORES, "en")
        assert Image.open(io.BytesIO(data)).size == img.size


def play_out(seed: int) -> tuple[Hand, int | None]:
    """A hand played to its end by the automatic player; the winning tile from the "win" event."""
    hand = Hand(Rules(), seed, dealer=seed % 4)
    win_tile = None
    while not hand.finished:
        seat = hand.waiting_on()[0]
        for event in hand.apply(choose(hand.view(seat), "normal", seed)):
            if event.kind == "win":
                win_tile = parse_tile(event.data["tile"])
    return hand, win_tile


def test_result_and_exhausted_pictures_of_played_hands() -> None:
    won = exhausted = 0
    for seed in range(12):
        hand, win_tile = play_out(seed)
        view = hand.view(None)
        if hand.result is not None:
            won += 1
            img = result_image(view, NAMES, "zh", win_tile)
            spots, win_spot = winner_spots(view, win_tile)
            assert view.revealed is not None
            concealed = view.revealed[hand.result.winner]  # the spots list the concealed tiles first
            assert sorted(s.tile for s in spots[: len(concealed)]) == sorted(concealed)
            assert all(shows(img, s) for s in spots[: len(concealed)])
            assert win_spot is not None and win_spot.tile == win_tile and shows(img, win_spot)
            assert Image.open(io.BytesIO(render_result(view, NAMES, "en", win_tile))).format == "PNG"
            with pytest.raises(ValueError):
                render_exhausted(view, NAMES)
        else:
            exhausted += 1
            assert Image.open(io.BytesIO(render_exhausted(view, NAMES, "zh"))).format == "PNG"
        if won and exhausted:
            break
    assert won >= 1


def test_private_picture_of_a_real_state_meets_the_size_target() -> None:
    hand = random_moments(21)[3]
    seat = hand.waiting_on()[0]
    data = render_table_view(hand.view(seat), NAMES, SCORES, "zh")
    assert len(data) < 60 * 1024
