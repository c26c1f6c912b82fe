"""The real bot process on PostgreSQL (MAHJONG_DB=postgresql://…): a hand played through the loopback Bot API,
the process SIGKILLed in the middle of it, resumed from PostgreSQL's action log and played to its settlement."""

from __future__ import annotations

from pathlib import Path

from bot.i18n import t
from sandbox import FakeTelegram
from storage.copy_to_postgres import check_hands
from tests.e2e.players import BotProcess, Players, on_postgres, pg_query


def test_a_hand_on_postgresql_survives_a_kill(fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("牌桌", members=[alice])
    players = Players(tg, group, [alice])
    bot = BotProcess(tg, tmp_path / "bot.sqlite3", MAHJONG_DB=postgres_url, MAHJONG_SEED="852").start()
    try:
        alice.say(group, "/newgame")
        tg.wait_for_message(group.id, lambda m: "Alice" in (m.text or "") and bool(m.buttons), timeout=30)
        alice.say(group, "/begin")

        def stored() -> int:
            return int(pg_query(postgres_url, "SELECT COUNT(*) FROM actions")[0][0])

        players.play_until(lambda: stored() >= 12, timeout=60)
        bot.kill()
        assert not (tmp_path / "bot.sqlite3").exists()  # everything went to PostgreSQL
        before = stored()

        bot.start()
        resumed = t("resumed", "zh")
        tg.wait_for_message(group.id, lambda m: resumed in (m.text or "") or resumed in (m.caption or ""), timeout=30)
        players = Players(tg, group, [alice])
        players.play_until(lambda: pg_query(postgres_url, "SELECT 1 FROM hands WHERE status = 'done'"), timeout=90)
        alice.say(group, "/stop")
        tg.wait_until(
            lambda: not pg_query(postgres_url, "SELECT 1 FROM matches WHERE status = 'running'"),
            timeout=30,
            what="the table stopped",
        )
        log = bot.log()
    finally:
        bot.stop()
    (hand,) = pg_query(postgres_url, "SELECT id, status FROM hands WHERE status = 'done'")
    assert (
        stored() > before and on_postgres(postgres_url, check_hands) >= 1
    )  # every hand replays from its seed; zero-sum
    assert len(pg_query(postgres_url, "SELECT 1 FROM settlements WHERE hand_id = $1", hand["id"])) == 4
    assert "Traceback" not in log and "postgresql://" not in log  # nor its address (a password) in the log
