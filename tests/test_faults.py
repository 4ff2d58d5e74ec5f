"""The fault matrix of the store: each fault, and what the owner is promised.

Trouble (a full disk, a lock held elsewhere, a read-only file, folder or disk, a permission)
is refused in words, is retried by the kiosk rather than ending in a restart loop, and moves
or changes nothing. Damage (a truncated, emptied or deleted file; one altered event) is
restored or set aside with a notice, and nothing acknowledged is lost that can still be read.
Faults are real: a 1 MiB tmpfs, another process's lock, the immutable flag, a read-only bind
mount, a process run as ``nobody``. These need root (as CI has); elsewhere they are skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kiosk.backups import back_up, backups
from kiosk.store import StoreTrouble
from kiosk.table import Table, open_table
from tests.helpers import clabber_process as clabber
from tests.helpers import unavailable
from tests.store_helpers import QUICK_HANDS


@pytest.fixture
def root() -> None:
    """Mounts, the immutable flag and running as another user need root."""
    if os.geteuid() != 0:
        unavailable("mounts and the immutable flag need root")


TRACEBACK = "Traceback"


# ---- building blocks ---------------------------------------------------------------------------------


def played(db: Path, backup_after: int | None = 2, hands: int = 3) -> tuple[int, str]:
    """A game with ``hands`` hands acknowledged, a backup taken after ``backup_after`` of them;
    the kiosk then stopped cleanly. Returns the game's id and token."""
    table, _ = open_table(db, db.parent / "backups")
    g = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    for i, h in enumerate(QUICK_HANDS[:hands]):
        if i == backup_after:
            back_up(table.store, db.parent / "backups", keep=5)
        g = table.add_hand(g.id, h)
    table.store.close(fold_log=True)
    return g.id, g.token


def files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and a digest of its bytes: what 'nothing moved or changed' means."""
    out = {}
    for p in sorted(folder.rglob("*")):
        # SQLite's shared-memory index holds no data, and an empty log is no saved data either.
        companion = p.name.endswith("-shm") or (p.name.endswith("-wal") and p.stat().st_size == 0)
        if p.is_file() and "kivy" not in p.parts and not companion:
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def hands_on_sheet(db: Path, game: int) -> int:
    table, _ = open_table(db, db.parent / "backups", writable=False)
    try:
        return len(table.game(game).hands)
    finally:
        table.store.close()


def kiosk(db: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``clabber kiosk`` offscreen, stopped once its first frame is drawn."""
    return clabber("kiosk", "--db", str(db), "--headless", "--gpio", "off", "--exit-at-first-frame", *extra, env=env)


def no_traceback(r: subprocess.CompletedProcess[str]) -> None:
    assert TRACEBACK not in r.stderr and "internal error" not in r.stderr, r.stderr[-3000:]


@contextlib.contextmanager
def mounted(where: Path, *how: str):
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", *how, str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        unavailable(f"cannot mount here: {r.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path, leave: int = 0) -> Path:
    """Writes a file until the disk is full, then gives back ``leave`` bytes."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 4096)
    if leave:
        os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


@contextlib.contextmanager
def immutable(path: Path):
    r = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        unavailable(f"chattr +i not supported here: {r.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


@contextlib.contextmanager
def lock_held(db: Path):
    """Another process holding an exclusive lock on the database until the block ends."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA locking_mode = EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE')\n"
            "c.execute(\"INSERT INTO settings VALUES ('held', 'yes')\")\n"
            "print('held', flush=True); sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    try:
        yield holder
    finally:
        holder.stdin.close()  # the holder rolls back and exits
        holder.wait(timeout=10)


# ---- trouble: refused in words, retried, nothing moved --------------------------------------------


