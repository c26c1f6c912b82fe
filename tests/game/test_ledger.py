"""The books of a settled hand (game.ledger): shares with the flee penalties, and a player's gain from theirs."""

from __future__ import annotations

from game.ledger import Share, book, gain_of
from game.titles import title_named


def test_a_share_adds_the_flee_penalties_and_only_the_winners_own_winnings_count_as_a_win() -> None:
    # Seat 3 fled (-30, paid to the three others); seat 0 won 24 from the others.
    shares = book(payments=(24, -8, -8, -8), penalties=(10, 10, 10, -30), winner=0)
    assert shares == [Share(34, 24), Share(2, None), Share(2, None), Share(-38, None)]
    # An exhausted hand with a flight: the compensation is points, never a win.
    assert [s.won for s in book((0, 0, 0, 0), (10, 10, 10, -30), None)] == [None] * 4


def test_a_gain_moves_the_skill_by_the_points_and_the_title_follows_it() -> None:
    gain = gain_of(280, Share(34, 24))
    assert (gain.points, gain.skill_after, gain.wins, gain.biggest_win) == (34, 314, 1, 24)
    assert gain.title_after == title_named("初中生")  # 300 reached
    loss = gain_of(310, Share(-38, None))
    assert (loss.skill_after, loss.wins, loss.biggest_win, loss.title_after) == (272, 0, 0, title_named("小学生"))
