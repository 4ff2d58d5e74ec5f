"""The game store: one SQLite file with an append-only event log and tables derived from it.

The log (``events``) is the truth: triggers refuse any UPDATE or DELETE on it; corrections and
undo are new events. ``games``, ``hands`` and ``drafts`` are kept current in the same
transaction as each event and can be rebuilt from the log at any time. Every connection runs
in WAL mode with ``synchronous=FULL``, so a hand the screen calls saved survives a power cut.
"""

from __future__ import annotations

import errno
import functools
import json
import logging
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlite_utils import Database

from shared.events import GAME_STARTED, GameEvent

T = TypeVar("T")

SCHEMA_VERSION = 2
# For each schema, the oldest schema a kiosk may know and still use a database at it. A migration
# that only adds (tables, columns, indexes, triggers) keeps the floor where it was: a kiosk rolled
# back to the version before an update opens the database the new version migrated, with every
# hand entered on it (tests/test_store_rollback.py holds every such migration to adding only).
FLOORS = [1, 1]
FLOOR_KEY = "schema_floor"  # a setting: the floor of the schema the database was last migrated to
FULL_CHECK_AT_START = 64 * 1024 * 1024  # bytes: about 15,000 games
BACKUP_PREFIX = "clabber-"
BACKUP_OF_KEY = "backup_of"  # in a backup: the database it was taken of (its absolute path)
NOTICES_KEY = "notices"
MAX_NOTICES = 50
MIN_FREE_AT_START = 256 * 1024  # bytes: a few hundred saves; less and the kiosk waits for space

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
    # 2: league games and the outbox (kiosk/outbox.py). A game started for a league meeting is
    # listed with its meeting and sides in the transaction of its first event; each event of such
    # a game is put in the outbox in its own transaction, until the league acknowledges it.
    """
    CREATE TABLE league_games (
        game INTEGER PRIMARY KEY, meeting INTEGER NOT NULL, ns_team INTEGER NOT NULL, ew_team INTEGER NOT NULL,
        acked INTEGER NOT NULL DEFAULT 0, held TEXT
    );
    CREATE TABLE outbox (game INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (game, seq)) WITHOUT ROWID;
    """,
]
DERIVED = ("games", "hands", "drafts")


class StoreError(RuntimeError):
    """The store could not do what was asked; the message says why, for the screen or the log."""


class StoreTrouble(StoreError):
    """The database cannot be used now, though nothing says it is damaged: a full disk, a lock
    held by another program, a permission, a read-only file or disk. Nothing was moved or
    changed; trying again once the cause is gone is the cure."""


@dataclass(frozen=True)
class OpenReport:
    """What happened when the database was opened, for the screen to show (None when all was well)."""

    notice: str | None = None
    moved_to: Path | None = None
    restored_from: Path | None = None
    reapplied: int = 0  # events read back from the damaged file and applied again
    lost: tuple[str, ...] = ()  # the spans of events that could not be recovered, in words


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


