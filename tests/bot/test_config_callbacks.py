"""bot.config (environment, .env, the missing-token exit) and bot.callbacks (compact versioned data)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.callbacks import MAX_BYTES, BadCallback, PlayButton, Stamp, code_of, parse_action_code
from bot.config import Config, ConfigError, load_dotenv
from bot.table.key import TableKey
from game.actions import ACTION_KINDS, TILE_ACTIONS, Action

ROOT = Path(__file__).resolve().parents[2]


def test_dotenv_fills_only_what_the_environment_lacks(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\nexport TELEGRAM_BOT_TOKEN='1:abc'\nMAHJONG_DB=/data/x.sqlite3  # where\n\nMAHJONG_LANG=en\n",
        encoding="utf-8",
    )
    env = {"MAHJONG_LANG": "zh"}
    load_dotenv(env_file, env)
    assert env == {"TELEGRAM_BOT_TOKEN": "1:abc", "MAHJONG_DB": "/data/x.sqlite3", "MAHJONG_LANG": "zh"}
    config = Config.from_env(env)
    assert (config.token, config.db_path, config.lang) == ("1:abc", "/data/x.sqlite3", "zh")


def test_dotenv_rejects_a_line_that_is_not_key_value(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("JUST SOME WORDS\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\.env:1"):
        load_dotenv(env_file, {})


def test_self_hosted_server_urls() -> None:
    config = Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:8081/"})
    assert config.api_base_url == "http://127.0.0.1:8081/bot"
    assert config.file_base_url == "http://127.0.0.1:8081/file/bot"
    assert Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a"}).file_base_url == "https://api.telegram.org/file/bot"


def test_workers_are_off_unless_configured_and_need_postgresql() -> None:
    single = Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a"})
    assert (single.workers, single.redis_url, single.workers_expected) == (False, None, 1)
    pg = {"TELEGRAM_BOT_TOKEN": "1:a", "MAHJONG_DB": "postgresql://bot@db/mahjong", "MAHJONG_WORKERS": "1"}
    config = Config.from_env(pg | {"MAHJONG_REDIS": "redis://cache:6379/0", "MAHJONG_WORKERS_EXPECTED": "3"})
    assert (config.workers, config.redis_url, config.workers_expected) == (True, "redis://cache:6379/0", 3)
    assert (single.worker_rate, config.worker_rate) == (single.global_rate, config.global_rate / 3)
    with pytest.raises(ConfigError, match="needs MAHJONG_DB=postgresql"):
        Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a", "MAHJONG_WORKERS": "1"})  # SQLite: one process only
    with pytest.raises(ConfigError, match="with a webhook needs MAHJONG_WEBHOOK_SECRET"):
        Config.from_env(pg | {"MAHJONG_WEBHOOK_URL": "https://bot.example/hook"})
    hooked = Config.from_env(pg | {"MAHJONG_WEBHOOK_URL": "https://bot.example/hook", "MAHJONG_WEBHOOK_SECRET": "s"})
    assert (hooked.workers, hooked.webhook_url) == (True, "https://bot.example/hook")
    with pytest.raises(ConfigError, match="must be 1"):
        Config.from_env(pg | {"MAHJONG_WORKERS": "many"})
    with pytest.raises(ConfigError, match="redis:// URL"):
        Config.from_env(pg | {"MAHJONG_REDIS": "cache:6379"})


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("MAHJONG_CLAIM_SECONDS", "soon", "number of seconds"),
        ("MAHJONG_TURN_SECONDS", "0", "at least"),
        ("MAHJONG_SEED", "x", "integer"),
        ("MAHJONG_LANG", "fr", "zh or en"),
        ("MAHJONG_LOG_LEVEL", "LOUD", "DEBUG"),
        ("TELEGRAM_API_BASE_URL", "localhost", "not a URL"),
        ("MAHJONG_QUICK_WAITS", "60,30,180", "shortest first"),
        ("MAHJONG_QUICK_WAITS", "30,60", "three waits"),
        ("MAHJONG_QUICK_HANDS", "0", "at least 1"),
    ],
)
def test_bad_settings_are_named(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a", key: value})


def test_timers_come_from_the_group_unless_set() -> None:
    assert Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a"}).claim_seconds is None
    assert Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a", "MAHJONG_CLAIM_SECONDS": "2.5"}).claim_seconds == 2.5


def test_without_a_token_a_bad_sandbox_setting_is_explained_with_exit_2(tmp_path: Path) -> None:
    # Without a token the bot opens the local sandbox (tests/sandbox/test_sandbox_run.py); its settings are checked.
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env | {"PYTHONPATH": str(ROOT), "MAHJONG_SANDBOX_LISTEN": "8080"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "MAHJONG_SANDBOX_LISTEN must be host:port" in done.stderr and "Traceback" not in done.stderr


def _every_action() -> list[Action]:
    out = []
    for kind in ACTION_KINDS:
        tiles = range(34) if kind in TILE_ACTIONS else [None]
        out += [Action(3, kind, t) for t in tiles]  # type: ignore[arg-type]
    return out


def test_every_action_round_trips_within_64_bytes() -> None:
    table = TableKey(-1001234567890123, 2147483647)  # longer than any real chat id, in the last topic there can be
    for action in _every_action():
        data = PlayButton(table, Stamp(999999999999, 999999, 3), code_of(action)).encode()
        assert len(data.encode()) <= MAX_BYTES
        press = PlayButton.decode(data)
        assert press.table == table and press.stamp.seat == 3 and parse_action_code(press.code, 3) == action


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "v2|-1|1.2.0|d5m",
        "v1|abc|1.2.0|d5m",
        "v1|-1|1.2|d5m",
        "v1|-1|1.2.0|",
        "v1|-1|x|d5m",
        "v1|-1|1.2.0|d5m|extra",
        "v1|-1_|1.2.0|d5m",
        "v1|-1_99999999999|1.2.0|d5m",
        "v1|-1_-5|1.2.0|d5m",
    ],
)
def test_foreign_data_is_refused(data: str | None) -> None:
    with pytest.raises(BadCallback):
        PlayButton.decode(data)


@pytest.mark.parametrize("code", ["q", "d", "d0m", "p8z", "zz"])
def test_unknown_action_codes_are_refused(code: str) -> None:
    with pytest.raises(BadCallback):
        parse_action_code(code, 0)


def test_search_processes_default_to_the_cores_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"TELEGRAM_BOT_TOKEN": "1:a"}
    assert Config.from_env(base | {"MAHJONG_SEARCH_PROCESSES": "3"}).search_workers == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert Config.from_env(base).search_workers == 3  # one core left to the event loop
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5}, raising=False)  # taskset -c 5, a cpuset of one
    assert Config.from_env(base).search_workers == 1
    for bad in ("0", "two", "1.5"):
        with pytest.raises(ConfigError, match="MAHJONG_SEARCH_PROCESSES must be a whole number"):
            Config.from_env(base | {"MAHJONG_SEARCH_PROCESSES": bad})
