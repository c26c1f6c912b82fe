"""`make run` without a token: the real bot process (`python -m bot`) in the local sandbox, and how
bot.local_sandbox decides and configures it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from bot.config import ConfigError
from bot.local_sandbox import FAST_PACING, banner, open_sandbox
from tests.sandbox.page_client import PageClient, SandboxProcess, free_port


def test_a_token_means_telegram() -> None:
    assert open_sandbox({"TELEGRAM_BOT_TOKEN": "123:abc"}) is None


def test_no_token_starts_the_sandbox_with_its_own_token_and_database() -> None:
    port = free_port()
    opened = open_sandbox({"MAHJONG_SANDBOX_LISTEN": f"127.0.0.1:{port}", "MAHJONG_GROUP_INTERVAL": "5"})
    assert opened is not None
    sandbox, env = opened
    try:
        assert sandbox.page_url == f"http://127.0.0.1:{port}" and not sandbox.fast
        assert env["TELEGRAM_BOT_TOKEN"] == sandbox.server.token
        assert env["TELEGRAM_API_BASE_URL"] == f"http://127.0.0.1:{port}/bot"
        assert env["MAHJONG_DB"].endswith("sandbox.sqlite3") and env["MAHJONG_GROUP_INTERVAL"] == "5"
        assert sandbox.server.group_writes_per_minute == 20  # Telegram's limit, unless fast
        live = env["MAHJONG_WEBAPP_LISTEN"].rpartition(":")[2]  # the live table beside it, on a port of its own
        assert env["MAHJONG_WEBAPP_URL"] == f"http://127.0.0.1:{live}/" and live != str(port)
        text = banner(sandbox)
        assert f"http://127.0.0.1:{port}" in text and "@BotFather" in text and "TELEGRAM_BOT_TOKEN" in text
    finally:
        sandbox.stop()


def test_fast_mode_and_a_chosen_database() -> None:
    env = {"MAHJONG_SANDBOX_LISTEN": f"127.0.0.1:{free_port()}", "MAHJONG_SANDBOX_FAST": "1", "MAHJONG_DB": "x.db"}
    opened = open_sandbox(env)
    assert opened is not None
    sandbox, bot_env = opened
    sandbox.stop()
    assert sandbox.fast and sandbox.server.group_writes_per_minute is None
    assert bot_env["MAHJONG_DB"] == "x.db" and all(bot_env[k] == v for k, v in FAST_PACING.items())


def test_a_taken_port_or_a_bad_setting_is_said_plainly() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}.*MAHJONG_SANDBOX_LISTEN"):
            open_sandbox({"MAHJONG_SANDBOX_LISTEN": f"127.0.0.1:{port}"})
    with pytest.raises(ConfigError, match="MAHJONG_SANDBOX_LISTEN must be host:port"):
        open_sandbox({"MAHJONG_SANDBOX_LISTEN": "8080"})
    with pytest.raises(ConfigError, match="MAHJONG_SANDBOX_FAST must be 1 or 0"):
        open_sandbox({"MAHJONG_SANDBOX_FAST": "very"})


def test_play_against_the_bot_through_the_page_api(tmp_path: Path) -> None:
    with SandboxProcess(tmp_path) as sandbox:
        assert f"Open {sandbox.url} in a browser" in sandbox.log()
        alice = PageClient(sandbox.url)
        alice.join("Alice", "en")
        me = alice.state()["me"]["id"]
        group = alice.post("/api/play", {})["chat"]
        hand = alice.wait_for(me, lambda m: m["photo"] and any(b.get("data") for r in m["keyboard"] for b in r))
        assert "Alice · table" in hand["text"] and "East" in hand["text"]  # her group speaks her language
        # Started: the lobby's buttons are gone.
        lobby = alice.wait_for(group, lambda m: "Mahjong table" in m["text"] and m["keyboard"] == [])
        assert "Alice" in lobby["text"]
        picture = alice.wait_for(group, lambda m: m["photo"] is not None)
        assert alice.request(picture["photo"])[1][:4] == b"\x89PNG"
        # It opened a table and nothing else: no /settings typed for her, no language menu.
        shown = alice.chat(group)["messages"]
        assert [m["text"] for m in shown if m["mine"]] == ["/newgame"]
        assert not any("⚙️" in m["text"] for m in shown)
        # Seated there, Play again makes nothing and names her table: the way back.
        chats = [c["id"] for c in alice.state()["chats"]]
        assert alice.post("/api/play", {}) == {"seated": group}
        assert [c["id"] for c in alice.state()["chats"]] == chats
        # The first to come owns the shared club: its settings are hers to change, not Bob's.
        club = chats[1]
        bob = PageClient(sandbox.url)
        bob.join("Bob", "en")
        for person in (alice, bob):
            person.post("/api/say", {"chat": club, "text": "/settings"})
        alice.wait_for(club, lambda m: m["text"].startswith("⚙️ 本群设置") and m["keyboard"] != [])  # the club's menu
        alice.wait_for(club, lambda m: m["text"] == "Only group admins can change the settings.")
        # A move (not 托管, the button that asks the automatic player to play on: its data ends with its code).
        button = next(b for row in hand["keyboard"] for b in row if "data" in b and not b["data"].endswith("|auto"))
        answer = alice.post("/api/press", {"chat": me, "message": hand["id"], "data": button["data"]})
        assert answer == {"answer": {"text": None, "alert": False}}  # answered, no notice: the move was played
        alice.wait_for(me, lambda m: (m["id"], m["edits"]) > (hand["id"], hand["edits"]))  # her hand, redrawn
    assert "Traceback" not in sandbox.log()