@pytest.mark.slow
@pytest.mark.usefixtures("root")
def test_disk_full_at_start_is_refused_in_words_and_moves_nothing(tmp_path):
    with mounted(tmp_path / "disk", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as disk:
        db = disk / "clabber.db"
        game, _ = played(db)
        filler = fill(disk)
        before = files(disk)
        r = kiosk(db)
        assert r.returncode == 0, r.stderr[-3000:]  # it started: the waiting screen, not an exit
        assert "storage is full" in r.stderr and "Nothing was moved or changed" in r.stderr
        no_traceback(r)
        r = clabber("game", "--db", str(db), "hand", str(game), "-", stdin=json.dumps(QUICK_HANDS[3]))
        assert r.returncode == 3 and "storage is full" in r.stderr
        no_traceback(r)
        r = clabber("game", "--db", str(db), "list")  # SQLite cannot even make its shared-memory file
        assert r.returncode == 3 and "storage is full" in r.stderr
        no_traceback(r)
        assert files(disk) == before and not (disk / "damaged").exists()
        filler.unlink()
        assert hands_on_sheet(db, game) == 3  # every acknowledged hand
        table, report = open_table(db, disk / "backups")
        assert report.notice is None and table.notices() == []
        table.store.close()


@pytest.mark.usefixtures("root")
def test_disk_full_while_running_refuses_the_save_and_keeps_every_saved_hand(tmp_path):
    with mounted(tmp_path / "disk", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as disk:
        db = disk / "clabber.db"
        table, _ = open_table(db, disk / "backups")
        fill(disk)
        saved: dict[int, int] = {}
        refusal = None
        for _ in range(400):
            try:
                g = table.new_game(["A" * 40, "B" * 40], first_dealer="N")
                saved[g.id] = 0
                for h in QUICK_HANDS[:3]:
                    table.add_hand(g.id, h)
                    saved[g.id] += 1
            except Exception as e:  # what the screen would show
                refusal = e
                break
        assert refusal is not None and "storage is full" in str(refusal)
        table.store.close()
        with pytest.raises(StoreTrouble, match="storage is full"):
            open_table(db, disk / "backups")  # a restart on the still-full disk: refused, not damage
        assert not (disk / "damaged").exists()
        (disk / "filler").unlink()
        table, report = open_table(db, disk / "backups")
        assert report.notice is None and table.store.integrity() == ["ok"]
        for game, n in saved.items():
            assert len(table.game(game).hands) >= n
        table.store.close()


@pytest.mark.slow  # waits out SQLite's five-second lock timeout
def test_a_lock_held_by_another_process_is_refused_and_moves_nothing(tmp_path):
    db = tmp_path / "clabber.db"
    game, _ = played(db)
    before = files(tmp_path)
    with lock_held(db):
        started = time.monotonic()
        r = clabber("game", "--db", str(db), "list")
        assert r.returncode == 3 and "another program holds a lock" in r.stderr
        assert time.monotonic() - started < 30
        no_traceback(r)
        with pytest.raises(StoreTrouble, match="lock"):
            open_table(db, tmp_path / "backups")
    assert files(tmp_path) == before and not (tmp_path / "damaged").exists()
    assert hands_on_sheet(db, game) == 3


@pytest.mark.slow  # waits out SQLite's five-second lock timeout
def test_the_kiosk_waits_on_a_lock_and_starts_when_it_is_released(tmp_path):
    """No restart loop: the kiosk keeps running, says why, and opens the sheet once it can."""
    db = tmp_path / "clabber.db"
    game, _ = played(db)
    log = tmp_path / "kiosk.log"
    exe = Path(sys.executable).with_name("clabber")
    with lock_held(db), open(log, "w") as err:
        proc = subprocess.Popen(
            [str(exe), "kiosk", "--db", str(db), "--headless", "--gpio", "off"],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, "CLABBER_RETRY_SECONDS": "0.5"},
        )
        try:
            deadline = time.monotonic() + 60
            while "another program holds a lock" not in log.read_text() and time.monotonic() < deadline:
                assert proc.poll() is None, log.read_text()[-3000:]
                time.sleep(0.2)
            time.sleep(2)  # several retries
            assert proc.poll() is None, "the kiosk exited instead of waiting"
        except BaseException:
            proc.kill()
            raise
    try:
        deadline = time.monotonic() + 30
        while "the database is open" not in log.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()[-3000:]
            time.sleep(0.2)
        text = log.read_text()
        assert "the database is open" in text and TRACEBACK not in text
        assert text.count("another program holds a lock") == 1  # said once, not once per retry
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert not (tmp_path / "damaged").exists() and hands_on_sheet(db, game) == 3


@pytest.mark.usefixtures("root")
def test_a_read_only_file_is_refused_at_start_in_words(tmp_path):
    db = tmp_path / "clabber.db"
    game, _ = played(db)
    before = files(tmp_path)
    with immutable(db):
        r = kiosk(db)
        assert r.returncode == 0 and "cannot be written: the file or its folder is read-only" in r.stderr
        no_traceback(r)
        r = clabber("game", "--db", str(db), "list")
        assert r.returncode == 0 and "Ruminers" in r.stdout
    assert files(tmp_path) == before and not (tmp_path / "damaged").exists()
    assert hands_on_sheet(db, game) == 3


@pytest.mark.slow
@pytest.mark.usefixtures("root")
def test_a_read_only_folder_is_refused_at_start_in_words(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir()
    db = folder / "clabber.db"
    game, _ = played(db)
    before = files(folder)
    with immutable(folder):
        for args in (("list",), ("new", "--teams", "A", "B")):
            r = clabber("game", "--db", str(db), *args)
            assert r.returncode == 3 and "Nothing was moved or changed" in r.stderr, r.stderr
            no_traceback(r)
        r = kiosk(db)
        assert r.returncode == 0 and "permission denied" in r.stderr, r.stderr[-2000:]
        no_traceback(r)
        assert files(folder) == before
    assert hands_on_sheet(db, game) == 3


@pytest.mark.slow
@pytest.mark.usefixtures("root")
def test_a_read_only_disk_is_refused_and_named(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir()
    db = folder / "clabber.db"
    game, _ = played(db)
    before = files(folder)
    with mounted(folder, "--bind", str(folder)):
        r = subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True, text=True)
        if r.returncode != 0:
            unavailable(f"cannot remount read-only: {r.stderr.strip()}")
        r = kiosk(db)
        assert r.returncode == 0 and "the disk it is on is mounted read-only" in r.stderr, r.stderr[-2000:]
        no_traceback(r)
        r = clabber("game", "--db", str(db), "hand", str(game), "-", stdin=json.dumps(QUICK_HANDS[3]))
        assert r.returncode == 3 and "mounted read-only" in r.stderr
        assert files(folder) == before
    assert hands_on_sheet(db, game) == 3


@pytest.mark.usefixtures("root")
def test_permission_denied_is_refused_in_words(tmp_path):
    # Root ignores permission bits through two capabilities: the command runs as root without them,
    # on a file whose owner (root) may not open it. Root keeps its own uid, so the project's files
    # stay readable wherever the clone sits (a folder only root may enter included).
    folder = tmp_path / "perm"
    folder.mkdir()
    db = folder / "clabber.db"
    game, _ = played(db)
    db.chmod(0o000)
    try:
        before = files(folder)
        r = subprocess.run(
            [
                "setpriv",
                "--bounding-set=-dac_override,-dac_read_search",
                "--inh-caps=-dac_override,-dac_read_search",
                str(Path(sys.executable).with_name("clabber")),
                "game",
                "--db",
                str(db),
                "list",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if "setpriv" in r.stderr and r.returncode != 3:
            unavailable(f"cannot drop root's capabilities: {r.stderr.strip()}")
        assert r.returncode == 3 and "permission denied" in r.stderr, r.stderr
        no_traceback(r)
        assert files(folder) == before
    finally:
        db.chmod(0o600)
    assert hands_on_sheet(db, game) == 3


# ---- damage: restored with a notice that says what was lost ------------------------------------------


def test_a_truncated_file_is_restored_and_the_notice_names_what_was_lost(tmp_path):
    db = tmp_path / "clabber.db"
    game, _ = played(db)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    damaged = db.read_bytes()
    r = clabber("game", "--db", str(db), "list")
    assert r.returncode == 0 and "The database was damaged" in r.stderr and "Ruminers" in r.stdout
    no_traceback(r)
    moved = list((tmp_path / "damaged").glob("*.db"))
    assert [p.read_bytes() for p in moved] == [damaged]  # kept as it was
    table, _ = open_table(db, tmp_path / "backups")
    notices = table.notices()
    assert len(notices) == 1 and "was restored" in notices[0] and str(moved[0]) in notices[0]
    # What the half file still held came back; what it did not is named.
    assert len(table.game(game).hands) >= 2
    table.store.close()


@pytest.mark.slow
def test_a_zero_length_file_with_backups_is_restored_with_a_notice(tmp_path):
    db = tmp_path / "clabber.db"
    game, _ = played(db)
    db.write_bytes(b"")
    r = kiosk(db)
    assert r.returncode == 0 and "the database file is empty (0 bytes)" in r.stderr.lower()
    no_traceback(r)
    table, _ = open_table(db, tmp_path / "backups")
    assert len(table.game(game).hands) == 2  # the backup's
    assert any("empty (0 bytes)" in n and "must be entered again" in n for n in table.notices())
    table.store.close()


def test_a_deleted_file_with_backups_is_restored_and_the_notice_survives_restarts(tmp_path):
    db = tmp_path / "clabber.db"
    game, _ = played(db)
    db.unlink()
    table, report = open_table(db, tmp_path / "backups")
    assert "missing" in report.notice and len(table.game(game).hands) == 2
    table.store.close(fold_log=True)
    for _ in range(2):  # shown at every start until the owner acknowledges it
        table, report = open_table(db, tmp_path / "backups")
        assert report.notice is None and any("missing" in n for n in table.notices())
        table.store.close()
    table, _ = open_table(db, tmp_path / "backups")
    table.set_pin("582917")
    from shared.game_state import ActionRefused

    with pytest.raises(ActionRefused):
        table.acknowledge("1111")
    assert table.acknowledge("582917") == 1 and table.notices() == []
    table.store.close()


def damage_events_page(db: Path, which: float) -> None:
    """Overwrites one page of the event log's table, ``which`` of the way along it."""
    conn = sqlite3.connect(db)
    pages = [
        r[0]
        for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno")
    ]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    victim = pages[int(len(pages) * which)]
    with open(db, "r+b") as f:
        f.seek((victim - 1) * size)
        f.write(b"\xde\xad" * (size // 2))


def test_events_readable_in_a_damaged_file_are_applied_again_on_the_backup(tmp_path):
    db = tmp_path / "clabber.db"
    table, _ = open_table(db, tmp_path / "backups")
    ids = []
    for i in range(40):
        g = table.new_game([f"Team {i}", f"Other {i}"], first_dealer="N")
        for h in QUICK_HANDS[:3]:
            g = table.add_hand(g.id, h)
        ids.append(g.id)
        if i == 9:
            back_up(table.store, tmp_path / "backups", keep=5)
    table.store.close(fold_log=True)
    damage_events_page(db, 0.7)
    table, report = open_table(db, tmp_path / "backups")
    lost_games = {int(span.split()[1]) for span in report.lost}
    assert report.reapplied > 0 and lost_games  # some came back, some did not, and it says which
    for g in ids:
        if g not in lost_games:  # the backup's games, and every later one the damage did not reach
            assert len(table.game(g).hands) == 3, f"game {g}"
    assert all(f"game {g} " in report.notice for g in lost_games) and "must be entered again" in report.notice
    assert table.store.integrity() == ["ok"]
    table.store.close()


@pytest.mark.slow
def test_a_restore_on_a_full_disk_moves_nothing_and_leaves_no_empty_file(tmp_path):
    if os.geteuid() != 0:
        unavailable("needs root to mount")
    with mounted(tmp_path / "disk", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as disk:
        db = disk / "clabber.db"
        game, _ = played(db)
        with open(db, "r+b") as f:
            f.seek(100)
            f.write(b"\xff" * 3000)
        filler = fill(disk, leave=96 * 1024)  # room to open the file, not to restore a backup beside it
        before = files(disk)
        r = clabber("game", "--db", str(db), "list")
        assert r.returncode == 3 and "could not be restored" in r.stderr and "storage is full" in r.stderr, r.stderr
        no_traceback(r)
        assert files(disk) == before and db.stat().st_size > 0
        filler.unlink()
        table, report = open_table(db, disk / "backups")
        assert report.restored_from is not None and len(table.game(game).hands) >= 2
        table.store.close()


# ---- one altered event: that game set aside, the rest goes on ------------------------------------------


def alter_one_digit(db: Path) -> None:
    """``"NS": 70`` becomes ``"NS": 79`` in one stored event: still valid JSON, integrity_check ok."""
    data = db.read_bytes()
    at = data.index(b'"NS": 70')
    db.write_bytes(data[: at + 7] + b"9" + data[at + 8 :])


@pytest.mark.slow
def test_one_altered_event_is_quarantined_not_fatal(tmp_path):
    from tests.web_helpers import Server

    db = tmp_path / "clabber.db"
    game, token = played(db, backup_after=None)
    table, _ = open_table(db, tmp_path / "backups")
    other = table.new_game(["Ruminers", "Pirates"], first_dealer="E")
    other_token = other.token
    table.store.close(fold_log=True)
    alter_one_digit(db)
    r = kiosk(db)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"game {game} needs the owner's attention: its event 2 (hand_entered)" in r.stderr
    no_traceback(r)
    r = clabber("db", "--db", str(db), "check")
    assert r.returncode == 0 and f"game {game} needs the owner's attention: event 2 (hand_entered)" in r.stdout
    assert "points" in r.stdout and "79" in r.stdout
    no_traceback(r)
    table, report = open_table(db, tmp_path / "backups")
    assert report.notice is None and not (tmp_path / "damaged").exists()  # not damage: nothing moved
    assert table.open_game().id == other.id  # the other open game goes on
    assert any(f"game {game} needs the owner's attention" in n for n in table.notices())
    table.store.close()
    server = Server(db)
    try:
        for _ in range(3):
            status, _, html = server.get(f"/g/{token}")
            assert status == 503 and "needs the owner's attention" in html
        status, _, html = server.get(f"/g/{other_token}")
        assert status == 200 and "Pirates" in html
    finally:
        err = server.close()
    assert TRACEBACK not in err


@pytest.mark.slow
def test_the_owner_sets_an_unfoldable_game_aside(tmp_path):
    db = tmp_path / "clabber.db"
    game, _ = played(db, backup_after=None)
    alter_one_digit(db)
    r = kiosk(db)  # the only open game cannot be folded: the kiosk starts all the same
    assert r.returncode == 0 and "needs the owner's attention" in r.stderr, r.stderr[-3000:]
    no_traceback(r)
    table, _ = open_table(db, tmp_path / "backups")
    assert table.open_game() is None and [e.game for e in table.attention()] == [game]
    table.set_pin("582917")
    assert table.acknowledge("582917") == 1
    table.store.close()
    table, _ = open_table(db, tmp_path / "backups")
    assert table.notices() == [] and table.open_game() is None
    table.store.close()


# ---- checks and backups that never block the table --------------------------------------------------


@pytest.mark.slow
def test_db_check_runs_on_a_snapshot_while_the_kiosk_saves(tmp_path):
    db = tmp_path / "clabber.db"
    table, _ = open_table(db, tmp_path / "backups")
    for i in range(300):
        g = table.new_game([f"T{i}", f"U{i}"], first_dealer="N")
        table.add_hand(g.id, QUICK_HANDS[0])
    exe = Path(sys.executable).with_name("clabber")
    check = subprocess.Popen(
        [str(exe), "db", "--db", str(db), "check"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    slowest = 0.0
    while check.poll() is None:
        started = time.monotonic()
        g = table.new_game(["During", "Check"], first_dealer="N")
        table.add_hand(g.id, QUICK_HANDS[1])
        slowest = max(slowest, time.monotonic() - started)
    out, err = check.communicate()
    assert check.returncode == 0 and out.strip().endswith(": ok"), err
    assert slowest < 1.0, f"a save waited {slowest:.2f} s for the check"
    table.store.close()


def test_db_check_warns_of_a_write_ahead_log_beside_the_file(tmp_path):
    db = tmp_path / "clabber.db"
    table, _ = open_table(db, tmp_path / "backups")
    reader = sqlite3.connect(db)  # like the result server: the log cannot be folded in on close
    reader.execute("SELECT COUNT(*) FROM events").fetchone()
    g = table.new_game(["A", "B"], first_dealer="N")
    table.add_hand(g.id, QUICK_HANDS[0])
    r = clabber("db", "--db", str(db), "check")
    assert r.returncode == 0 and "clabber.db-wal beside it holds" in r.stderr
    table.store.close(fold_log=True)  # the kiosk's clean exit, while the result server still reads
    copy = tmp_path / "copy.db"
    shutil.copyfile(db, copy)  # the file alone
    reader.close()
    assert hands_on_sheet(copy, g.id) == 1  # it holds every save
    r = clabber("db", "--db", str(db), "check", str(copy))
    assert r.returncode == 0 and "beside it" not in r.stderr


def test_a_damaged_copy_never_joins_the_backups(tmp_path):
    db = tmp_path / "clabber.db"
    played(db)
    kept = backups(tmp_path / "backups")
    with open(db, "r+b") as f:
        f.seek(4096 * 3)
        f.write(b"\xff" * 4096)
    r = clabber("db", "--db", str(db), "backup", env={"CLABBER_BACKUP_DIR": str(tmp_path / "backups")})
    assert r.returncode == 2 and "backup" in r.stderr
    no_traceback(r)
    assert backups(tmp_path / "backups") == kept


def test_the_kiosk_starts_from_a_read_only_disk_without_kivy_errors(tmp_path):
    # Kivy's settings folder beside the database cannot be made: a temporary one is used.
    from kiosk.ui.launch import kivy_home

    if os.geteuid() != 0:
        unavailable("needs root for chattr")
    folder = tmp_path / "state"
    folder.mkdir()
    with immutable(folder):
        home = kivy_home(folder / "kivy")
    assert home != folder / "kivy" and home.is_dir()


def test_table_is_the_way_in(tmp_path):
    # The controller opens the store: a Table from open_table is an ordinary Table.
    table, report = open_table(tmp_path / "clabber.db", tmp_path / "backups")
    assert isinstance(table, Table) and report.notice is None and table.notices() == []
    table.store.close()


def test_the_notices_from_a_shell(tmp_path):
    db = tmp_path / "clabber.db"
    played(db)
    db.unlink()
    r = clabber("db", "--db", str(db), "notices")
    assert r.returncode == 0 and "The database file is missing" in r.stdout
    r = clabber("db", "--db", str(db), "notices", "--acknowledge", env={"CLABBER_PIN": "0000"})
    assert r.returncode == 0 and "1 acknowledged" in r.stderr  # no PIN set: nothing to ask
    assert clabber("db", "--db", str(db), "notices").stdout == ""
