"""The game store: one SQLite file with an append-only event log and tables derived from it.

The log (``events``) is the truth: triggers refuse any UPDATE or DELETE on it; corrections and
undo are new events. ``games``, ``hands`` and ``drafts`` are kept current in the same
transaction as each event and can be rebuilt from the log at any time. Every connection runs
in WAL mode with ``synchronous=FULL``, so a hand the screen calls saved survives a power cut.
The schema is ``kiosk/schema.py``'s; backups ``kiosk/backups.py``'s; opening a damaged file
``kiosk/recovery.py``'s.
"""

from __future__ import annotations

import errno
import functools
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlite_utils import Database

from kiosk.schema import DERIVED, SCHEMA_VERSION, floor_of, migrate
from shared.events import GAME_STARTED, GameEvent

T = TypeVar("T")

NOTICES_KEY = "notices"
MAX_NOTICES = 50


class StoreError(RuntimeError):
    """The store could not do what was asked; the message says why, for the screen or the log."""


class StoreTrouble(StoreError):
    """The database cannot be used now, though nothing says it is damaged: a full disk, a lock
    held by another program, a permission, a read-only file or disk. Nothing was moved or
    changed; trying again once the cause is gone is the cure."""


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
            floor = floor_of(self.conn, version)
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
                with self.writing() as db:
                    migrate(db, version)
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

    # ---- checks ------------------------------------------------------------------------------------

    def integrity(self) -> list[str]:
        """SQLite's integrity check: ``["ok"]`` when the file is sound."""
        return [r[0] for r in self.conn.execute("PRAGMA integrity_check")]


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
