"""Quick match through the loopback Bot API and the real bot process (one shared per module): /play, the
preset, the queue's one message, four people seated together, two with automatic players after their wait,
Cancel, queueing twice, and the rating a finished match gives (checked against openskill's own numbers). A
restart while waiting runs its own bot (it is killed). Waits are short through MAHJONG_QUICK_WAITS only."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from openskill.models import PlackettLuce

from bot.i18n import t
from bot.live.auth import table_token
from bot.table.key import QUICK_BASE, TableKey
from game.rating import MIN_RATED_MATCHES, START
from sandbox import FakeTelegram
from sandbox.records import Message
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, Players, SharedBot
from tests.sandbox.page_client import free_port

# How long a test waits for the bot's answer to one step: liveness only (a loaded CI's first answers of a
# freshly started bot took over 10 s); the issue's own bounds (seated within 10 s) are asserted as they are.
WAIT = 30
ENV = {"MAHJONG_QUICK_WAITS": "2,60,90", "MAHJONG_QUICK_HANDS": "1", "MAHJONG_SEED": "852"}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedBot]:
    with FakeTelegram() as tg:
        db = tmp_path_factory.mktemp("quick") / "db.sqlite3"
        port = free_port()  # the Mini App on: the matched people get the spectators' link
        live = {"MAHJONG_WEBAPP_URL": f"http://127.0.0.1:{port}/", "MAHJONG_WEBAPP_LISTEN": f"127.0.0.1:{port}"}
        with BotProcess(tg, db, **ENV, **live, MAHJONG_WEBAPP_NAME="table") as bot:
            yield SharedBot(tg, bot, db)
            assert "Traceback" not in bot.log()


def _rows(db: Path, sql: str, *args: object) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return list(conn.execute(sql, args))


def _newest(tg: FakeTelegram, user: SimUser, *labels: str, before: int = 0) -> Message:
    """The user's newest private message (after the first ``before``) with a button labelled one of ``labels``."""

    def found() -> Message | None:
        for m in reversed(user.private_messages()[before:]):
            if any(b.text in labels for b in m.buttons):
                return m
        return None

    return tg.wait_until(found, timeout=WAIT, what=f"a message with one of {labels!r}")


def queue(tg: FakeTelegram, user: SimUser, wait: str | None = None) -> Message:
    """``/play``, the first preset; ``wait``: then that wait's button. Their waiting message (in their language):
    with Cancel, or already what it became when this person filled a table (the outbox writes a message's newest
    content only, so a waiting message matched before its turn to be sent is first shown matched)."""
    before, lang = len(user.private_messages()), "en" if user.language_code == "en" else "zh"
    user.say(user.id, "/play")
    choice = _newest(tg, user, t("value_preset_kaikoufan", lang), before=before)
    user.press(choice, t("value_preset_kaikoufan", lang))
    waiting = _newest(tg, user, t("btn_quick_cancel", lang), t("btn_quick", lang), before=before)
    if wait is not None:
        user.press(waiting, wait)
    return waiting


def quick_table(db: Path, user: SimUser) -> TableKey | None:
    """The quick table where the user sits (stored) once their private picture of it came, if any."""
    rows = _rows(db, """SELECT m.chat_id FROM matches m JOIN match_seats s ON s.match_id = m.id
                        WHERE s.player_id = ? AND m.chat_id < ? ORDER BY m.id DESC""", user.id, QUICK_BASE)  # fmt: skip
    if not rows or not any(m.photo for m in user.private_messages()):
        return None
    return TableKey(rows[0]["chat_id"])


def together(db: Path, people: list[SimUser]) -> TableKey | None:
    """The one quick table all of ``people`` sit at, once each has their picture of it."""
    keys = {quick_table(db, p) for p in people}
    return keys.pop() if len(keys) == 1 and None not in keys else None


