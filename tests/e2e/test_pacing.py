"""Play that feels instant and fair, through the real bot process: a press shows on the presser's own picture
at once, the group never learns who is deciding a claim, and each hand's result stays as its own message."""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

from bot.callbacks import PlayButton, Stamp
from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import Chat, Message
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, Players, game_buttons

THINK_S = 0.3  # a quick player: reads the picture for a moment, then presses


def _captions(tg: FakeTelegram, chat: Chat) -> list[str]:
    """Every caption the bot gave a picture in the chat, in order (edits included)."""
    out = []
    for call in tg.calls(chat_id=chat.id):
        caption = call.params.get("caption")
        if caption is None and call.params.get("media"):
            caption = json.loads(str(call.params["media"])).get("caption")
        if caption:
            out.append(str(caption))
    return out


def _play_buttons(message: Message, group: Chat) -> list[str]:
    """The message's buttons for a game decision (not Ready or I'm back)."""
    return [
        b.callback_data or ""
        for b in game_buttons(message, group)
        if PlayButton.decode(b.callback_data).stamp != Stamp()
    ]


def _open(tg: FakeTelegram, group: Chat, alice: SimUser) -> None:
    alice.say(group, "/newgame")
    tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
    alice.say(group, "/begin")


def test_a_press_shows_on_the_pressers_own_picture_within_a_second(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("快群", members=[alice])
    # Production pacing (a write a second per private chat, lazy refreshes, the automatic players' own delay);
    # only the timers are long, so nothing times out while the test reads.
    production = {
        "MAHJONG_PRIVATE_INTERVAL": "1.0",
        "MAHJONG_PASSIVE_INTERVAL": "4.0",
        "MAHJONG_BOT_DELAY": "",
        "MAHJONG_TURN_SECONDS": "60",
        "MAHJONG_CLAIM_SECONDS": "60",
    }
    with BotProcess(tg, tmp_path / "db.sqlite3", MAHJONG_SEED="852", **production):
        _open(tg, group, alice)
        players = Players(tg, group, [alice])
        latencies = []
        while len(latencies) < 8:
            message = tg.wait_until(lambda: players.current(alice), timeout=30, what="Alice's next decision")
            time.sleep(THINK_S)
            message = players.current(alice)
            assert message is not None
            before = len(players.presses)
            pressed_at = time.monotonic()
            if not players.step():
                continue
            data = players.presses[before][1]

            def edited(was: Message = message) -> Message | None:
                now = tg.message(was.chat_id, was.message_id)
                return now if now.edits > was.edits else None

            shown = tg.wait_until(edited, timeout=10, what="Alice's picture after her press")
            latencies.append(time.monotonic() - pressed_at)
            # The picture shows the move made: the button pressed is no longer offered on it.
            assert data not in [b.callback_data for b in shown.buttons]
    assert statistics.median(latencies) <= 1.0, latencies
    assert max(latencies) <= 2.0, latencies


def test_the_group_never_sees_who_decides_and_each_result_stays(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("公平群", members=[alice])
    fast = {
        "MAHJONG_TURN_SECONDS": "0.3",
        "MAHJONG_CLAIM_SECONDS": "0.3",
        "MAHJONG_NEXT_HAND_SECONDS": "1",
        "MAHJONG_GROUP_INTERVAL": "0.5",
        # Automatic players that think a moment: a hand lasts seconds, so a group of the seated people alone is
        # shown each hand's deal before its result (a hand over within two writes is shown by its result alone).
        "MAHJONG_BOT_DELAY": "0.1",
    }
    with BotProcess(tg, tmp_path / "db.sqlite3", MAHJONG_SEED="852", **fast):
        _open(tg, group, alice)  # she never presses: 托管 plays for her, claims time out
        first = alice.wait_for_private_message(lambda m: "第 1 局结果" in (m.caption or ""), timeout=120)
        second = alice.wait_for_private_message(
            lambda m: m.photo is not None and m.message_id > first.message_id and "结果" not in (m.caption or ""),
            timeout=60,
        )
        assert second.message_id != first.message_id
        time.sleep(1.5)
        # The result (the first hand's own message) is still there, as it was, after the next hand opened its own.
        kept = tg.message(first.chat_id, first.message_id)
        assert "第 1 局结果" in (kept.caption or "") and kept.photo == first.photo
        # A claim window is shown as what it is, the discard (or 蓄杠) lying on the table: never "claims", nor
        # who may claim; otherwise whose turn it is.
        statuses = {t(key, "zh") for key in ("status_haidi", "status_over", "status_stopped")}
        seat = "[东南西北] .+"
        shown = [t(key, "zh", seat="§", tile="¶") for key in ("status_turn", "status_discard", "status_kong")]
        turn = re.compile("|".join("^" + re.escape(s).replace("§", seat).replace("¶", ".+") + "$" for s in shown))

        def tables() -> list[str]:  # the table's pictures (not the results); hands may be coalesced away
            return [c for c in _captions(tg, group) if c.startswith("第 ") and "结果" not in c]

        tg.wait_until(
            lambda: any(not c.startswith("第 1 局") for c in tables()), timeout=30, what="a later hand's table picture"
        )
        captions = tables()
        for caption in captions:
            status = caption.split("\n")[0].rsplit(" · ", 1)[1]
            assert status in statuses or turn.match(status), caption
        assert len(captions) >= 2  # both hands were shown
        # The first hand's picture lost its buttons when the hand ended: it is the result.
        assert not [m for m in alice.private_messages() if m.message_id <= first.message_id and _play_buttons(m, group)]
