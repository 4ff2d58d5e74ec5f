"""The database after a rollback: a kiosk rolled back to the version before an update opens the
database the new version migrated, with every hand entered on it, as long as the new version's
migrations only added; one whose migration changed what the old version reads is refused in words,
with nothing moved. (An older kiosk is this code meeting a database one schema ahead of it.)"""

from __future__ import annotations

import itertools
import re
import sqlite3

import pytest

from kiosk.recovery import open_store
from kiosk.schema import FLOOR_KEY, FLOORS, MIGRATIONS, SCHEMA_VERSION
from kiosk.store import Store, StoreTrouble
from tests.store_helpers import QUICK_HANDS, open_table

ADDS = re.compile(
    r"^\s*(CREATE\s+(TABLE|INDEX|UNIQUE\s+INDEX|TRIGGER|VIEW)\b|ALTER\s+TABLE\s+\w+\s+ADD\s+COLUMN\b)", re.I
)


def statements(sql: str) -> list[str]:
    """A migration's statements (a trigger's body kept whole with its CREATE)."""
    out: list[str] = []
    for part in sql.split(";\n"):
        if not part.strip():
            continue
        if out and out[-1].lstrip().upper().startswith("CREATE TRIGGER") and "END" not in out[-1].upper():
            out[-1] += ";\n" + part
        else:
            out.append(part)
    return out


def test_every_migration_that_keeps_the_floor_only_adds():
    assert len(FLOORS) == len(MIGRATIONS) == SCHEMA_VERSION
    for schema in range(2, SCHEMA_VERSION + 1):
        if FLOORS[schema - 1] < schema:  # an older kiosk may use this schema: it may only add
            for statement in statements(MIGRATIONS[schema - 1]):
                assert ADDS.match(statement), f"migration {schema} changes what an older kiosk reads: {statement}"
    assert all(a <= b for a, b in itertools.pairwise(FLOORS))


def test_the_additivity_check_catches_a_migration_that_changes_a_table():
    for changing in ("DROP TABLE outbox", "ALTER TABLE games RENAME COLUMN status TO state", "UPDATE games SET x = 1"):
        assert not ADDS.match(changing)


def test_a_new_database_records_the_floor_of_its_schema(tmp_path):
    table = open_table(tmp_path / "clabber.db")
    assert table.store.setting(FLOOR_KEY) == str(FLOORS[-1])
    table.close()


def as_a_newer_kiosk_left_it(path, floor: int) -> None:
    """What a next version's migration that adds a table leaves behind: one schema ahead."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE ratings (player TEXT PRIMARY KEY, mu REAL, sigma REAL)")
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (FLOOR_KEY, str(floor)))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()


def test_after_a_rollback_the_old_kiosk_opens_the_migrated_database_with_every_hand(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    game = table.new_game(["Aces", "Kings"], first_dealer="N")
    for record in QUICK_HANDS[:2]:
        table.add_hand(game.id, dict(record))
    table.close()
    as_a_newer_kiosk_left_it(db, floor=SCHEMA_VERSION)  # the new version's migration only added
    table = open_table(db)  # this kiosk is now the old version
    assert len(table.game(game.id).sheet.rows) == 2
    table.add_hand(game.id, dict(QUICK_HANDS[2]))  # and the table plays on
    assert len(table.game(game.id).sheet.rows) == 3
    assert table.store.integrity() == ["ok"]
    table.close()
    with sqlite3.connect(db) as conn:  # left at the newer schema: the newer version finds its table
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0
    conn.close()


def test_a_database_the_old_kiosk_cannot_read_is_refused_in_words_and_left_alone(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    table.new_game(["Aces", "Kings"], first_dealer="N")
    table.close()
    as_a_newer_kiosk_left_it(db, floor=SCHEMA_VERSION + 1)
    before = db.read_bytes()
    with pytest.raises(StoreTrouble, match=r"made by a newer version of the kiosk .* nothing was moved or changed"):
        open_store(db, tmp_path / "backups")
    with pytest.raises(StoreTrouble, match="made by a newer version of the kiosk"):
        Store(db)
    assert db.read_bytes() == before and not (tmp_path / "damaged").exists()