def test_four_people_are_seated_together_and_rated_as_openskill_says(shared: SharedBot) -> None:
    tg = shared.begin().tg
    people = [tg.add_user(f"Quick{i}") for i in range(4)]
    started = time.monotonic()
    for p in people:
        queue(tg, p)
    key = tg.wait_until(lambda: together(shared.db, people), timeout=10, what="four people at one quick table")
    assert time.monotonic() - started < 10
    # Each was told, with the link anyone may watch their table by (there is no group to watch it in).
    matched = t("quick_matched", "zh", people=4)
    for p in people:
        said = tg.wait_until(
            lambda p=p: next((m.text for m in p.private_messages() if matched in (m.text or "")), None),
            timeout=10,
            what="the matched message",
        )
        assert f"startapp={table_token(key, tg.token)}" in said
    assert not _rows(shared.db, "SELECT * FROM quick_queue")
    # No group: nothing of the table went to a chat but the players' own.
    assert not tg.messages(key.chat_id)
    table = SimpleNamespace(id=key.chat_id)
    Players(tg, table, people).play_until(  # type: ignore[arg-type]
        lambda: _rows(shared.db, "SELECT status FROM matches WHERE chat_id = ? AND status = 'done'", key.chat_id),
        timeout=90,
    )
    match = _rows(shared.db, "SELECT id FROM matches WHERE chat_id = ?", key.chat_id)[0]
    seats = _rows(shared.db, "SELECT player_id, total FROM match_seats WHERE match_id = ? ORDER BY seat", match["id"])
    totals = [s["total"] for s in seats]
    model = PlackettLuce()
    ranks = [1 + sum(o > mine for o in totals) for mine in totals]
    expected = model.rate([[model.rating(mu=START.mu, sigma=START.sigma)] for _ in seats], ranks=ranks)
    for seat, team in zip(seats, expected, strict=True):
        rating = _rows(shared.db, "SELECT mu, sigma, matches FROM ratings WHERE player_id = ?", seat["player_id"])[0]
        assert rating["mu"] == pytest.approx(team[0].mu) and rating["sigma"] == pytest.approx(team[0].sigma)
        assert rating["matches"] == 1
    # The match's last result offers another quick match; /start play (the deep link) offers the presets.
    _newest(tg, people[0], t("btn_quick", "zh"))
    before = len(people[1].private_messages())
    people[1].say(people[1].id, "/start play")
    _newest(tg, people[1], t("value_preset_koukoufan", "zh"), before=before)
    # /me shows it with its range and place.
    before = len(people[0].private_messages())
    people[0].say(people[0].id, "/me")
    card = tg.wait_until(
        lambda: next((m for m in people[0].private_messages()[before:] if "等级分" in (m.caption or "")), None),
        timeout=10,
        what="the card with the rating",
    )
    assert "全站第" in (card.caption or "")
    # /top global: nobody has the rated matches it asks for yet.
    before = len(people[0].private_messages())
    people[0].say(people[0].id, "/top global")
    empty = t("top_global_empty", "zh", n=MIN_RATED_MATCHES)
    tg.wait_until(lambda: any(empty in (m.text or "") for m in people[0].private_messages()[before:]),
                  timeout=10, what="/top global")  # fmt: skip


def test_two_people_get_automatic_players_after_their_wait(shared: SharedBot) -> None:
    tg = shared.begin().tg
    a, b = tg.add_user("Wait A"), tg.add_user("Wait B")
    short = t("value_seconds", "zh", n=2)
    queue(tg, a, short)
    queue(tg, b, short)
    key = tg.wait_until(lambda: together(shared.db, [a, b]), timeout=15, what="their quick table")
    seats = _rows(shared.db, """SELECT s.player_id, s.auto_level FROM match_seats s JOIN matches m
                                ON m.id = s.match_id WHERE m.chat_id = ?""", key.chat_id)  # fmt: skip
    assert sorted(s["player_id"] for s in seats if s["player_id"]) == sorted([a.id, b.id])
    assert sum(s["auto_level"] is not None for s in seats) == 2
    # At a quick table: /play is refused, naming it.
    before = len(a.private_messages())
    a.say(a.id, "/play")
    tg.wait_until(
        lambda: any(t("quick_elsewhere", "zh", table="")[:6] in (m.text or "") for m in a.private_messages()[before:]),
        timeout=10,
        what="/play refused at another table",
    )


