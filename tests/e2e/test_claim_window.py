"""Nothing shown is ever taken back (issue 40): two people and two automatic players through the real bot
process; the first person asked about a discard deliberates over it for 5 s. Meanwhile the other person and the
group see the discard on the table and nobody drawn; every caption the group and the other person are sent
comes in the order of the stored action log (replayed), the wall count never goes back, and no draw is shown
before it has happened."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from pathlib import Path

from bot.callbacks import PlayButton, code_of
from game.actions import Action
from game.table import Hand
from sandbox import FakeTelegram
from sandbox.records import ApiCall, Message
from sandbox.users import SimUser
from storage.codec import load_rules
from tests.e2e.players import BotProcess, Players, game_buttons, open_table
from tests.sandbox.test_live_browser import replayed_views

DELIBERATION = 5.0
WALL = re.compile(r"余 (\d+) 张")
WINDS = {"东": 0, "南": 1, "西": 2, "北": 3}


class Deliberating(Players):
    """Presses at once, except the first claim anyone is asked about: looked at for DELIBERATION seconds."""

    # Who, their prompt's (message id, edits), its caption, when it came (server clock).
    deliberation: tuple[SimUser, tuple[int, int], str, float] | None = None

    def _looked_at(self, user: SimUser, message: Message) -> bool:
        codes = {PlayButton.decode(b.callback_data or "").code for b in game_buttons(message, self.group)}
        version = (message.message_id, message.edits)
        if self.deliberation is None and code_of(Action(0, "pass")) in codes:
            self.deliberation = (user, version, message.caption or "", self.tg.clock())
        if self.deliberation is not None and self.deliberation[:2] == (user, version):
            return self.tg.clock() - self.deliberation[3] >= DELIBERATION
        return super()._looked_at(user, message)


def _captions(tg: FakeTelegram, chat_id: int, *, whole: bool = False) -> list[tuple[float, str]]:
    """Every picture's caption written to the chat, in the order written: (server time, its first line, or the
    ``whole`` caption)."""
    out = []
    for call in tg.calls(chat_id=chat_id):
        caption = _caption(call)
        if call.ok and caption is not None:
            out.append((call.at, caption if whole else caption.split("\n")[0]))
    return out


def _caption(call: ApiCall) -> str | None:
    if call.method in ("sendPhoto", "editMessageCaption"):
        return str(call.params.get("caption") or "") or None
    if call.method == "editMessageMedia":
        media = call.params.get("media")
        return json.loads(media).get("caption") if isinstance(media, str) else None
    return None


def _group_state(caption: str) -> tuple[int, str, int | None]:
    """(wall, phase, seat) a group caption says: whose turn, or whose discard lies on the table."""
    wall = int(WALL.findall(caption)[0])
    status = caption.rsplit(" · ", 1)[1]
    if status.startswith("轮到 "):
        return wall, "turn", WINDS[status[3]]
    if " 打出 " in status:
        return wall, "claim", WINDS[status[0]]
    if " 蓄杠 " in status:
        return wall, "rob", WINDS[status[0]]
    return wall, "haidi" if status == "海底" else "over", None


def _stored_hand(db: Path) -> list[list[tuple[int, str, int | None]]]:
    """The first hand as stored, replayed: the group's (wall, phase, seat) at every state it may be shown."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as raw:
        hand_id, seed, dealer, rules = raw.execute(
            "SELECT id, seed, dealer, rules FROM hands WHERE hand_no = 1"
        ).fetchone()
        rows = raw.execute("SELECT action FROM actions WHERE hand_id = ? ORDER BY seq", (hand_id,)).fetchall()
    hand = Hand(load_rules(rules, "hand"), seed, dealer)
    views = replayed_views(hand, [Action.from_json(json.loads(a)) for (a,) in rows])
    return [[(v.wall_remaining, v.phase, None if v.phase in ("haidi", "over") else v.turn)] for *_, v in views]


def test_while_a_person_deliberates_over_a_claim_nobody_sees_a_draw_that_has_not_happened(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("牌友群", members=[alice, bob])
    db = tmp_path / "db.sqlite3"
    # A held draw up to half a second (FAST holds a tenth): long enough for the group, written every 0.3 s, to be
    # shown one.
    with BotProcess(tg, db, MAHJONG_SEED="852", MAHJONG_CLAIM_PAUSE="0.5") as bot:
        open_table(tg, group, [alice, bob])
        players = Deliberating(tg, group, [alice, bob])

        def over() -> bool:  # both have their result (the group hears of the end first: a bot stopped then may not
            # have sent them theirs)
            return all(any("第 1 局结果" in (m.caption or "") for m in u.private_messages()) for u in (alice, bob))

        players.play_until(over, timeout=180)
        assert "Traceback" not in bot.log()
    assert players.deliberation is not None, "nobody was asked about a discard in the first hand"
    deliberator, _, prompt, since = players.deliberation
    other = bob if deliberator is alice else alice
    until = since + DELIBERATION
    # While the deliberator thinks, the group and the other person see the discard on the table, the wall as it
    # was: what they were last shown before the decision, and anything shown while it was awaited.
    wall = int(WALL.findall(prompt)[0])
    group_captions = [c for c in _captions(tg, group.id) if c[1].startswith("第 1 局 · ")]  # its tables, not its result
    seen = [(at, _group_state(c)) for at, c in group_captions if at < until]
    during = [state for at, state in seen if at > since] + [seen[-1][1]]
    assert all(state[:2] == (wall, "claim") for state in during), during
    other_captions = _captions(tg, other.id)
    end = next(i for i, (_, c) in enumerate(other_captions) if c.startswith("第 1 局结果"))  # then hand 2's
    other_walls = [(at, int(WALL.findall(c)[0])) for at, c in other_captions[:end] if WALL.search(c)]
    assert all(w >= wall for at, w in other_walls if at < until), other_walls
    # The whole hand: the other person's wall never goes back; the group's captions follow the stored log.
    walls = [w for _, w in other_walls]
    assert walls == sorted(walls, reverse=True), walls
    states, at = _stored_hand(db), 0
    for _, caption in group_captions:
        shown = _group_state(caption)
        at = next((k for k in range(at, len(states)) if shown in states[k]), -1)
        assert at >= 0, f"{caption!r} is no state of the stored hand after the one shown before it"