def is_damage(e: BaseException) -> bool:
    """Whether SQLite reports the file itself as corrupt (not a database, malformed), directly or
    behind a StoreError. Every other failure — full, locked, busy, read-only, permission, I/O — is
    trouble, not damage."""
    if isinstance(e, StoreError) and e.__context__ is not None:
        e = e.__context__
    name = getattr(e, "sqlite_errorname", None) or ""
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def _read_only_disk(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def trouble(path: Path, e: BaseException, doing: str = "cannot use the database") -> StoreTrouble:
    """A failure that is not damage, in words that say what to do; nothing was moved or changed."""
    name = getattr(e, "sqlite_errorname", None) or ""
    code = getattr(e, "errno", None)
    try:  # SQLite reports a full disk as an I/O error when it cannot make its shared-memory file
        full = free_bytes(path.parent) < 64 * 1024
    except OSError:
        full = False
    if name.startswith("SQLITE_FULL") or code == errno.ENOSPC or (full and name.startswith("SQLITE_IOERR")):
        why = "the storage is full: free some space"
    elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        why = "another program holds a lock on it (a backup, a copy, an sqlite3 shell?): close it"
    elif name.startswith("SQLITE_READONLY") or code == errno.EROFS or _read_only_disk(path.parent):
        where = (
            "the disk it is on is mounted read-only"
            if _read_only_disk(path.parent)
            else "the file or its folder is read-only"
        )
        why = f"it cannot be written: {where}"
    elif name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")) or code in (errno.EACCES, errno.EPERM):
        why = (
            f"permission denied: the kiosk's user may not read and write it and create files beside it "
            f"in {path.parent} (check the owner and the read-only flags)"
        )
    elif name.startswith("SQLITE_IOERR") or code == errno.EIO:
        why = "the storage failed to read or write it (an I/O error: the SD card may be failing)"
    else:
        why = str(e) or type(e).__name__
    return StoreTrouble(f"{path}: {doing}: {why}. Nothing was moved or changed.")


def free_bytes(folder: Path) -> int:
    """Space an unprivileged program may still write in ``folder``'s file system."""
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def _connect(path: Path, readonly: bool = False, immutable: bool = False) -> sqlite3.Connection:
    if readonly:
        flags = "mode=ro&immutable=1" if immutable else "mode=ro"
        conn = sqlite3.connect(f"file:{path}?{flags}", uri=True, isolation_level=None)
        conn.execute("PRAGMA query_only = ON")
    else:
        conn = sqlite3.connect(path, isolation_level=None)  # transactions are explicit: see writing()
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


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
            floor = _floor(conn, version, tables)
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


def _floor(conn: sqlite3.Connection, version: int, tables: set[str] | None = None) -> int:
    """The oldest schema that may use this database: as its last migration wrote it, else its own."""
    if version <= SCHEMA_VERSION:
        return version
    if tables is None:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    row = (
        conn.execute("SELECT value FROM settings WHERE key = ?", (FLOOR_KEY,)).fetchone()
        if "settings" in tables
        else None
    )
    try:
        return int(row[0]) if row else version
    except ValueError:
        return version


def _upsert_sql(table: str, row: dict[str, Any], key: tuple[str, ...]) -> str:
    columns = ", ".join(f'"{c}"' for c in row)
    updates = ", ".join(f'"{c}" = excluded."{c}"' for c in row if c not in key)
    keys = ", ".join(key)
    return (
        f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(row))})"
        f" ON CONFLICT ({keys}) DO UPDATE SET {updates}"
    )


