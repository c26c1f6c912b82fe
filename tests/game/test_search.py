"""The ``hard`` player (game.search): worlds true to the view, rollouts true to the engine, the same choice
for states the seat cannot tell apart. Sample counts are small: these tests check behaviour, not strength."""

from __future__ import annotations

import pickle
import random
from types import SimpleNamespace

import pytest

from game import search
from game.actions import Action
from game.ai import ranked, unseen_counts
from game.automatic import LEVELS, choose
from game.rules import Rules
from game.search import (
    World,
    choose_hard,
    claim_distance,
    deal_in_costs,
    evaluate,
    fast_action,
    rollout,
    sample_worlds,
)
from game.shanten import distance
from game.table import Hand
from game.tiles import HONGZHONG, from_counts, parse_tile, parse_tiles, to_counts
from game.view import SeatView


def play_until(seed: int, decisions: int, phase: str = "turn") -> Hand:
    """A hand played by ``normal`` until at least ``decisions`` actions, stopped at a real ``phase`` choice."""
    hand = Hand(Rules(), seed=seed, dealer=seed % 4)
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        # A turn right after a plain draw: the only kind of draw a view cannot tell apart (see Hand.from_view).
        plain_draw = phase != "turn" or (hand.log[-1].kind == "draw" and hand.log[-1].data["how"] == "self_draw")
        if len(hand.actions) >= decisions and hand.phase == phase and len(view.legal) > 1 and plain_draw:
            return hand
        hand.apply(choose(view, "normal", seed))
    raise AssertionError("the hand ended first")


def true_world(hand: Hand, seat: int) -> World:
    hands = tuple(tuple(from_counts(hand.concealed_counts(s))) for s in range(4))
    gangs = tuple(m.tile for s in range(4) if s != seat for m in hand.seat_melds(s) if m.kind == "an_gang")
    return World(hands, gangs, tuple(hand.wall.tiles_left()))


def test_hard_is_a_level() -> None:
    assert "hard" in LEVELS


def test_a_rebuilt_world_looks_the_same_and_plays_on_the_same() -> None:
    for seed in range(6):
        for phase in ("turn", "claim"):
            hand = play_until(seed, 20, phase)
            seat = hand.waiting_on()[0]
            view = hand.view(seat)
            w = true_world(hand, seat)
            copy = Hand.from_view(view, w.hands, w.hidden_gangs, w.wall)
            assert copy.view(seat) == view
            if phase == "claim":
                continue  # the other asked seats are asked afresh: their answers may come in another order
            while not hand.finished:  # the rest of the hand, action for action
                a = fast_action(hand, hand.waiting_on()[0])
                hand.apply(a)
                copy.apply(a)
            assert copy.result == hand.result and copy.exhausted == hand.exhausted


def test_sampled_worlds_agree_with_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    hand = play_until(3, 30)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    worlds = sample_worlds(view, 5, seed=1)
    assert worlds == sample_worlds(view, 5, seed=1)
    # Even when no draw of a hand fits the tiles its seat let pass (every one "would win"), no tile is doubled.
    monkeypatch.setattr(search, "analyse_win", lambda *args: SimpleNamespace(valid=True))
    for w in [*worlds, *sample_worlds(view, 5, seed=2)]:
        assert len(w.wall) == view.wall_remaining
        assert [len(h) for h in w.hands] == list(view.hand_sizes)
        assert all(HONGZHONG not in h for s, h in enumerate(w.hands) if s != seat)
        hidden = to_counts([*(t for s, h in enumerate(w.hands) if s != seat for t in h), *w.wall])
        assert all(n <= left for n, left in zip(hidden, unseen_counts(view), strict=True))
        assert Hand.from_view(view, w.hands, w.hidden_gangs, w.wall).view(seat) == view


def test_same_looking_states_same_decision() -> None:
    """Two tables that differ only in what the seat cannot see: the same action for the same seed."""
    for seed, phase in ((0, "claim"), (1, "turn"), (2, "turn")):
        hand = play_until(seed, 24, phase)
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        other = sample_worlds(view, 1, seed=99)[0]
        twin = Hand.from_view(view, other.hands, other.hidden_gangs, other.wall)
        assert true_world(twin, seat) != true_world(hand, seat)
        assert twin.view(seat) == view
        assert choose_hard(twin.view(seat), seed, samples=4) == choose_hard(view, seed, samples=4)


def test_rollouts_score_with_the_tables_settlement() -> None:
    hand = play_until(5, 16)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    worlds = sample_worlds(view, 6, seed=0)
    points = evaluate(view, view.legal[:2], worlds)
    assert points[0] == [rollout(view, w, view.legal[0]) for w in worlds]
    assert all(-Rules().cap * 3 <= p <= Rules().cap * 3 for row in points for p in row)


def test_forced_choices_need_no_search() -> None:
    hand = play_until(2, 10)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    only = view.legal[-1]
    assert choose_hard(SeatView(**{**view.__dict__, "legal": (only,)}), 0, budget_ms=0) == only
    hu = Action(seat, "hu")
    assert choose_hard(SeatView(**{**view.__dict__, "legal": (hu, *view.legal)}), 0, budget_ms=0) == hu


