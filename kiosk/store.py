"""The game store: one SQLite file with an append-only event log and tables derived from it.

The log (``events``) is the truth: triggers refuse any UPDATE or DELETE on it; corrections and
undo are new events. ``games``, ``hands`` and ``drafts`` are kept current in the same
transaction as each event and can be rebuilt from the log at any time. Every connection runs
in WAL mode with ``synchronous=FULL``, so a hand the screen calls saved survives a power cut.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from kiosk.events import GameEvent

SCHEMA_VERSION = 1
FULL_CHECK_AT_START = 64 * 1024 * 1024  # bytes: about 15,000 games
BACKUP_PREFIX = "clabber-"

MIGRATIONS: list[str] = [
    # 1: the log, its guards, the derived tables and settings. Each save writes the fewest pages
    # it can: no AUTOINCREMENT (ids are never reused in an append-only log anyway), no index on
    # columns that change with every save, and hands stored by their key alone.
    """
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL CHECK (json_valid(payload)),
        action_id TEXT UNIQUE,
        source TEXT NOT NULL,
        authorised_by TEXT,
        reason TEXT,
        UNIQUE (game, seq)
    );
    CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events are never changed'); END;
    CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events are never deleted'); END;
    CREATE TABLE games (
        id INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE, started_at TEXT, updated_at TEXT, status TEXT,
        team_ns TEXT, team_ew TEXT, players TEXT, rules TEXT, first_dealer TEXT, dealer TEXT,
        rules_dealer TEXT, hands INTEGER, total_ns INTEGER, total_ew INTEGER, winner TEXT, last_seq INTEGER
    );
    CREATE INDEX games_by_status ON games (status, id);
    CREATE TABLE hands (
        game INTEGER NOT NULL, number INTEGER NOT NULL, dealer TEXT, makers TEXT,
        score_ns INTEGER, score_ew INTEGER, mark_ns TEXT, mark_ew TEXT, total_ns INTEGER, total_ew INTEGER,
        "set" INTEGER, passed_out INTEGER, renege TEXT, corrected INTEGER, record TEXT,
        entered_at TEXT, confirmed_at TEXT,
        PRIMARY KEY (game, number)
    ) WITHOUT ROWID;
    CREATE TABLE drafts (game INTEGER PRIMARY KEY, record TEXT, entered INTEGER, "by" TEXT, updated_at TEXT);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT);
    """,
]
DERIVED = ("games", "hands", "drafts")


class StoreError(RuntimeError):
    """The store could not do what was asked; the message says why, for the screen or the log."""


@dataclass(frozen=True)
class OpenReport:
    """What happened when the database was opened, for the screen to show (None when all was well)."""

    notice: str | None = None
    moved_to: Path | None = None
    restored_from: Path | None = None


def now_utc() -> str:
    """The current time, UTC, ISO 8601 to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _words(e: sqlite3.Error) -> str:
    text = str(e)
    if "full" in text:
        return "the Pi's storage is full: nothing was saved (free space, or restore onto a larger card)"
    if "readonly" in text or "read-only" in text:
        return "the database cannot be written (read-only file or disk): nothing was saved"
    if "locked" in text or "busy" in text:
        return "the database is busy in another program: nothing was saved; try again"
    if "append-only" in text:
        return text
    return f"the database refused the change: {text}"


