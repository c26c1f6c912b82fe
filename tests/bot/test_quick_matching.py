"""Who the matchmaker seats together (bot.quick.matching, pure): four within the widening band, the oldest with
automatic players once their wait is over, never the same people a third time in a row while others wait; and
the quick-match buttons and keys within Telegram's limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.callbacks import MAX_BYTES, QUICK_PATTERN, PlayButton, Stamp, quick_data
from bot.quick.matching import BAND_START, BAND_WIDENS, groups
from bot.table.key import QUICK_LAST, TableKey
from bot.views.quick_views import preset_content, waiting_content
from game.rating import START, Rating
from storage.quick import Waiting

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


def person(pid: int, waited: float = 0.0, mu: float = START.mu, wait_s: int = 60, **kw: frozenset[int]) -> Waiting:
    return Waiting(pid, f"p{pid}", "en", "kaikoufan", wait_s, NOW - timedelta(seconds=waited), Rating(mu, 8.0), **kw)


def ids(found: list) -> list[list[int]]:  # type: ignore[type-arg]
    return [sorted(w.player_id for w in g.people) for g in found]


def test_four_near_ratings_sit_together_and_a_far_one_waits() -> None:
    queue = [person(1), person(2, mu=26), person(3, mu=24), person(4, mu=50), person(5, mu=25.5)]
    assert ids(groups(queue, NOW)) == [[1, 2, 3, 5]]


def test_the_band_widens_with_waiting() -> None:
    far = BAND_START + BAND_WIDENS * 10 - 0.5  # within the band after 10 s
    queue = [person(1, waited=10), person(2, mu=START.mu + far), person(3, waited=10), person(4, waited=10)]
    assert ids(groups(queue, NOW)) == [[1, 2, 3, 4]]  # every two within the wider of their bands
    assert ids(groups([person(1), person(2, mu=START.mu + far), person(3), person(4)], NOW)) == []


def test_after_the_wait_automatic_players_take_the_empty_seats() -> None:
    assert ids(groups([person(1, waited=61), person(2, waited=5)], NOW)) == [[1, 2]]
    assert ids(groups([person(1, waited=59), person(2, waited=5)], NOW)) == []
    assert ids(groups([person(1, waited=31, wait_s=30)], NOW)) == [[1]]


def test_presets_never_mix() -> None:
    other = Waiting(9, "p9", "en", "koukoufan", 60, NOW, START)
    assert ids(groups([person(1), person(2), person(3), other], NOW)) == []


def test_never_the_same_people_a_third_time_while_others_wait() -> None:
    def again(pid: int) -> Waiting:
        others = frozenset({1, 2, 3, 4} - {pid})
        return person(pid, waited=1, last=others, earlier=others)

    same = [again(1), again(2), again(3), again(4)]
    assert ids(groups(same, NOW)) == [[1, 2, 3, 4]]  # nobody else waits: they may play again
    found = ids(groups([*same, person(5, waited=1)], NOW))
    assert found and found[0] != [1, 2, 3, 4] and 5 in found[0]


def test_quick_buttons_and_keys_fit() -> None:
    import re

    contents = [preset_content("zh"), waiting_content("en", "koukoufan", 399, 180, (30, 60, 180), resumed=True)]
    for content in contents:
        assert content.markup is not None
        for row in content.markup.inline_keyboard:
            for b in row:
                assert len((b.callback_data or "").encode()) <= MAX_BYTES and re.match(QUICK_PATTERN, b.callback_data)
    assert re.match(QUICK_PATTERN, quick_data("go")) and not re.match(QUICK_PATTERN, quick_data("x"))
    last = TableKey.quick(QUICK_LAST)
    assert last.is_quick and TableKey.parse(last.token) == last and not TableKey(-1001234567890).is_quick
    data = PlayButton(last, Stamp(10**9, 999, 3), "d5m").encode()
    assert len(data.encode()) <= MAX_BYTES and PlayButton.decode(data).table == last