def _reads(method: Callable[..., T]) -> Callable[..., T]:
    """A read whose SQLite failure comes out as StoreError (is_damage() still sees the cause), so
    readers such as the result pages need to know nothing of SQLite."""

    @functools.wraps(method)
    def read(self: Store, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot read the database: {e}") from e

    return read


class Store:
    """The SQLite file: append events, read them back, keep and rebuild the derived tables."""

    def __init__(self, path: Path | str, *, readonly: bool = False, immutable: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly or immutable
        self.immutable = immutable  # see open_reader(): only while no writer has the file open
        try:
            # A reader notes which file it opens before opening it: replaced() then errs towards
            # opening again, never towards keeping a file that is no longer the database.
            self.opened = _identity(self.path) if self.readonly else (0, 0, 0, 0)
            self.conn = _connect(self.path, self.readonly, immutable)
            self.db = Database(self.conn)
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            floor = _floor(self.conn, version)
        except sqlite3.Error as e:
            if is_damage(e):
                raise StoreError(f"{self.path}: cannot open the database: {e}") from None
            raise trouble(self.path, e) from None
        except OSError as e:
            raise trouble(self.path, e) from None
        if version > SCHEMA_VERSION and floor > SCHEMA_VERSION:
            self.conn.close()
            raise StoreTrouble(
                f"{self.path}: made by a newer version of the kiosk (schema {version}): "
                "install that version again; nothing was moved or changed"
            )
        if version < SCHEMA_VERSION:
            if readonly:
                self.conn.close()
                raise StoreError(f"{self.path}: the kiosk has not set up this database yet")
            try:
                self._migrate(version)
            except StoreError:
                self.conn.close()
                raise

    def check_writable(self, min_free: int = 0) -> None:
        """StoreTrouble unless a save could be written now: a write taken back at once finds a
        read-only file or disk and a lock held elsewhere; ``min_free`` bytes must be free."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")  # a page written, then undone
            finally:
                self.conn.execute("ROLLBACK")
            if min_free and free_bytes(self.path.parent) < min_free:
                raise OSError(errno.ENOSPC, "no space left")
        except (sqlite3.Error, OSError) as e:
            self.conn.close()
            raise trouble(self.path, e) from None

    def _migrate(self, version: int) -> None:
        with self.writing():
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target - 1].split(";\n"):
                    if statement.strip():
                        self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {target}")
            floor = {"key": FLOOR_KEY, "value": str(FLOORS[SCHEMA_VERSION - 1])}
            self.conn.execute(_upsert_sql("settings", floor, ("key",)), tuple(floor.values()))

    def close(self, fold_log: bool = False) -> None:
        """Closes the connection. ``fold_log`` (the kiosk's clean exit) first checkpoints the
        write-ahead log into the main file, so the file alone holds every save even while the
        result server keeps a reader open. Other programs leave it: a full checkpoint waits for
        readers and holds off the kiosk's saves meanwhile."""
        if fold_log and not self.readonly:
            self.checkpoint()
        self.conn.close()

    def replaced(self) -> bool:
        """Whether a reader should open the file again: another file now has this path (a restore),
        or, for an immutable reader, the file changed or a writer opened it (its ``-wal`` exists)."""
        try:
            now = _identity(self.path)
        except OSError:
            return True
        if now[:2] != self.opened[:2]:
            return True
        return self.immutable and (now != self.opened or _writer_present(self.path))

    def data_version(self) -> int:
        """SQLite's ``data_version``: it changes when another connection commits to the file."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def checkpoint(self) -> bool:
        """``wal_checkpoint(TRUNCATE)``: True when the whole log went into the main file."""
        try:
            busy, _, _ = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as e:
            logging.getLogger("clabber.store").warning("%s: the write-ahead log was not folded in: %s", self.path, e)
            return False
        return bool(busy == 0)

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
        self.append_all([event], rows, before)

    def append_all(self, events: list[GameEvent], rows: dict[str, Any], before: dict[str, Any] | None = None) -> None:
        """Stores events of one game, then the game's derived rows after the last; all or nothing."""
        with self.writing():
            self.conn.executemany(
                "INSERT INTO events (game, seq, at, kind, payload, action_id, source, authorised_by, reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        e.game,
                        e.seq,
                        e.at,
                        e.kind,
                        json.dumps(e.payload),
                        e.action_id,
                        e.source,
                        e.authorised_by,
                        e.reason,
                    )
                    for e in events
                ],
            )
            self._to_outbox(events)
            self._write_rows(rows, before)

    def _to_outbox(self, events: list[GameEvent]) -> None:
        """A league game's events go into the outbox with them: the league gets every one, later."""
        league = events[0].payload.get("league") if events[0].kind == GAME_STARTED else None
        if isinstance(league, dict):
            self.conn.execute(
                "INSERT INTO league_games (game, meeting, ns_team, ew_team) VALUES (?, ?, ?, ?)",
                (events[0].game, league["meeting"], league["NS"], league["EW"]),
            )
        self.conn.executemany(
            "INSERT INTO outbox (game, seq) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM league_games WHERE game = ?)",
            [(e.game, e.seq, e.game) for e in events],
        )

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

    @_reads
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
        return int(self.conn.execute("SELECT COALESCE(MAX(game), 0) + 1 FROM events").fetchone()[0])

    # ---- derived tables --------------------------------------------------------------------------

    @_reads
    def games(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        """The most recently started games first."""
        where, args = ("WHERE status = ?", [status]) if status else ("", [])
        return list(self.db.query(f"SELECT * FROM games {where} ORDER BY id DESC LIMIT ?", [*args, limit]))

    @_reads
    def finished_games(self) -> list[tuple[int, int]]:
        """The games ended at the target or by the table (not abandoned), each with its newest
        event's seq: what the statistics count, and when a game's figures must be counted again."""
        sql = "SELECT id, last_seq FROM games WHERE status IN ('over', 'finished') ORDER BY id"
        return [(r[0], r[1]) for r in self.conn.execute(sql)]

    def last_seq(self, game: int) -> int:
        """The sequence number of a game's newest event (0 when there is none)."""
        row = self.conn.execute("SELECT MAX(seq) FROM events WHERE game = ?", (game,)).fetchone()
        return row[0] or 0

    @_reads
    def game_version(self, token: str) -> tuple[int, int] | None:
        """A game found by its public token, as (id, newest event's seq): cheap enough for every page."""
        row = self.conn.execute("SELECT id, last_seq FROM games WHERE token = ?", (token,)).fetchone()
        return None if row is None else (row[0], row[1])

    @_reads
    def sheet_rows(self, game: int) -> list[dict[str, Any]]:
        """A game's hands as the sheet shows them."""
        return list(self.db.query("SELECT * FROM hands WHERE game = ? ORDER BY number", [game]))

    def rebuild(self, derive: Callable[[list[GameEvent]], dict[str, Any] | None]) -> int:
        """Writes the derived tables again from the log; returns the games rebuilt. A game whose
        log cannot be folded (``derive`` gives None) keeps the rows it had."""
        n = 0
        with self.writing():
            kept = []
            for log in self.all_events():
                rows = derive(log)
                if rows is None:
                    kept.append(log[0].game)
                    continue
                self._clear_rows(log[0].game)
                self._write_rows(rows)
                n += 1
            # Rows of games that have no log at all are not derived from anything.
            self.conn.execute("DELETE FROM games WHERE id NOT IN (SELECT game FROM events)")
            for table in ("hands", "drafts"):
                self.conn.execute(f"DELETE FROM {table} WHERE game NOT IN (SELECT game FROM events)")
        return n

    def _clear_rows(self, game: int) -> None:
        self.conn.execute("DELETE FROM games WHERE id = ?", (game,))
        for table in ("hands", "drafts"):
            self.conn.execute(f"DELETE FROM {table} WHERE game = ?", (game,))

    def derived_matches(self, derive: Callable[[list[GameEvent]], dict[str, Any] | None]) -> bool:
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
            db.table("settings").upsert({"key": key, "value": value}, pk="key")

    # ---- notices for the owner ---------------------------------------------------------------------

    def notices(self, everything: bool = False) -> list[dict[str, Any]]:
        """Notices kept for the owner (a restored backup, what was lost), oldest first; only those
        not yet acknowledged unless ``everything``."""
        kept = json.loads(self.setting(NOTICES_KEY) or "[]")
        return kept if everything else [n for n in kept if not n.get("acknowledged_at")]

    def add_notice(self, text: str) -> None:
        """Keeps a notice in the database itself, so it survives restarts until acknowledged."""
        kept = self.notices(everything=True)
        kept.append({"at": now_utc(), "text": text, "acknowledged_at": None})
        self.set_setting(NOTICES_KEY, json.dumps(kept[-MAX_NOTICES:], ensure_ascii=False))

    def acknowledge_notices(self) -> int:
        """Marks every open notice acknowledged (they stay on record); returns how many."""
        kept = self.notices(everything=True)
        open_ = [n for n in kept if not n.get("acknowledged_at")]
        if open_:
            stamp = now_utc()
            for n in open_:
                n["acknowledged_at"] = stamp
            self.set_setting(NOTICES_KEY, json.dumps(kept, ensure_ascii=False))
        return len(open_)

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
                self.conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) "
                    "DO UPDATE SET value = excluded.value",
                    (key, value),
                )
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
                # The copy says whose it is: a restore takes only a database's own backups.
                with dest:
                    dest.execute(
                        "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                        (BACKUP_OF_KEY, str(self.path.resolve())),
                    )
            finally:
                dest.close()
            # The copy is checked, not the live file: nothing waits for the check, and a copy of
            # a damaged file never joins the set and pushes a good one out.
            why = check_file(partial)
            if why is not None:
                raise StoreError(f"the copy is damaged ({why}): run clabber db check")
            _fsync(partial)
            os.replace(partial, target)
            _fsync(folder)
        except (sqlite3.Error, OSError, StoreError) as e:
            partial.unlink(missing_ok=True)
            raise StoreError(f"backup to {folder} failed: {e}") from None
        for old in backups(folder, of=self.path)[keep:]:  # another database's backups are not ours to drop
            old.unlink(missing_ok=True)
        return target


