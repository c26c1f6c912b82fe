"""Verifiable deals (game.verify): commitments, the command line, and per-hand seeds in a match."""

from __future__ import annotations

import random

import pytest

from game.match import Match
from game.rules import Rules
from game.table import Hand
from game.tiles import format_tiles
from game.verify import (
    VerifyError,
    commitment,
    deal_lines,
    fresh_salt,
    fresh_seed,
    main,
    matches,
    parse_reveal,
    reveal_text,
)
from tests.game.test_properties import choose


def test_a_commitment_verifies_and_a_wrong_seed_or_salt_does_not() -> None:
    seed, salt = fresh_seed(), fresh_salt()
    digest = commitment(seed, salt)
    assert len(digest) == 64 and matches(reveal_text(seed, salt), digest)
    assert matches(reveal_text(seed, salt).upper(), digest.upper())  # hex case does not matter
    assert not matches(reveal_text(seed ^ 1, salt), digest)
    assert not matches(reveal_text(seed, fresh_salt()), digest)
    assert not matches(reveal_text(seed, salt), commitment(seed + 1, salt))


def test_fresh_seeds_and_salts_are_random_and_in_range() -> None:
    seeds = {fresh_seed() for _ in range(200)}
    assert len(seeds) == 200 and all(0 <= s < 2**63 for s in seeds)
    assert len({fresh_salt() for _ in range(50)}) == 50


@pytest.mark.parametrize("bad", ["", "12", "12:xyz", "-1:" + "0" * 32, f"{2**63}:" + "0" * 32, "1:" + "0" * 31])
def test_malformed_reveals_are_refused(bad: str) -> None:
    with pytest.raises(VerifyError):
        parse_reveal(bad)


def test_the_printed_deal_is_the_deal_of_hand(capsys: pytest.CaptureFixture[str]) -> None:
    seed, salt = 8_123_456_789_012_345, fresh_salt()
    for dealer in (0, 2):
        assert main([reveal_text(seed, salt), commitment(seed, salt), "--dealer", str(dealer)]) == 0
        out = capsys.readouterr().out.splitlines()
        hand = Hand(Rules(), seed, dealer)
        dealt = [e.data["hand"] for e in hand.log if e.kind == "deal"]
        printed = [line.rsplit(": ", 1)[1] for line in out if line.startswith("seat ")]
        assert printed == dealt
        assert f"seat {dealer} (dealer, 14 tiles)" in "\n".join(out)
        wall_line = out[out.index(next(x for x in out if x.startswith("wall ("))) + 1]
        assert wall_line.split() == [format_tiles([t]) for t in hand.wall.tiles_left()]
        assert out == [out[0], *deal_lines(seed, dealer)]


def test_command_line_reports_a_mismatch_and_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    salt = fresh_salt()
    assert main([reveal_text(5, salt), commitment(6, salt)]) == 1
    assert "NOT MATCHING" in capsys.readouterr().out
    for args in (["5:nothex", commitment(5, salt)], [reveal_text(5, salt), "abc"], ["only-one"]):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "error:" in err and "Traceback" not in err


def test_a_match_deals_hands_with_their_own_seeds() -> None:
    match, rng = Match(Rules(), seed=1), random.Random(2)
    for _ in range(3):
        seed = fresh_seed()
        hand = match.new_hand(seed)
        assert hand.seed == seed
        while not hand.finished:
            hand.apply(choose(hand, rng))
        match.finish_hand(hand)
    # after a restart: the stored seed and actions rebuild the hand, and the match accepts it
    seed = fresh_seed()
    played = match.new_hand(seed)
    while not played.finished:
        played.apply(choose(played, rng))
    restarted = Match.from_json(match.to_json())
    resumed = restarted.resume_hand(seed, played.actions)
    assert resumed.view(None) == played.view(None)
    assert restarted.finish_hand(resumed) == match.finish_hand(played)
