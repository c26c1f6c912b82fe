"""Operations: the structured play log keeps secrets out, and the configuration check says what is wrong."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.config import Config, check_config
from bot.logs import log_action, log_event
from game.actions import Action
from game.tiles import parse_tile

TOKEN = "123456:" + "A" * 35


def test_one_key_value_line_per_action_without_a_concealed_kongs_tile(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bot.play"):
        log_action(-100, 7, 12, Action(2, "peng", parse_tile("5m")))
        log_action(-100, 7, 13, Action(1, "an_gang", parse_tile("9p")))
        log_action(-100, 7, 14, Action(3, "hu"))
    assert caplog.messages == [
        "event=action table=-100 hand=7 seq=12 seat=2 kind=peng tile=5m",
        "event=action table=-100 hand=7 seq=13 seat=1 kind=an_gang",
        "event=action table=-100 hand=7 seq=14 seat=3 kind=hu",
    ]


def test_values_with_spaces_or_quotes_are_quoted(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bot.play"):
        log_event("hand_end", table=-1, winner=None, note='a "b" c')
    assert caplog.messages == ['event=hand_end table=-1 note="a \\"b\\" c"']


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TELEGRAM_BOT_TOKEN": "not-a-token"}, "does not look like a bot token"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_CLAIM_SECONDS": "soon"}, "MAHJONG_CLAIM_SECONDS must be a number"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_WEBHOOK_URL": "ftp://x"}, "MAHJONG_WEBHOOK_URL must be"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_WEBHOOK_SECRET": "has space"}, "MAHJONG_WEBHOOK_SECRET must be"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_ADMIN_IDS": "12,ann"}, "MAHJONG_ADMIN_IDS must be"),
    ],
)
def test_a_bad_setting_is_exit_status_2_with_its_name(env: dict[str, str], message: str, tmp_path: Path) -> None:
    status, text = check_config(env | {"MAHJONG_DB": str(tmp_path / "db.sqlite3")})
    assert status == 2 and message in text


def test_webhook_configuration_is_summarised(tmp_path: Path) -> None:
    status, text = check_config(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "MAHJONG_DB": str(tmp_path / "db.sqlite3"),
            "MAHJONG_WEBHOOK_URL": "https://bot.example.org/tg",
            "MAHJONG_WEBHOOK_LISTEN": "127.0.0.1:8443",
        }
    )
    assert status == 0
    assert "webhook https://bot.example.org/tg (listening on 127.0.0.1:8443)" in text


def test_the_mini_apps_caps_and_whose_address_counts_are_summarised(tmp_path: Path) -> None:
    env = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "MAHJONG_DB": str(tmp_path / "db.sqlite3"),
        "MAHJONG_WEBAPP_URL": "https://x.org/m/",
    }
    status, text = check_config(env | {"MAHJONG_WEBAPP_PER_ADDRESS": "50"})
    assert status == 0 and "at most 1000 connections, 50 pages an address: the peer's, no proxy trusted" in text
    status, text = check_config(env | {"MAHJONG_WEBAPP_PROXY": "1"})
    assert status == 0 and "20 pages an address: the proxy's X-Real-IP" in text
    assert check_config(env | {"MAHJONG_WEBAPP_PROXY": "maybe"})[0] == 2


def test_workers_serve_the_webhook_and_the_mini_app_with_one_secret_and_redis() -> None:
    """Every worker takes Telegram's posts and serves pages: one secret all of them check, Redis for the pages'
    frames; without either, refused in one line, not started half-way."""
    workers = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "MAHJONG_DB": "postgresql://mahjong@db.example/mahjong",
        "MAHJONG_WORKERS": "1",
    }
    page = {"MAHJONG_WEBAPP_URL": "https://bot.example.org/mahjong/"}
    hook = {"MAHJONG_WEBHOOK_URL": "https://bot.example.org/tg"}
    assert check_config(workers | page) == (
        2,
        "configuration error: MAHJONG_WORKERS=1 with the Mini App needs MAHJONG_REDIS (the pages' frames go through"
        " it)",
    )
    assert check_config(workers | hook) == (
        2,
        "configuration error: MAHJONG_WORKERS=1 with a webhook needs MAHJONG_WEBHOOK_SECRET (every worker checks it)",
    )
    status, text = check_config(
        workers | page | hook | {"MAHJONG_REDIS": "redis://db.example:6379/0", "MAHJONG_WEBHOOK_SECRET": "s3cret"}
    )
    assert status == 0 and "webhook https://bot.example.org/tg" in text and "Mini App https://bot.example.org" in text


def test_the_webhook_listens_on_loopback_unless_configured() -> None:
    assert Config.from_env({"TELEGRAM_BOT_TOKEN": TOKEN}).webhook_listen == ("127.0.0.1", 8443)


def test_a_database_path_under_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    status, text = check_config({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_DB": str(tmp_path / "file" / "db.sqlite3")})
    assert status == 2 and "is not a directory" in text


def test_a_postgresql_database_is_summarised_without_its_password(tmp_path: Path) -> None:
    url = "postgresql://mahjong:s3cret@db.example:5432/mahjong"
    status, text = check_config({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_DB": url})
    assert status == 0 and "database postgresql://mahjong:***@db.example:5432/mahjong;" in text
    assert "s3cret" not in text
    status, text = check_config({"TELEGRAM_BOT_TOKEN": TOKEN, "MAHJONG_DB": f"sqlite:///{tmp_path}/x/db.sqlite3"})
    assert status == 0 and not (tmp_path / "x").exists()  # checked, not created
