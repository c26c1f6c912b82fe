"""Online backup: a consistent copy of the database file, taken while the bot keeps running.

    python -m storage.backup SRC DEST        # e.g. mahjong.sqlite3 backups/mahjong-2026-11-29.sqlite3
    await db.backup(DEST)                    # the same from inside the bot

Uses SQLite's backup API in one step (a read snapshot; in WAL mode writers are not blocked), writes
DEST.partial and renames it over DEST only once the copy passed quick_check, so DEST is never half-written.
The copy is a single self-contained file (rollback-journal mode); opening it with storage turns WAL on again.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import sys
from pathlib import Path

from storage.errors import StorageError


def backup_file(source: Path, dest: Path) -> Path:
    """Copy the database at source to dest (replaced atomically); returns dest."""
    if not source.is_file():
        raise StorageError(f"no database file at {source}")
    if dest.exists() and dest.resolve() == source.resolve():
        raise StorageError("the backup must go to another file than the database itself")
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        # mode=rw: never create an empty database where the source should be.
        with contextlib.closing(sqlite3.connect(f"file:{source}?mode=rw", uri=True)) as src:
            try:
                src.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.DatabaseError as exc:
                raise StorageError(f"{source} is not a SQLite database ({exc})") from None
            with contextlib.closing(sqlite3.connect(partial)) as out:
                src.backup(out)
                out.execute("PRAGMA journal_mode = DELETE")
                verdict = out.execute("PRAGMA quick_check").fetchone()[0]
                if verdict != "ok":
                    raise StorageError(f"the copy failed its check: {verdict}")
        os.replace(partial, dest)
    finally:
        partial.unlink(missing_ok=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage.backup", description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the bot's database file")
    parser.add_argument("dest", type=Path, help="where to write the copy (replaced if it exists)")
    args = parser.parse_args(argv)
    try:
        backup_file(args.source, args.dest)
    except (StorageError, sqlite3.Error, OSError) as exc:
        print(f"backup failed: {exc}", file=sys.stderr)
        return 1
    with contextlib.closing(sqlite3.connect(args.dest)) as copy:
        version = copy.execute("PRAGMA user_version").fetchone()[0]
    print(f"backed up {args.source} to {args.dest} (schema version {version}, {args.dest.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