def _identity(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _writer_present(path: Path) -> bool:
    # A WAL-mode writer keeps a -wal beside the file while connected; a rollback-mode one (the
    # restore's copy) writes a -journal while it changes the file in place.
    return any(Path(str(path) + suffix).exists() for suffix in ("-wal", "-journal"))


def open_reader(path: Path) -> Store:
    """A read-only connection, for a process that only shows games (the result pages).

    A reader of a WAL-mode file needs its ``-shm`` (and ``-wal``): a writer creates them and the
    last connection to close deletes them, and a reader on a read-only mount cannot create them.
    So when the kiosk is stopped the file cannot be opened as usual. With no ``-wal`` beside it no
    writer has the file open and everything is in the main file: then it is opened immutable (no
    locks, no log). That is only sound while nobody writes: ``Store.replaced()`` tells the reader
    to open again as soon as a ``-wal`` appears or the file changes, and a writer starting up
    cannot change the main file before that (its changes go to the ``-wal`` until a checkpoint)."""
    try:
        return Store(path, readonly=True)
    except StoreError as e:
        cause = getattr(e.__context__, "sqlite_errorname", "") or ""
        if not cause.startswith("SQLITE_CANTOPEN") or not path.exists() or _writer_present(path):
            raise
        return Store(path, immutable=True)


def _copy_into(source: Path, dest: Path, *, wal: bool = False) -> None:
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
        _copy_into(path, dest, wal=True)
    except sqlite3.Error as e:
        if is_damage(e):
            raise StoreError(f"{path}: not a readable SQLite database ({e})") from None
        raise trouble(path, e, "cannot take a snapshot to check") from None


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _parts(path: Path) -> list[Path]:
    """The database file and its write-ahead log and shared memory, as far as they exist."""
    return [p for p in (Path(str(path) + s) for s in ("", "-wal", "-shm")) if p.exists()]


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _aside_name(path: Path, folder: Path, why: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return folder / f"{path.stem}-{why}-{stamp}{path.suffix}"


def _move_aside(path: Path, folder: Path, why: str, target: Path | None = None) -> Path:
    """Moves the file set into ``folder``, never overwriting. The main file is linked there first,
    so that ``path`` is never missing until something replaces it."""
    folder.mkdir(parents=True, exist_ok=True)
    target = target or _aside_name(path, folder, why)
    if path.exists():
        try:
            os.link(path, target)
        except OSError:
            shutil.move(path, target)
    for suffix in ("-wal", "-shm"):
        part = Path(str(path) + suffix)
        if part.exists():
            shutil.move(part, Path(str(target) + suffix))
    return target


def _usable(backup: Path) -> bool:
    try:
        return check_file(backup) is None
    except StoreTrouble:
        return False


Replay = Callable[["Store", list[GameEvent]], int]


def open_store(
    path: Path,
    backup_dir: Path,
    damaged_dir: Path | None = None,
    *,
    replay: Replay | None = None,
    writable: bool = True,
) -> tuple[Store, OpenReport]:
    """Opens the kiosk's database.

    Only damage (SQLite says corrupt, ``integrity_check`` fails, the file is empty or gone while
    backups exist) leads to a restore: the newest good backup, with every event that can still
    be read from the damaged file applied again by ``replay``, and a notice kept in the database
    that says what was lost. The damaged file is moved aside, never overwritten. Anything else
    (full disk, lock, permissions, read-only) raises StoreTrouble and touches nothing.
    ``writable``: also make sure a save could be written now (the kiosk; not a listing)."""
    damaged_dir = damaged_dir or path.parent / "damaged"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        size = path.stat().st_size if path.exists() else None
        have_backups = bool(backups(backup_dir, of=path))
    except OSError as e:
        raise trouble(path, e) from None
    why = None
    if size is None and have_backups:
        why = "the database file is missing"
    elif size == 0 and have_backups:
        why = "the database file is empty (0 bytes)"
    elif size:
        # The whole file is checked at start while that is quick; a big one gets a probe at start
        # and its full check from the nightly backup and `clabber db check`.
        why = check_file(path, live=True, thorough=size <= FULL_CHECK_AT_START)
        if why is not None and "newer version" in why:
            raise StoreTrouble(f"{path}: {why}: install that version again; nothing was moved or changed")
    report = OpenReport()
    if why is not None:
        report = _recover(path, backup_dir, damaged_dir, why, replay)
        logging.getLogger("clabber.store").warning("%s", report.notice)
    store = Store(path)
    if writable:
        store.check_writable(MIN_FREE_AT_START)
    return store, report


def _recover(path: Path, backup_dir: Path, damaged_dir: Path, why: str, replay: Replay | None) -> OpenReport:
    """Builds the restored database beside the damaged one, then swaps it in; until the swap
    nothing is moved, so a failure on the way (a full disk) leaves everything as it was."""
    from kiosk.salvage import salvage

    good = next((b for b in backups(backup_dir, of=path) if _usable(b)), None)
    found = salvage(path) if path.exists() and path.stat().st_size > 0 else None
    temp = path.with_name(path.name + ".restoring")
    target = _aside_name(path, damaged_dir, "damaged")
    needed = (good.stat().st_size if good else 0) + (found.size if found else 0) + MIN_FREE_AT_START
    try:
        _remove(temp)
        if free_bytes(path.parent) < needed:
            raise OSError(errno.ENOSPC, f"{needed // 1024} KiB needed")
        if good is not None:
            _copy_into(good, temp)
        restored = Store(temp)
        try:
            reapplied = replay(restored, found.events) if replay and found and found.events else 0
            lost = found.lost(restored.last_seq) if found else ()
            notice = _restore_notice(why, target if path.exists() else None, good, found, reapplied, lost)
            restored.add_notice(notice)
        finally:
            restored.close()
        _remove(Path(str(temp) + "-journal"))
        _fsync(temp)
    except (OSError, sqlite3.Error, StoreError) as e:
        _remove(temp)
        doing = f"the database is damaged ({why}), but the backup could not be restored"
        raise trouble(path, e, doing) from None
    moved = _move_aside(path, damaged_dir, "damaged", target) if _parts(path) else None
    os.replace(temp, path)
    _fsync(path.parent)
    return OpenReport(notice, moved, good, reapplied, lost)


def _restore_notice(
    why: str, moved: Path | None, good: Path | None, found: Any, reapplied: int, lost: tuple[str, ...]
) -> str:
    """What the owner is told: what happened, what came back, what must be entered again."""
    text = (
        f"{why[0].upper()}{why[1:]}." if why.startswith("the database file") else f"The database was damaged ({why})."
    )
    if moved is not None:
        text += f" It was moved to {moved}."
    if good is not None:
        text += f" The backup of {_backup_time(good)} ({good.name}) was restored."
    else:
        text += " As no backup was found that passes the check, the kiosk started with an empty database."
    if reapplied:
        text += f" {reapplied} later events read back from the damaged file were applied again."
    if lost:
        text += " Lost, and must be entered again: " + "; ".join(lost) + "."
    elif found is not None and found.complete:
        text += " Nothing that was saved is lost."
    if found is None or not found.complete:
        since = "after the backup " if good is not None else ""
        text += f" Hands saved {since}that could not be read back must be entered again."
    return text


def _backup_time(backup: Path) -> str:
    stamp = backup.stem.removeprefix(BACKUP_PREFIX)
    try:
        return datetime.strptime(stamp, "%Y%m%dT%H%M%S%fZ").strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return stamp


def restore(path: Path, source: Path, damaged_dir: Path) -> Path | None:
    """Puts a backup in place of the live database, after checking it; the replaced file is kept.

    The kiosk must not be running. The copy is made beside the database and renamed into place,
    so a full disk cannot leave half a file. Returns where the replaced database went."""
    if not source.is_file():
        raise StoreError(f"{source}: will not restore: no such file")
    try:
        why = check_file(source)
    except StoreError as e:
        why = str(e)
    if why is not None:
        raise StoreError(f"{source}: will not restore: {why}")
    temp = path.with_name(path.name + ".restoring")
    target = _aside_name(path, damaged_dir, "replaced")
    try:
        _remove(temp)
        if free_bytes(path.parent) < source.stat().st_size + MIN_FREE_AT_START:
            raise OSError(errno.ENOSPC, "no space left")
        _copy_into(source, temp)
        restored = Store(temp)
        try:
            taken = f"{source}" + (f"; the replaced database is kept at {target}" if _parts(path) else "")
            restored.add_notice(f"The backup {taken} was restored by clabber db restore.")
        finally:
            restored.close()
        _fsync(temp)
    except (OSError, sqlite3.Error, StoreError) as e:
        _remove(temp)
        raise trouble(path, e, "will not restore") from None
    moved = _move_aside(path, damaged_dir, "replaced", target) if _parts(path) else None
    os.replace(temp, path)
    _fsync(path.parent)
    return moved
