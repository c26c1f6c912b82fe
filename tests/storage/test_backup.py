"""Online backup: a consistent copy while a writer keeps writing, and the command line."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import Database
from storage.backup import main
from tests.storage.conftest import seat_match


@pytest.mark.sqlite_only  # PostgreSQL is backed up with pg_dump
async def test_backup_while_the_bot_writes(db: Database, tmp_path: Path) -> None:
    match = await seat_match(db)
    hand = await db.hands.start(match.id, seed=1, dealer=0)
    stop = asyncio.Event()

    async def writer() -> int:
        seq = 0
        while not stop.is_set():
            await db.hands.append_action(hand.id, seq, {"n": seq})
            seq += 1
        return seq

    task = asyncio.create_task(writer())
    await asyncio.sleep(0.05)
    copies = [await db.backup(tmp_path / f"copy{i}.sqlite3") for i in range(3)]
    stop.set()
    written = await task
    sizes = []
    for path in copies:
        # Each copy is a consistent snapshot: a gap-free prefix of the action log.
        copy = await Database.open(path)
        try:
            actions = await copy.hands.actions(hand.id)
            assert actions == [{"n": n} for n in range(len(actions))]
            sizes.append(len(actions))
        finally:
            await copy.close()
    assert sizes == sorted(sizes) and sizes[-1] <= written and written > 0


def test_command_line_backup(tmp_path: Path) -> None:
    source, dest = tmp_path / "bot.sqlite3", tmp_path / "backups" / "bot-copy.sqlite3"
    dest.parent.mkdir()

    async def fill() -> None:
        async with await Database.open(source) as db:
            await db.players.upsert(1, "Ann")
            await db.chats.update(-5, hands_per_game=4)

    asyncio.run(fill())
    done = subprocess.run(
        [sys.executable, "-m", "storage.backup", str(source), str(dest)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert f"to {dest}" in done.stdout and "schema version" in done.stdout
    with sqlite3.connect(dest) as copy:
        assert copy.execute("SELECT display_name FROM players").fetchall() == [("Ann",)]
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not (dest.parent / "bot-copy.sqlite3.partial").exists()


def test_command_line_refuses_bad_sources(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "missing.sqlite3"
    assert main([str(missing), str(tmp_path / "out.sqlite3")]) == 1
    assert "no database file" in capsys.readouterr().err
    assert not missing.exists()  # never created as a side effect
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    assert main([str(junk), str(tmp_path / "out.sqlite3")]) == 1
    assert "not a SQLite database" in capsys.readouterr().err
    assert not (tmp_path / "out.sqlite3").exists()
    assert main([str(junk), str(junk)]) == 1
    assert "another file" in capsys.readouterr().err
