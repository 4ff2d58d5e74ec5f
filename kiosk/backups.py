"""The kiosk database's backups and copies: a rotating set of checked copies, each saying whose it
is; a snapshot of the live file; the integrity check every copy passes before it is trusted."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from kiosk.schema import SCHEMA_VERSION, floor_of
from kiosk.store import Store, StoreError, is_damage, trouble

BACKUP_PREFIX = "clabber-"
BACKUP_OF_KEY = "backup_of"  # in a backup: the database it was taken of (its absolute path)


def check_file(path: Path, *, live: bool = False, thorough: bool = True) -> str | None:
    """Why a database file is damaged, or None when it passes ``integrity_check``.

    ``live`` opens it for writing, so that a write-ahead log left by a crash is recovered
    rather than mistaken for damage. Without ``thorough`` only the header, the schema and the
    newest rows are read (fast on any size). Only what SQLite calls corrupt counts as damage:
    any other failure (full, locked, read-only, permissions, I/O) raises StoreTrouble, since
    that is no reason to move the file aside."""
    try:
        conn = sqlite3.connect(path) if live else sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if thorough:
                result = conn.execute("PRAGMA integrity_check").fetchall()
            else:
                result = [("ok",)]
                conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchone():
                    conn.execute("SELECT * FROM events ORDER BY id DESC LIMIT 50").fetchall()
                    conn.execute("SELECT * FROM games ORDER BY id DESC LIMIT 50").fetchall()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            floor = floor_of(conn, version, tables)
        finally:
            conn.close()
    except sqlite3.Error as e:
        if is_damage(e):
            return f"not a readable SQLite database ({e})"
        raise trouble(path, e) from None
    if result != [("ok",)]:
        return "integrity check failed: " + "; ".join(r[0] for r in result[:3])
    if version > SCHEMA_VERSION and floor > SCHEMA_VERSION:
        return f"made by a newer version of the kiosk (schema {version}, this one knows {SCHEMA_VERSION})"
    if version >= 1 and "events" not in tables:
        return "has no event log"
    return None


def back_up(store: Store, folder: Path, keep: int) -> Path:
    """A consistent copy of the live database (SQLite's online backup) into a rotating set."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{BACKUP_PREFIX}{stamp}.db"
    partial = target.with_suffix(".partial")
    try:
        dest = sqlite3.connect(partial)
        try:
            store.conn.backup(dest)
            dest.execute("PRAGMA journal_mode = DELETE")
            # The copy says whose it is: a restore takes only a database's own backups.
            with dest:
                dest.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                    (BACKUP_OF_KEY, str(store.path.resolve())),
                )
        finally:
            dest.close()
        # The copy is checked, not the live file: nothing waits for the check, and a copy of
        # a damaged file never joins the set and pushes a good one out.
        why = check_file(partial)
        if why is not None:
            raise StoreError(f"the copy is damaged ({why}): run clabber db check")
        fsync(partial)
        os.replace(partial, target)
        fsync(folder)
    except (sqlite3.Error, OSError, StoreError) as e:
        partial.unlink(missing_ok=True)
        raise StoreError(f"backup to {folder} failed: {e}") from None
    for old in backups(folder, of=store.path)[keep:]:  # another database's backups are not ours to drop
        old.unlink(missing_ok=True)
    return target


def copy_into(source: Path, dest: Path, *, wal: bool = False) -> None:
    """Copies a database file page by page with SQLite's backup API (sound even while it is in use).


    ``wal``: the source may be in use by the kiosk, with a write-ahead log and no ``-shm`` yet, which
    only a connection that may write can read; it waits for a lock up to five seconds."""
    src = sqlite3.connect(source) if wal else sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        if wal:
            src.execute("PRAGMA busy_timeout = 5000")
        out = sqlite3.connect(dest)
        try:
            src.backup(out)
        finally:
            out.close()
    finally:
        src.close()


def backups(folder: Path, of: Path | None = None) -> list[Path]:
    """The backups in a folder, newest first; ``of``: only those taken of that database (a folder
    may hold the backups of several, and a copy that does not say whose it is belongs to none)."""
    if not folder.is_dir():
        return []
    found = sorted(folder.glob(f"{BACKUP_PREFIX}*.db"), reverse=True)
    if of is None:
        return found
    mine = str(of.resolve())
    return [b for b in found if backup_of(b) == mine]


def backup_of(backup: Path) -> str | None:
    """The database a backup was taken of, as the copy says, or None."""
    try:
        conn = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (BACKUP_OF_KEY,)).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def snapshot(path: Path, dest: Path) -> None:
    """A consistent copy of ``path`` (with what its write-ahead log holds) made with SQLite's
    online backup: a read transaction only, so the kiosk goes on saving meanwhile."""
    try:
        copy_into(path, dest, wal=True)
    except sqlite3.Error as e:
        if is_damage(e):
            raise StoreError(f"{path}: not a readable SQLite database ({e})") from None
        raise trouble(path, e, "cannot take a snapshot to check") from None


def fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