def _connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        conn.execute("PRAGMA query_only = ON")
    else:
        conn = sqlite3.connect(path, isolation_level=None)  # transactions are explicit: see writing()
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def check_file(path: Path, *, live: bool = False, thorough: bool = True) -> str | None:
    """Why a database file cannot be used, or None when it passes ``integrity_check``.

    ``live`` opens it for writing, so that a write-ahead log left by a crash is recovered
    rather than mistaken for damage. Without ``thorough`` only the header, the schema and the
    newest rows are read (fast on any size). A file that cannot be opened at all (permissions)
    raises StoreError: that is no reason to move it aside."""
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
        finally:
            conn.close()
    except sqlite3.OperationalError as e:
        if "unable to open" in str(e):
            raise StoreError(f"{path}: cannot open the database: {e}") from None
        return f"not a readable SQLite database ({e})"
    except sqlite3.DatabaseError as e:
        return f"not a readable SQLite database ({e})"
    if result != [("ok",)]:
        return "integrity check failed: " + "; ".join(r[0] for r in result[:3])
    if version > SCHEMA_VERSION:
        return f"made by a newer version of the kiosk (schema {version}, this one knows {SCHEMA_VERSION})"
    if version >= 1 and "events" not in tables:
        return "has no event log"
    return None


def _upsert_sql(table: str, row: dict[str, Any], key: tuple[str, ...]) -> str:
    columns = ", ".join(f'"{c}"' for c in row)
    updates = ", ".join(f'"{c}" = excluded."{c}"' for c in row if c not in key)
    keys = ", ".join(key)
    return (f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(row))})"
            f" ON CONFLICT ({keys}) DO UPDATE SET {updates}")  # fmt: skip


