"""The group's picture is for people who are not at the table (issue 40), through the real bot process: two
tables of four people play the same hand at once, instantly; one group's members are exactly its four players, the
other's are its four players and one more. The first group's picture is written at the deal and at the end, and
between them only at its idle pace (``MAHJONG_GROUP_IDLE_INTERVAL``), never further behind than that; the second's
at the group's pace, as every discard comes."""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

from sandbox import FakeTelegram
from sandbox.records import ApiCall, Chat
from tests.e2e.players import BotProcess, Players, open_table

IDLE = 3.0  # the idle pace here (30 s deployed): well apart from the group's own (FAST: 0.3 s)
SLACK = 0.25  # the outbox's pace and the fake server's clock differ by a little
LATE = 2.5  # a picture due is drawn and sent within this, on a loaded machine too (seen: 1.56 s at load 20)
MELD = re.compile(r" (碰|杠) \S+$| 暗杠$", re.M)  # a meld told in the caption (赖子杠 and 红中杠 are no melds)


def _pictures(tg: FakeTelegram, group: Chat) -> list[tuple[float, str]]:
    """(server time, caption) of every write of the group's pictures, in order: the deal's to the result."""
    out = []
    for call in tg.calls(chat_id=group.id):
        if call.ok and call.method in ("sendPhoto", "editMessageMedia"):
            out.append((call.at, _caption(call)))
    return out


def _caption(call: ApiCall) -> str:
    if call.method == "sendPhoto":
        return str(call.params.get("caption") or "")
    return str(json.loads(str(call.params["media"])).get("caption") or "")


def _hand(pictures: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The first hand's: up to its result (everyone's Ready may have dealt the next one meanwhile)."""
    end = next(i for i, (_, caption) in enumerate(pictures) if caption.startswith("第 1 局结果"))
    return pictures[: end + 1]


def _gaps(pictures: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """(time since the picture before, caption) of every write after the deal's."""
    return [(at - before, caption) for (before, _), (at, caption) in itertools.pairwise(pictures)]


def test_a_group_of_the_players_alone_sees_its_picture_at_the_idle_pace_and_a_watched_group_every_discard(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    seated = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
    others = [tg.add_user(n) for n in ("Erin", "Finn", "Gus", "Hana")]
    alone = tg.add_group("四人群", members=seated)
    watched = tg.add_group("观众群", members=[*others, tg.add_user("Olga")])  # Olga only watches
    # Held draws up to half a second (FAST holds a tenth): a hand long enough to show the idle pace.
    env = {"MAHJONG_SEED": "852", "MAHJONG_CLAIM_PAUSE": "0.5", "MAHJONG_GROUP_IDLE_INTERVAL": str(IDLE)}
    with BotProcess(tg, tmp_path / "db.sqlite3", **env) as bot:
        open_table(tg, alone, seated)
        open_table(tg, watched, others)
        tables = [Players(tg, alone, seated), Players(tg, watched, others)]

        def over(group: Chat) -> bool:
            return any("第 1 局结果" in (m.caption or "") for m in tg.messages(group.id))

        deadline = time.monotonic() + 180
        while not (over(alone) and over(watched)):
            assert time.monotonic() < deadline, "the hands did not end"
            if not sum(p.step() for p in tables):
                time.sleep(0.02)
        assert "Traceback" not in bot.log()
    assert {c.chat_id for c in tg.calls("getChatMemberCount") if c.ok} == {alone.id, watched.id}

    # The players' own group: the deal, then every write waited the idle pace after the one before (a meld too),
    # and never longer than that (and the group's pace) once the table had changed; the result at once.
    pictures = _hand(_pictures(tg, alone))
    assert pictures[0][1].startswith("第 1 局 · ") and pictures[-1][1].startswith("第 1 局结果")
    gaps = _gaps(pictures)
    assert [(gap, caption) for gap, caption in gaps[:-1] if gap < IDLE - SLACK] == []
    assert max(gap for gap, _ in gaps) < IDLE + LATE, gaps
    assert len(gaps) >= 3, gaps  # idle ones between the deal and the result
    assert any(MELD.search(caption) for _, caption in pictures), pictures  # a meld told, riding on an idle write

    # The watched group: every discard as it comes, at the group's pace.
    watched_gaps = _gaps(_hand(_pictures(tg, watched)))
    discards = [gap for gap, caption in watched_gaps[:-1] if gap < 1.0 and not MELD.search(caption)]
    assert len(discards) >= 10, watched_gaps
    assert len(watched_gaps) > 2 * len(gaps), (len(watched_gaps), len(gaps))
