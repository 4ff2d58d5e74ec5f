"""The SQLite store: append-only log, durability settings, damage, full disks, backups."""

from __future__ import annotations

import sqlite3

import pytest

from kiosk.backups import back_up, backups, check_file
from kiosk.projection import project
from kiosk.recovery import open_store, restore
from kiosk.schema import SCHEMA_VERSION
from kiosk.store import Store, StoreError
from kiosk.table import Table
from tests.store_helpers import QUICK_HANDS, event_count, open_table


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    yield t
    t.store.close()


def played(table: Table, hands=QUICK_HANDS[:2]):
    g = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    for h in hands:
        g = table.add_hand(g.id, h)
    return g


def test_every_connection_is_wal_with_full_sync(table, tmp_path):
    for store in (table.store, Store(tmp_path / "clabber.db", readonly=True)):
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


@pytest.mark.parametrize("sql", ["UPDATE events SET kind = 'x'", "DELETE FROM events"])
def test_the_event_log_refuses_update_and_delete(table, sql):
    played(table)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        table.store.conn.execute(sql)
    assert event_count(table.store) == 5


def test_the_read_only_connection_cannot_write(table, tmp_path):
    g = played(table)
    reader = Store(tmp_path / "clabber.db", readonly=True)
    assert reader.sheet_rows(g.id)[1]["total_ew"] == 92 + 81
    with pytest.raises(sqlite3.OperationalError):
        reader.conn.execute("INSERT INTO settings VALUES ('x', 'y')")
    with pytest.raises(StoreError, match="read-only"):
        Table(reader).new_game(["A", "B"], first_dealer="N")


def test_schema_version_and_tables_plain_enough_for_sqlite3(table, tmp_path):
    played(table)
    conn = sqlite3.connect(tmp_path / "clabber.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    row = conn.execute("SELECT team_ns, team_ew, total_ns, total_ew, dealer FROM games").fetchone()
    assert row == ("Ruminers", "Mackeys", 70, 173, "S")
    assert conn.execute("SELECT json_extract(payload, '$.record.trump') FROM events WHERE seq = 2").fetchone() == ("H",)


def test_a_newer_schema_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer version"):
        open_store(path, tmp_path / "backups")
    assert path.read_bytes() == before


def damage(path):
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the header's tail and the first page
    path.write_bytes(bytes(data))


def test_a_damaged_database_is_moved_aside_and_the_newest_good_backup_restored(table, tmp_path):
    g = played(table)
    cfg_backups = tmp_path / "backups"
    back_up(table.store, cfg_backups, keep=5)
    table.add_hand(g.id, QUICK_HANDS[2])  # saved after the backup
    path = table.store.path
    table.store.close()
    (cfg_backups / "clabber-99999999T999999999999Z.db").write_bytes(b"not a database")  # the newest is bad
    damage(path)
    damaged_bytes = path.read_bytes()
    store, report = open_store(path, cfg_backups)
    assert report.moved_to is not None and report.moved_to.read_bytes() == damaged_bytes  # never overwritten
    assert report.restored_from is not None and "99999999" not in report.restored_from.name
    assert "damaged" in report.notice and "must be entered again" in report.notice
    resumed = Table(store).open_game()
    assert len(resumed.hands) == 2
    store.close()


def test_a_damaged_database_with_no_backup_starts_empty_and_says_so(tmp_path):
    path = tmp_path / "clabber.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    store, report = open_store(path, tmp_path / "none")
    assert "no backup was found" in report.notice and report.moved_to.exists()
    assert Table(store).games() == []
    store.close()


def test_a_crash_left_write_ahead_log_is_recovered_not_treated_as_damage(tmp_path):
    path = tmp_path / "clabber.db"
    t = open_table(path)
    g = played(t)
    # Copy the file set as a power cut would leave it: main file, WAL and shared memory.
    for suffix in ("", "-wal", "-shm"):
        src = path.with_name(path.name + suffix)
        if src.exists():
            (tmp_path / f"copy.db{suffix}").write_bytes(src.read_bytes())
    t.store.close()
    store, report = open_store(tmp_path / "copy.db", tmp_path / "backups")
    assert report.notice is None and len(Table(store).game(g.id).hands) == 2
    store.close()


def test_a_full_disk_refuses_the_save_and_keeps_the_log_consistent(table):
    g = played(table)
    pages = table.store.conn.execute("PRAGMA page_count").fetchone()[0]
    table.store.conn.execute(f"PRAGMA max_page_count = {pages}")
    before = table.game(g.id)
    with pytest.raises(StoreError, match="storage is full"):
        for _ in range(200):
            g = table.new_game(["A" * 40, "B" * 40], first_dealer="N")
            for h in QUICK_HANDS[:2]:
                table.add_hand(g.id, h)
    assert table.store.integrity() == ["ok"]
    assert table.game(before.id).sheet == before.sheet
    assert table.store.derived_matches(project)


def test_backups_rotate_and_restore_checks_the_file(table, tmp_path):
    played(table)
    folder = tmp_path / "backups"
    made = [back_up(table.store, folder, keep=3) for _ in range(5)]
    assert backups(folder) == sorted(made[-3:], reverse=True)
    assert check_file(made[-1]) is None
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 100)
    path = table.store.path
    table.store.close()
    with pytest.raises(StoreError, match="will not restore"):
        restore(path, bad, tmp_path / "damaged")
    assert check_file(path, live=True) is None  # untouched
    moved = restore(path, made[-1], tmp_path / "damaged")
    assert moved is not None and moved.exists()
    store = Store(path)
    assert len(Table(store).games()) == 1
    store.close()


def test_backups_belong_to_their_database(tmp_path):
    """A folder's backups of one database are never restored into another, nor rotated by it."""
    folder = tmp_path / "backups"
    ours = open_table(tmp_path / "clabber.db")
    played(ours)
    kept = [back_up(ours.store, folder, keep=2) for _ in range(2)]
    ours.store.close()
    other, report = open_store(tmp_path / "other.db", folder)  # a new database beside the first
    assert report.notice is None and Table(other).games() == []  # new: nothing restored into it
    back_up(other, folder, keep=1)
    other.close()
    assert set(kept) <= set(backups(folder)) and backups(folder, of=tmp_path / "clabber.db") == kept[::-1]
    (tmp_path / "clabber.db").unlink()  # our own file gone: our newest backup comes back
    store, report = open_store(tmp_path / "clabber.db", folder)
    assert report.notice is not None and len(Table(store).games()) == 1
    store.close()


def test_a_backup_that_does_not_say_whose_it_is_is_not_restored_by_itself(tmp_path):
    folder = tmp_path / "backups"
    ours = open_table(tmp_path / "clabber.db")
    played(ours)
    made = back_up(ours.store, folder, keep=2)
    ours.store.close()
    with sqlite3.connect(made) as conn:  # as an older kiosk made them
        conn.execute("DELETE FROM settings WHERE key = 'backup_of'")
    (tmp_path / "clabber.db").unlink()
    store, report = open_store(tmp_path / "clabber.db", folder)
    assert report.notice is None and Table(store).games() == []  # a new database; the backup is kept
    store.close()
    assert made.exists()


def test_rebuild_gives_the_same_derived_tables(table):
    g = played(table, QUICK_HANDS)
    table.undo(g.id)
    before = table.store.derived_snapshot()
    table.store.conn.execute("DELETE FROM hands")
    assert not table.store.derived_matches(project)
    table.store.rebuild(project)
    assert table.store.derived_snapshot() == before