class Store:
    """The SQLite file: append events, read them back, keep and rebuild the derived tables."""

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        try:
            self.conn = _connect(self.path, readonly)
            self.db = Database(self.conn)
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot open the database: {e}") from None
        if version > SCHEMA_VERSION:
            self.conn.close()
            raise StoreError(f"{self.path}: made by a newer version of the kiosk (schema {version})")
        if version < SCHEMA_VERSION:
            if readonly:
                self.conn.close()
                raise StoreError(f"{self.path}: the kiosk has not set up this database yet")
            self._migrate(version)

    def _migrate(self, version: int) -> None:
        with self.writing():
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target - 1].split(";\n"):
                    if statement.strip():
                        self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {target}")

    def close(self) -> None:
        """Closes the connection (checkpointing the WAL when this is the last one)."""
        self.conn.close()

    @contextmanager
    def writing(self) -> Iterator[Database]:
        """One transaction; any SQLite failure becomes a StoreError and leaves nothing half-written."""
        if self.readonly:
            raise StoreError("this connection is read-only")
        try:
            with self.db.atomic():
                yield self.db
        except sqlite3.Error as e:
            raise StoreError(_words(e)) from None

    # ---- the log ---------------------------------------------------------------------------------

    def append(self, event: GameEvent, rows: dict[str, Any], before: dict[str, Any] | None = None) -> None:
        """Stores one event and its game's derived rows in one durable transaction; ``before``,
        the rows as they were, lets unchanged rows be left alone."""
        self.append_all([(event, rows)], before)

    def append_all(self, batch: list[tuple[GameEvent, dict[str, Any]]], before: dict[str, Any] | None = None) -> None:
        """Stores events of one game, then the game's derived rows after the last; all or nothing."""
        with self.writing():
            self.conn.executemany(
                "INSERT INTO events (game, seq, at, kind, payload, action_id, source, authorised_by, reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(e.game, e.seq, e.at, e.kind, json.dumps(e.payload), e.action_id, e.source, e.authorised_by,
                  e.reason) for e, _ in batch],
            )  # fmt: skip
            self._write_rows(batch[-1][1], before)

    def _write_rows(self, rows: dict[str, Any], before: dict[str, Any] | None = None) -> None:
        # Plain upserts of what changed, rather than sqlite-utils' introspecting upsert: this runs
        # inside every save, and every page written adds to the save's time.
        game = rows["game"]
        self.conn.execute(_upsert_sql("games", game, ("id",)), list(game.values()))
        old_hands = before["hands"] if before else []
        self.conn.execute("DELETE FROM hands WHERE game = ? AND number > ?", (game["id"], len(rows["hands"])))
        changed = [h for i, h in enumerate(rows["hands"]) if i >= len(old_hands) or old_hands[i] != h]
        if changed:
            sql = _upsert_sql("hands", changed[0], ("game", "number"))
            self.conn.executemany(sql, [list(h.values()) for h in changed])
        if before is None or before["draft"] != rows["draft"]:
            self.conn.execute("DELETE FROM drafts WHERE game = ?", (game["id"],))
            if rows["draft"]:
                self.conn.execute(_upsert_sql("drafts", rows["draft"], ("game",)), list(rows["draft"].values()))

    def events(self, game: int) -> list[GameEvent]:
        """A game's events in order."""
        cur = self.conn.execute(
            "SELECT game, seq, at, kind, payload, action_id, source, authorised_by, reason FROM events"
            " WHERE game = ? ORDER BY seq",
            (game,),
        )
        return [GameEvent(r[0], r[1], r[2], r[3], json.loads(r[4]), *r[5:]) for r in cur]

    def all_events(self) -> Iterator[list[GameEvent]]:
        """Every game's events, a game at a time."""
        ids = [r[0] for r in self.conn.execute("SELECT DISTINCT game FROM events ORDER BY game")]
        for game in ids:
            yield self.events(game)

    def action(self, action_id: str) -> tuple[int, int] | None:
        """The (game, seq) an action id was stored as, if it was."""
        row = self.conn.execute("SELECT game, seq FROM events WHERE action_id = ?", (action_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    def next_game_id(self) -> int:
        """The id the next game will get."""
        return self.conn.execute("SELECT COALESCE(MAX(game), 0) + 1 FROM events").fetchone()[0]

    # ---- derived tables --------------------------------------------------------------------------

    def games(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        """The most recently started games first."""
        where, args = ("WHERE status = ?", [status]) if status else ("", [])
        return list(self.db.query(f"SELECT * FROM games {where} ORDER BY id DESC LIMIT ?", [*args, limit]))

    def last_seq(self, game: int) -> int:
        """The sequence number of a game's newest event (0 when there is none)."""
        row = self.conn.execute("SELECT MAX(seq) FROM events WHERE game = ?", (game,)).fetchone()
        return row[0] or 0

    def game_version(self, token: str) -> tuple[int, int] | None:
        """A game found by its public token, as (id, newest event's seq): cheap enough for every page."""
        row = self.conn.execute("SELECT id, last_seq FROM games WHERE token = ?", (token,)).fetchone()
        return None if row is None else (row[0], row[1])

    def sheet_rows(self, game: int) -> list[dict[str, Any]]:
        """A game's hands as the sheet shows them."""
        return list(self.db.query("SELECT * FROM hands WHERE game = ? ORDER BY number", [game]))

    def rebuild(self, derive: Callable[[list[GameEvent]], dict[str, Any]]) -> int:
        """Empties the derived tables and writes them again from the log; returns the games rebuilt."""
        n = 0
        with self.writing():
            for table in DERIVED:
                self.conn.execute(f"DELETE FROM {table}")
            for log in self.all_events():
                self._write_rows(derive(log))
                n += 1
        return n

    def derived_matches(self, derive: Callable[[list[GameEvent]], dict[str, Any]]) -> bool:
        """Whether the derived tables are what a rebuild from the log would write (nothing is changed)."""
        before = self.derived_snapshot()
        self.conn.execute("BEGIN")
        try:
            self.rebuild(derive)
            after = self.derived_snapshot()
        finally:
            self.conn.execute("ROLLBACK")
        return before == after

    def derived_snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """The derived tables' contents, to compare with a rebuild."""
        return {t: self.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in DERIVED}

    # ---- settings ----------------------------------------------------------------------------------

    def setting(self, key: str) -> str | None:
        """A stored setting."""
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_setting(self, key: str, value: str) -> None:
        """Stores a setting."""
        with self.writing() as db:
            db["settings"].upsert({"key": key, "value": value}, pk="key")

    def update_setting(self, key: str, change: Callable[[str | None], str | None]) -> str | None:
        """Rewrites a setting as ``change`` makes it from its stored value (None removes it), in
        one write transaction taken before the read: the kiosk and the ``clabber`` command
        counting at once never lose each other's count. Returns the new value."""
        if self.readonly:
            raise StoreError("this connection is read-only")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
            value = change(None if row is None else row[0])
            if value is None:
                self.conn.execute("DELETE FROM settings WHERE key = ?", (key,))
            else:
                self.conn.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) "
                                  "DO UPDATE SET value = excluded.value", (key, value))  # fmt: skip
            self.conn.execute("COMMIT")
        except BaseException as e:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error):
                raise StoreError(_words(e)) from None
            raise
        return value

    # ---- checks and backups ------------------------------------------------------------------------

    def integrity(self) -> list[str]:
        """SQLite's integrity check: ``["ok"]`` when the file is sound."""
        return [r[0] for r in self.conn.execute("PRAGMA integrity_check")]

    def backup(self, folder: Path, keep: int) -> Path:
        """A consistent copy of the live database (SQLite's online backup) into a rotating set."""
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = folder / f"{BACKUP_PREFIX}{stamp}.db"
        partial = target.with_suffix(".partial")
        try:
            dest = sqlite3.connect(partial)
            try:
                self.conn.backup(dest)
                dest.execute("PRAGMA journal_mode = DELETE")
            finally:
                dest.close()
            os.replace(partial, target)
        except (sqlite3.Error, OSError) as e:
            partial.unlink(missing_ok=True)
            raise StoreError(f"backup to {folder} failed: {e}") from None
        for old in backups(folder)[keep:]:
            old.unlink(missing_ok=True)
        return target


