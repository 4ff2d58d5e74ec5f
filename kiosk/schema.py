"""The kiosk database's schema: its migrations, one a version, and the floor each sets (the oldest
kiosk that may still use a database at that version). ``kiosk/store.py`` opens the file and runs them."""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database

SCHEMA_VERSION = 2
# For each schema, the oldest schema a kiosk may know and still use a database at it. A migration
# that only adds (tables, columns, indexes, triggers) keeps the floor where it was: a kiosk rolled
# back to the version before an update opens the database the new version migrated, with every
# hand entered on it (tests/test_store_rollback.py holds every such migration to adding only).
FLOORS = [1, 1]
FLOOR_KEY = "schema_floor"  # a setting: the floor of the schema the database was last migrated to

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


def migrate(db: Database, version: int) -> None:
    """Brings a database at ``version`` to ``SCHEMA_VERSION``, inside the caller's transaction, and
    writes the floor the newest migration sets."""
    for target in range(version + 1, SCHEMA_VERSION + 1):
        for statement in MIGRATIONS[target - 1].split(";\n"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {target}")
    db.table("settings").upsert({"key": FLOOR_KEY, "value": str(FLOORS[SCHEMA_VERSION - 1])}, pk="key")


def floor_of(conn: sqlite3.Connection, version: int, tables: set[str] | None = None) -> int:
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
