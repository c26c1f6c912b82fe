"""The deploy/ files agree with the code: the console script, the database location, the configuration check,
the backup command and the BotFather list are the ones the bot really has."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from bot.commands import command_menu

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def test_the_image_runs_the_console_script_as_a_user_with_the_database_on_the_volume() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    scripts = project["project"]["scripts"]
    assert 'CMD ["mahjong-bot"]' in dockerfile and scripts["mahjong-bot"] == "bot.__main__:main"
    assert "USER mahjong" in dockerfile and 'VOLUME ["/data"]' in dockerfile
    assert "MAHJONG_DB=/data/mahjong.sqlite3" in dockerfile
    for package in project["tool"]["setuptools"]["packages"]["find"]["include"]:  # every package installed
        name = package.rstrip("*")
        assert f"COPY {name} ./{name}" in dockerfile
    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    assert "MAHJONG_DB: /data/mahjong.sqlite3" in compose and compose.count("mahjong-data:/data") == 2
    assert "python -m storage.backup /data/mahjong.sqlite3 /data/backups/" in compose


def test_the_systemd_units_check_the_configuration_and_back_up_the_state_directory() -> None:
    unit = (DEPLOY / "mahjong-bot.service").read_text(encoding="utf-8")
    assert "ExecStartPre=/opt/mahjong-bot/.venv/bin/python -m bot --check-config" in unit
    assert "ExecStart=/opt/mahjong-bot/.venv/bin/mahjong-bot" in unit
    db = re.search(r"^Environment=MAHJONG_DB=(\S+)$", unit, re.M)
    assert db is not None and db.group(1).startswith("/var/lib/mahjong-bot/") and "StateDirectory=mahjong-bot" in unit
    backup = (DEPLOY / "mahjong-bot-backup.service").read_text(encoding="utf-8")
    assert f"-m storage.backup {db.group(1)} /var/lib/mahjong-bot/backups/" in backup
    assert "OnCalendar=daily" in (DEPLOY / "mahjong-bot-backup.timer").read_text(encoding="utf-8")


def test_the_botfather_list_is_the_chinese_command_menu() -> None:
    listed = (DEPLOY / "botfather-commands.txt").read_text(encoding="utf-8").splitlines()
    assert listed == [f"{name} - {about}" for name, about in command_menu("zh")]