def backups(folder: Path) -> list[Path]:
    """The backups in a folder, newest first."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{BACKUP_PREFIX}*.db"), reverse=True)


def _move_aside(path: Path, folder: Path, why: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{path.stem}-{why}-{stamp}{path.suffix}"
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(path) + suffix)
        if part.exists():
            shutil.move(part, Path(str(target) + suffix))
    return target


def open_store(path: Path, backup_dir: Path, damaged_dir: Path | None = None) -> tuple[Store, OpenReport]:
    """Opens the kiosk's database; a damaged one is moved aside (never overwritten) and the newest
    good backup restored in its place, or an empty database started when there is none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    damaged_dir = damaged_dir or path.parent / "damaged"
    report = OpenReport()
    if path.exists():
        # The whole file is checked at start while that is quick; a big one gets a probe at start
        # and its full check from the nightly backup and `clabber db check`.
        why = check_file(path, live=True, thorough=path.stat().st_size <= FULL_CHECK_AT_START)
        if why is not None and "newer version" in why:
            raise StoreError(f"{path}: {why}")
        if why is not None:
            moved = _move_aside(path, damaged_dir, "damaged")
            good = next((b for b in backups(backup_dir) if check_file(b) is None), None)
            notice = f"The database was damaged ({why}). It was moved to {moved}"
            if good is not None:
                shutil.copyfile(good, path)
                taken = good.stem.removeprefix(BACKUP_PREFIX)
                notice += f" and the backup of {taken} restored: hands saved after it must be entered again."
            else:
                notice += "; no backup was found, so the kiosk starts with an empty one."
            report = OpenReport(notice, moved, good)
    return Store(path), report


def restore(path: Path, source: Path, damaged_dir: Path) -> Path | None:
    """Puts a backup in place of the live database, after checking it; the replaced file is kept.

    The kiosk must not be running. Returns where the replaced database went."""
    if not source.is_file():
        raise StoreError(f"{source}: will not restore: no such file")
    try:
        why = check_file(source)
    except StoreError as e:
        why = str(e)
    if why is not None:
        raise StoreError(f"{source}: will not restore: {why}")
    moved = _move_aside(path, damaged_dir, "replaced") if path.exists() else None
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dest = sqlite3.connect(path)
        try:
            src.backup(dest)
        finally:
            dest.close()
    finally:
        src.close()
    return moved