def test_cancel_and_queueing_twice(shared: SharedBot) -> None:
    tg = shared.begin().tg
    c = tg.add_user("Cancel C")
    waiting = queue(tg, c)
    assert _rows(shared.db, "SELECT 1 FROM quick_queue WHERE player_id = ?", c.id)
    before = len(c.private_messages())
    c.say(c.id, "/play")  # twice: told so, still one waiting message
    tg.wait_until(lambda: any(t("quick_twice", "zh") in (m.text or "") for m in c.private_messages()[before:]),
                  timeout=10, what="queueing twice refused")  # fmt: skip
    c.press(waiting, t("btn_quick_cancel", "zh"))
    tg.wait_until(lambda: t("quick_left", "zh") in (tg.message(c.id, waiting.message_id).text or ""),
                  timeout=10, what="the message saying they left")  # fmt: skip
    assert not _rows(shared.db, "SELECT 1 FROM quick_queue WHERE player_id = ?", c.id)
    # In a group, /play says where it works.
    group = tg.add_group("群", members=[c])
    c.say(group, "/play")
    tg.wait_until(lambda: any(t("quick_private_only", "zh") in (m.text or "") for m in tg.messages(group.id)),
                  timeout=10, what="/play refused in a group")  # fmt: skip


def test_the_queue_survives_a_restart(tmp_path: Path) -> None:
    with FakeTelegram() as tg:
        db = tmp_path / "db.sqlite3"
        people = [tg.add_user(f"Restart{i}", language_code="en") for i in range(4)]
        with BotProcess(tg, db, **ENV) as bot:
            waiting = queue(tg, people[0])
            tg.wait_until(lambda: "1" in (tg.message(people[0].id, waiting.message_id).text or ""),
                          timeout=10, what="the count")  # fmt: skip
            edits = tg.message(people[0].id, waiting.message_id).edits
            bot.kill()
            assert _rows(db, "SELECT 1 FROM quick_queue WHERE player_id = ?", people[0].id)
            bot.start()
            # Edited again, in place, by the matchmaker after the restart.
            tg.wait_until(lambda: tg.message(people[0].id, waiting.message_id).edits > edits,
                          timeout=10, what="the waiting message edited after the restart")  # fmt: skip
            for p in people[1:]:
                queue(tg, p)
            key = tg.wait_until(lambda: together(db, people), timeout=10, what="the four seated together")
            # Their table, killed mid-hand, is taken up again: each of them is told privately (no group), in the
            # table's language, its first person's (a quick table has no group's setting to keep it).
            bot.kill()
            bot.start()
            resumed = t("resumed", "en")
            for p in people:
                tg.wait_until(lambda p=p: any(resumed in (m.text or "") for m in p.private_messages()),
                              timeout=15, what="the quick table resumed")  # fmt: skip
            assert not tg.messages(key.chat_id)
            assert "Traceback" not in bot.log()


def test_one_who_blocked_the_bot_leaves_the_queue(shared: SharedBot) -> None:
    tg = shared.begin().tg
    gone, other = tg.add_user("Blocked"), tg.add_user("Other")
    queue(tg, gone)  # the default wait (60 s): nobody is seated before the test ends
    gone.block_bot()
    queue(tg, other)  # the count changes: the bot writes to the blocked one, who answers 403
    deadline = time.monotonic() + 10
    while _rows(shared.db, "SELECT 1 FROM quick_queue WHERE player_id = ?", gone.id):
        assert time.monotonic() < deadline, "the blocked person is still in the queue"
        time.sleep(0.1)
    assert _rows(shared.db, "SELECT 1 FROM quick_queue WHERE player_id = ?", other.id)
    other.press(_newest(tg, other, t("btn_quick_cancel", "zh")), t("btn_quick_cancel", "zh"))