def test_no_open_seat_needs_no_world(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only an open hand may 胡 on a discard: with every other seat closed, ``hard`` plays normal's discard
    without sampling a world."""
    hand = play_until(3, 4)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    assert not any(m.opens for s in range(4) if s != seat for m in view.melds[s])

    def no_world(*args: object) -> object:
        raise AssertionError("sampled a world")

    monkeypatch.setattr(search, "_sample", no_world)
    assert choose_hard(view, 0, samples=4) == ranked(view, "normal", 0)[0][1]


def test_hard_plays_whole_hands_legally_and_pickles() -> None:
    hand = Hand(Rules(), seed=11, dealer=1)
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        assert pickle.loads(pickle.dumps(view)) == view  # the bot sends views to a process pool
        action = choose_hard(view, 11, samples=2) if seat == 0 else choose(view, "normal", 11)
        assert action in hand.legal_actions(seat)
        hand.apply(action)


def deal_in_turns(seeds: range) -> list[tuple[Hand, dict[int, int]]]:
    """Turns (``normal`` play) where some discard would deal in, with what each such tile would cost the seat."""
    found = []
    for seed in seeds:
        hand = Hand(Rules(), seed=seed, dealer=seed % 4)
        while not hand.finished:
            seat = hand.waiting_on()[0]
            view = hand.view(seat)
            if hand.phase == "turn" and len(view.legal) > 1:
                wins = {
                    t: [st for s in range(4) if s != seat and (st := hand.discard_win(s, seat, t)) is not None]
                    for t in {a.tile for a in view.legal if a.kind == "discard" and a.tile is not None}
                }
                # one winner at most: the test needs no §5 order
                if any(wins.values()) and all(len(w) <= 1 for w in wins.values()):
                    paid = {t: -w[0].payments[seat] for t, w in wins.items() if w}
                    found.append((Hand.replay(Rules(), seed, seed % 4, hand.actions), paid))
            hand.apply(choose(view, "normal", seed))
    return found


def test_discard_win_is_the_claim_the_table_offers() -> None:
    """On every discard of whole hands, ``discard_win`` answers for each seat as the table's own claim offer."""
    offered = 0
    for seed in range(8):
        hand = Hand(Rules(), seed=seed, dealer=seed % 4)
        while not hand.finished:
            seat = hand.waiting_on()[0]
            tile = hand.claim_tile
            if hand.phase == "claim" and tile is not None:
                for s in range(4):
                    if s != hand.view(None).turn:
                        hu = any(a.kind == "hu" for a in hand.legal_actions(s))
                        assert (hand.discard_win(s, hand.view(None).turn, tile) is not None) == hu
                        offered += hu
            hand.apply(choose(hand.view(seat), "normal", seed))
    assert offered


def test_deal_in_costs_are_the_tables_settlement() -> None:
    turns = deal_in_turns(range(3))
    assert turns
    for hand, paid in turns:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        costs = deal_in_costs(view, [true_world(hand, seat)])
        assert costs == {t: float(paid.get(t, 0)) for t in costs}
        assert all(c > 0 for t, c in costs.items() if t in paid)


def cost(paid: dict[int, int], a: Action) -> int:
    return paid.get(a.tile, 0) if a.kind == "discard" and a.tile is not None else 0


def test_hard_turns_down_a_deal_in_it_is_sure_of(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shown the true world, ``hard`` leaves normal's discard when it deals in, for one that costs less."""
    changed = 0
    for hand, paid in deal_in_turns(range(6)):
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        world = true_world(hand, seat)
        monkeypatch.setattr(search, "_sample", lambda v, rng, w=world: w)
        action = choose_hard(view, 0, samples=2)
        pick = ranked(view, "normal", 0)[0][1]

        assert cost(paid, action) <= cost(paid, pick)
        changed += action != pick
    assert changed


def test_other_hands_are_kept_as_players_keep_them() -> None:
    ready = list(parse_tiles("123m456m789m234p5s"))
    junk = list(parse_tiles("1z3z5z7z"))
    kept, dropped = search._keep(junk[:2] + ready + junk[2:], len(ready), parse_tile("9s"), ())
    assert sorted(kept) == sorted(ready) and sorted(dropped) == sorted(junk)
    # Late in a hand, sampled hands are nearer a win than random draws of the same tiles.
    hand = play_until(5, 60)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    sampled = [
        distance(to_counts(w.hands[s]), view.laizi, view.melds[s])
        for w in sample_worlds(view, 20, 1)
        for s in range(4)
        if s != seat
    ]
    uniform = []
    for w in sample_worlds(view, 20, 2):
        pool = [t for h in (w.hands[s] for s in range(4) if s != seat) for t in h] + list(w.wall)
        random.Random(0).shuffle(pool)
        for s in range(4):
            if s != seat:
                uniform.append(distance(to_counts(pool[: view.hand_sizes[s]]), view.laizi, view.melds[s]))
                del pool[: view.hand_sizes[s]]
    assert sum(sampled) < sum(uniform)


def test_hard_takes_the_claims_that_bring_its_hand_closer() -> None:
    """On a 碰/吃 offer ``hard`` claims whenever that leaves it nearer a win (after its best discard), even
    where ``normal`` passes; with no such claim it plays ``normal``'s choice."""
    taken = kept = 0
    for seed in range(12):
        hand = Hand(Rules(), seed=seed, dealer=seed % 4)
        while not hand.finished:
            seat = hand.waiting_on()[0]
            view = hand.view(seat)
            if hand.phase == "claim" and not any(a.kind == "hu" for a in view.legal):
                counts = to_counts(list(view.hand))
                now = distance(counts, view.laizi, view.melds[seat])
                closer = [a for a in view.legal if a.kind in ("peng", "chi") and claim_distance(view, a, counts) < now]
                action = choose_hard(view, seed, samples=2)
                normal = choose(view, "normal", seed)
                if closer:
                    assert action in closer
                    taken += normal.kind == "pass"
                else:
                    assert action == normal
                    kept += 1
            hand.apply(choose(view, "normal", seed))
    assert taken and kept
