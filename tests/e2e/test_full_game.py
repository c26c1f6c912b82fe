"""Four simulated people play two whole hands against the real bot process: joining (one of them through
the private-chat link), 碰, 杠, a 抢杠 win, Ready, and a 荒庄 — with the group never over 20 writes a minute.

Match seed 852 with ``tests.e2e.policy`` (winning only by 抢杠) was chosen offline with the engine: its first
hand ends in a 抢杠 after 53 actions, its second in a 荒庄. ``test_seed_still_leads_there`` re-checks that.
"""

from __future__ import annotations

import json
from pathlib import Path

from game.match import Match
from game.rules import Rules
from sandbox import FakeTelegram
from sandbox.records import Chat
from tests.e2e.players import PRODUCTION, BotProcess, Players, group_texts
from tests.e2e.policy import pick

SEED = 852


def _rob_only(caption: str) -> bool:
    return "抢杠" in caption


def _captions_shown(tg: FakeTelegram, group: Chat) -> list[str]:
    """Every caption the group's pictures have shown, edits included (a message keeps only its latest)."""
    captions = []
    for call in tg.calls(chat_id=group.id):
        if call.method.lower() == "editmessagemedia":
            media = call.params["media"]
            captions.append(str((json.loads(media) if isinstance(media, str) else media).get("caption", "")))
        elif call.method.lower() == "sendphoto":
            captions.append(str(call.params.get("caption", "")))
    return captions


def test_seed_still_leads_there() -> None:
    match = Match(Rules(), SEED)
    outcomes = []
    for _ in range(2):
        hand = match.new_hand()
        while not hand.finished:
            seat = hand.waiting_on()[0]
            rob = hand.phase == "rob"
            hand.apply(pick(hand.legal_actions(seat), lambda _a, rob=rob: rob))
        outcomes.append("rob" if hand.result is not None and hand.result.how == "rob_gang" else hand.exhausted)
        match.finish_hand(hand)
    assert outcomes == ["rob", True]


def test_two_hands_with_peng_gang_rob_and_exhausted_draw(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol")]
    dan = tg.add_user("Dan", started=False)
    group = tg.add_group("牌友群", members=[*users, dan], admins=users[:1])
    with BotProcess(tg, tmp_path / "db.sqlite3", MAHJONG_SEED=str(SEED), **PRODUCTION) as bot:
        users[0].say(group, "/newgame")
        for u in users[1:]:
            u.say(group, "/join")
        dan.say(group, "/join")
        # Each /join gets its own reply, writes ~3 s apart in a group: give the fourth reply time.
        refusal = tg.wait_for_message(group.id, lambda m: "Dan" in (m.text or "") and bool(m.buttons), timeout=40)
        dan.open_link(refusal.buttons[0].url or "")  # the deep link opens the private chat and seats him
        lobby = tg.wait_for_message(
            group.id, lambda m: "Dan" in (m.text or "") and "开局" in str(m.reply_markup), timeout=15
        )
        users[0].press(lobby, "开局")
        players = Players(tg, group, [*users, dan], allow_hu=_rob_only)
        players.play_until(lambda: any("荒庄" in t for t in group_texts(tg, group)), timeout=80)
        texts = "\n".join(group_texts(tg, group))
        assert "抢杠" in texts and "荒庄" in texts
        shown = "\n".join(_captions_shown(tg, group))  # 碰 and 杠 are told in the group picture's caption
        assert "碰" in shown and " 杠 " in shown
        assert tg.max_writes_per_minute(group.id) <= 20
        # Every player saw their own hand, never anyone else's buttons, and no press was refused as foreign.
        answers = [tg.callback_answer(q) for _, _, q in players.presses]
        assert all(a is None or a.text != "这不是你的按钮。" for a in answers)
        assert "Traceback" not in bot.log()
