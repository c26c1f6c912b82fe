"""The deploy/ files agree with the code: the console script, the database location, the configuration check,
the backup command and the BotFather list are the ones the bot really has."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

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


def _caddy_upstreams(caddyfile: str, path: str) -> tuple[list[str], str]:
    """The upstreams of the reverse_proxy under ``path``'s handle block, and the block itself."""
    block = re.search(rf"handle(?:_path)? {re.escape(path)} \{{(.*?)\n\t\}}", caddyfile, re.S)
    assert block is not None, f"no handle block for {path}"
    proxy = re.search(r"reverse_proxy ([^{\n]+) \{", block.group(1))
    assert proxy is not None
    return proxy.group(1).split(), block.group(1)


def test_the_workers_profile_runs_workers_behind_caddy_with_health_checks() -> None:
    """compose's `workers` profile: PostgreSQL, Redis, the workers, each taking the webhook and serving the live
    table, each health-checked on its /healthz, and Caddy in front (TLS for the domain) spreading the webhook's
    posts and the pages over every one of them, an unhealthy one left out."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    workers = sorted(name for name, s in services.items() if s.get("environment", {}).get("MAHJONG_WORKERS") == "1")
    assert len(workers) >= 3 and "bot" not in workers
    for name in workers:
        worker = services[name]
        env = worker["environment"]
        assert worker["profiles"] == ["workers"] and worker["image"] == services["bot"]["image"]
        assert env["MAHJONG_DB"].startswith("postgresql://") and env["MAHJONG_DB"].endswith("@postgres:5432/mahjong")
        assert env["MAHJONG_REDIS"] == "redis://redis:6379/0"
        assert env["MAHJONG_WEBHOOK_URL"] == "https://${MAHJONG_DOMAIN:-}/telegram-hook"
        assert env["MAHJONG_WEBAPP_URL"] == "https://${MAHJONG_DOMAIN:-}/mahjong/"
        assert env["MAHJONG_WEBHOOK_LISTEN"] == "0.0.0.0:8443" and env["MAHJONG_WEBAPP_LISTEN"] == "0.0.0.0:8090"
        assert env["MAHJONG_WEBAPP_PROXY"] == "1"
        assert "http://127.0.0.1:8443/healthz" in " ".join(worker["healthcheck"]["test"])
        assert worker["depends_on"]["postgres"]["condition"] == "service_healthy"
    for backing in ("postgres", "redis"):
        assert services[backing]["profiles"] == ["workers"]
    proxy = services["proxy"]
    assert proxy["image"].split(":")[0] == "caddy" and proxy["profiles"] == ["workers"]
    assert sorted(proxy["depends_on"]) == workers and {"80:80", "443:443"} <= set(proxy["ports"])
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"] and (DEPLOY / "Caddyfile").is_file()
    assert proxy["environment"]["MAHJONG_DOMAIN"] == "${MAHJONG_DOMAIN:-}"
    assert set(compose["volumes"]) >= {"caddy-data", "caddy-config"}

    caddyfile = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    assert re.search(r"^\{\$MAHJONG_DOMAIN\} \{$", caddyfile, re.M)  # a site on the domain: automatic HTTPS
    hook, hook_block = _caddy_upstreams(caddyfile, "/telegram-hook")
    pages, page_block = _caddy_upstreams(caddyfile, "/mahjong/*")
    assert hook == [f"{w}:8443" for w in workers] and pages == [f"{w}:8090" for w in workers]
    for block in (hook_block, page_block):
        assert "health_uri /healthz" in block and "lb_try_duration" in block
    assert "header_up X-Real-IP {remote_host}" in page_block
