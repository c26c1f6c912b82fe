"""/settings and the standings commands (/me, /top, /rank, /history with its replays) against the real bot process.

The module plays once: Alice, a group admin, opens a table that automatic players fill; during the first hand
she switches the group to English and the koukoufan preset through the /settings menu. The first hand is
played to its end under the old settings, the second starts under the new ones. The standings tests then read
what that first hand left behind, in the group (now English) and in private; each answer to a person's command
in their own language (Alice's is Chinese, Bob's English), in the group too. (A table
at the ``hard`` level chosen in the menu: tests/e2e/test_search_worker.py.)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.i18n import t
from game.titles import START_SKILL, title_for
from sandbox import FakeTelegram
from sandbox.records import Chat, Message
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, Players, group_texts


@dataclass
class Played:
    tg: FakeTelegram
    group: Chat
    alice: SimUser  # admin, Telegram in Chinese
    bob: SimUser  # member, Telegram in English
    db: Path
    bot: BotProcess
    menu: Message  # the settings menu as Alice last saw it
    captions: list[str]  # the captions Alice's pictures showed from the change on, through the second hand's first


def _press_and_wait(tg: FakeTelegram, user: SimUser, message: Message, data: str) -> Message:
    """Press a settings button; the menu message once the bot has edited it."""
    before = message.edits
    query = user.press(message, data)
    tg.wait_for_callback_answer(query, timeout=10)
    return tg.wait_until(
        lambda: (m := tg.message(message.chat_id, message.message_id)) and m.edits > before and m,
        timeout=15,
        what="the settings menu edited",
    )


def _caption(user: SimUser) -> str:
    """The caption of the newest picture in the user's private chat (it is edited in place)."""
    return next((m.caption or "" for m in reversed(user.private_messages()) if m.photo is not None), "")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    with FakeTelegram() as tg:
        alice = tg.add_user("Alice")
        bob = tg.add_user("Bob", language_code="en")
        group = tg.add_group("牌友群", members=[alice, bob], admins=[alice])
        db = tmp_path_factory.mktemp("table") / "db.sqlite3"
        # Alice's turn waits for her while she uses the menu; group writes a second apart keep the test short.
        with BotProcess(tg, db, MAHJONG_SEED="852", MAHJONG_TURN_SECONDS="120", MAHJONG_GROUP_INTERVAL="1") as bot:
            alice.say(group, "/newgame")
            tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
            alice.say(group, "/begin")
            alice.wait_for_private_message(lambda m: m.photo is not None and bool(m.buttons), timeout=15)
            alice.say(group, "/settings")
            menu = tg.wait_for_message(group.id, lambda m: "本群设置" in (m.text or ""), timeout=15)
            menu = _press_and_wait(tg, alice, menu, "st1|p|preset")
            menu = _press_and_wait(tg, alice, menu, "st1|s|preset|koukoufan")
            menu = _press_and_wait(tg, alice, menu, "st1|p|main")
            menu = _press_and_wait(tg, alice, menu, "st1|p|language")
            menu = _press_and_wait(tg, alice, menu, "st1|s|language|en")
            captions = [_caption(alice)]

            def second_hand_seen() -> bool:
                if _caption(alice) != captions[-1]:
                    captions.append(_caption(alice))
                return any("第 1 局结果" in c for c in captions) and "你是" in captions[-1]

            Players(tg, group, [alice]).play_until(second_hand_seen, timeout=60)
            yield Played(tg, group, alice, bob, db, bot, menu, captions)
            alice.say(group, "/stop")
            tg.wait_for_message(group.id, lambda m: "Game over" in (m.text or ""), timeout=15)
            assert "Traceback" not in bot.log()


def test_a_setting_changed_during_a_hand_applies_from_the_next_hand(played: Played) -> None:
    texts = "\n".join(group_texts(played.tg, played.group))
    assert "⚙️ Alice 把「规则」改为 口口翻, 下一局起生效。" in texts
    assert "⚙️ Alice set Language to English; it applies from the next hand." in texts
    # The first hand stayed Chinese and 开口翻 to its end; the second is English (in the group) and 口口翻.
    *first_hand, second_hand = played.captions
    assert len(first_hand) > 2 and all("赖子" in c or "第 1 局结果" in c for c in first_hand)
    # Alice's private pictures speak her own language (Chinese) while the group now speaks English.
    assert "你是" in second_hand and "wildcard" not in second_hand
    with sqlite3.connect(played.db) as db:
        presets = [row[0] for row in db.execute("SELECT json_extract(rules, '$.preset') FROM hands ORDER BY id")]
    assert presets == ["kaikoufan", "koukoufan"]
    # The menu itself now speaks English and shows the language page with the choice ticked.
    assert played.menu.text == "⚙️ Language: English\nThe group's language."
    assert [b.text for b in played.menu.buttons] == ["中文", "✓ English", "‹ Back"]


def test_settings_refused_to_a_member_who_is_not_an_admin(played: Played) -> None:
    tg, bob = played.tg, played.bob
    bob.say(played.group, "/settings")
    # (Announcements waiting together are sent as one message.)
    tg.wait_for_message(
        played.group.id, lambda m: "Only group admins can change the settings." in (m.text or ""), timeout=10
    )
    query = bob.press(played.menu, "st1|s|language|zh")  # a button of the admin's menu
    assert tg.wait_for_callback_answer(query).text == "Only group admins can change the settings."
    with sqlite3.connect(played.db) as db:
        assert db.execute("SELECT language FROM chats WHERE id = ?", (played.group.id,)).fetchone() == ("en",)


def _ask(tg: FakeTelegram, user: SimUser, chat_id: int, text: str, done: object) -> Message:
    before = len(tg.messages(chat_id))
    user.say(chat_id, text)
    return tg.wait_until(
        lambda: next((m for m in tg.messages(chat_id)[before:] if done(m)), None),  # type: ignore[operator]
        timeout=15,
        what=f"an answer to {text}",
    )


def test_me_shows_the_card_picture_in_the_askers_language(played: Played) -> None:
    tg, alice, bob = played.tg, played.alice, played.bob
    # In the (now English) group, each one's card answers in their own language: Alice's Telegram is Chinese.
    in_group = _ask(tg, alice, played.group.id, "/me", lambda m: m.photo is not None and "技能值" in (m.caption or ""))
    assert "Alice · " in (in_group.caption or "") and "1 局 0 胜" in (in_group.caption or "")
    assert in_group.photo is not None and in_group.photo.width == 1000
    private = _ask(tg, alice, alice.id, "/me", lambda m: m.photo is not None)
    assert "技能值" in (private.caption or "") and "1 局" in (private.caption or "")
    # Bob never played a hand: no "best hand +0", and his language (English), the group's too.
    card = _ask(tg, bob, played.group.id, "/me", lambda m: m.photo is not None and "Bob · " in (m.caption or ""))
    assert (card.caption or "").endswith(f"skill {START_SKILL}\nno hand yet\n{t('rating_none', 'en')}")


def test_top_shows_the_groups_leaderboard_for_all_time_and_this_month(played: Played) -> None:
    tg, alice, bob = played.tg, played.alice, played.bob
    board = _ask(tg, bob, played.group.id, "/top", lambda m: m.photo is not None and "Leaderboard" in (m.caption or ""))
    assert "All time · players: 1" in (board.caption or "")
    query = bob.press(board, "sd1|top|month")
    tg.wait_for_callback_answer(query)
    month = tg.wait_until(
        lambda: (m := tg.message(board.chat_id, board.message_id)) and "This month" in (m.caption or "") and m,
        timeout=15,
    )
    assert "This month · players: 1" in (month.caption or "") and month.photo is not None
    assert "/top" in (_ask(tg, alice, alice.id, "/top", lambda m: bool(m.text)).text or "")  # per group only
    # Alice's /top in the English group: hers is Chinese.
    _ask(tg, alice, played.group.id, "/top", lambda m: m.photo is not None and "本群排行榜" in (m.caption or ""))
    # An error in answer to her own command too, while the group's messages stay English.
    already = _ask(tg, alice, played.group.id, "/newgame", lambda m: bool(m.text) and m.text != "/newgame")
    assert already.text == "这个群已经有一张桌了。"


def test_rank_lists_the_titles_with_the_players_own(played: Played) -> None:
    tg, alice, bob = played.tg, played.alice, played.bob
    with sqlite3.connect(played.db) as db:
        skill = db.execute("SELECT skill FROM players WHERE id = ?", (alice.id,)).fetchone()[0]
    ranks = _ask(tg, bob, played.group.id, "/rank", lambda m: "Titles" in (m.text or "")).text or ""
    assert f"(your skill: {START_SKILL})" in ranks and "Grandmaster  ≥ 150000" in ranks
    assert "Kindergartener  < 0" in ranks
    title = title_for(skill)
    # Hers, in the English group and in private alike, in her language.
    in_group = _ask(tg, alice, played.group.id, "/rank", lambda m: "头衔表" in (m.text or "")).text or ""
    private = _ask(tg, alice, alice.id, "/rank", lambda m: "头衔表" in (m.text or "")).text or ""
    assert in_group == private
    assert "宗师  ≥ 150000" in private and [line for line in private.splitlines() if line.startswith("👉")] == [
        f"👉 {title.zh}  " + ("< 0" if title.min_skill is None else f"≥ {title.min_skill}")
    ]


def test_history_lists_the_hand_and_replays_it_from_the_players_seat(played: Played) -> None:
    tg, alice = played.tg, played.alice
    listing = _ask(tg, alice, alice.id, "/history", lambda m: "最近的牌局" in (m.text or ""))
    assert (listing.text or "").count("\n1. ") == 1 and "\n2. " not in (listing.text or "")
    # ▶ opens the step-by-step picture replay; the hand's code also gives its text log from her seat.
    code = (listing.text or "").split("\n1. ")[1].split("\n")[0].rsplit(" · ", 1)[1]
    query = alice.press(listing, "▶ 1")
    tg.wait_for_callback_answer(query)
    pictured = alice.wait_for_private_message(lambda m: m.photo is not None and "⏮" in str(m.reply_markup), timeout=15)
    assert [b.text for b in pictured.keyboard[0]] == ["⏮", "◀", "▶", "⏭"] and code in (pictured.caption or "")
    alice.say(alice.id, f"/replay {code} text")
    replay = alice.wait_for_private_message(lambda m: "局回放" in (m.text or ""), timeout=15).text or ""
    lines = replay.splitlines()
    assert lines[0].startswith("第 1 局回放 · 开口翻") and lines[2].startswith("你的起手: ")
    assert any(" 打 " in line for line in lines) and lines[-1].startswith("结算: ")
    # The seats are named once, then by their winds; her own draws are there, another seat's never are.
    wind = next(part.split()[0] for part in lines[1].split(" · ") if part.endswith("Alice"))
    assert sum("Alice" in line for line in lines) == 1
    draws = [line for line in lines if " 摸 " in line]
    assert draws and all(line.startswith(wind) for line in draws)
    in_group = _ask(tg, alice, played.group.id, "/history", lambda m: "最近的牌局" in (m.text or ""))
    assert in_group.text == listing.text  # hers, in her language, in the English group too
