"""The power-cut filesystem keeps exactly what was fsynced (tests/lossyfs.py): the model the
power-cut test relies on."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import unavailable
from tests.lossyfs import Disk, fuse_usable


@pytest.fixture
def disk(tmp_path) -> Iterator[Disk]:
    why = fuse_usable()
    if why is not None:
        unavailable(f"the power-cut filesystem needs FUSE: {why}")
    disk = Disk(tmp_path / "store", tmp_path / "mnt")
    disk.mount()
    yield disk
    disk.close()


def _write(path: Path, data: bytes, *, sync: bool, mode: int = os.O_WRONLY | os.O_CREAT) -> None:
    fd = os.open(path, mode, 0o644)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _reboot(disk: Disk) -> None:
    disk.cut()
    disk.mount()


def test_what_was_fsynced_survives_a_cut_and_nothing_else(disk):
    m = disk.mountpoint
    _write(m / "kept", b"durable", sync=True)
    _sync_dir(m)
    _write(m / "kept", b" and then some", sync=False, mode=os.O_WRONLY | os.O_APPEND)
    assert (m / "kept").read_bytes() == b"durable and then some"  # before the cut, all is there
    _reboot(disk)
    assert (m / "kept").read_bytes() == b"durable"


def test_names_are_durable_only_once_their_directory_is_fsynced(disk):
    m = disk.mountpoint
    _write(m / "named", b"", sync=False)
    _write(m / "synced-but-unnamed", b"contents", sync=True)  # its name never made durable
    (m / "sub").mkdir()
    _sync_dir(m)  # "named", "synced-but-unnamed" and "sub" now durable; contents as of their fsync
    _write(m / "named", b"never fsynced", sync=False)
    _write(m / "late", b"x", sync=True)
    os.rename(m / "synced-but-unnamed", m / "renamed")
    (m / "named").unlink()
    _write(m / "sub" / "inner", b"y", sync=True)
    _reboot(disk)
    assert sorted(os.listdir(m)) == ["named", "sub", "synced-but-unnamed"]  # the rename and unlink undone
    assert (m / "named").read_bytes() == b""  # a durable name, contents never fsynced
    assert (m / "synced-but-unnamed").read_bytes() == b"contents"
    assert os.listdir(m / "sub") == []


def test_a_rename_made_durable_stays(disk):
    m = disk.mountpoint
    _write(m / "a.partial", b"new", sync=True)
    os.rename(m / "a.partial", m / "a")
    _sync_dir(m)
    _reboot(disk)
    assert os.listdir(m) == ["a"]
    assert (m / "a").read_bytes() == b"new"


WAL_WRITER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("PRAGMA synchronous = FULL")
conn.execute("CREATE TABLE t (n INTEGER)")
for n in range(50):
    conn.execute("INSERT INTO t VALUES (?)", (n,))
conn.execute("PRAGMA synchronous = OFF")
for n in range(50, 80):
    conn.execute("INSERT INTO t VALUES (?)", (n,))
print(conn.execute("SELECT COUNT(*) FROM t").fetchone()[0], flush=True)
time.sleep(60)
"""


def test_sqlite_in_wal_mode_keeps_synced_commits_and_loses_the_others(disk):
    db = disk.mountpoint / "t.db"
    writer = subprocess.Popen([sys.executable, "-c", WAL_WRITER, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "80\n"
    finally:
        writer.kill()  # with its connection open, as when the power goes
        writer.wait()
    stats = disk.stats()
    assert stats["fsyncs"] >= 50 and stats["dirsyncs"] >= 1  # SQLite's fsyncs reach the filesystem
    _reboot(disk)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("SELECT COUNT(*) FROM t").fetchone() == (50,)
    finally:
        conn.close()


def test_its_processes_start_on_a_machine_without_libfuse():
    """The sync-fault tests fork their writers from the same server: without libfuse (here, a name
    that finds none), they still start and end, though the filesystem itself cannot be mounted."""
    script = """
import os, sys
from tests.lossyfs import fuse_usable, processes
forks = processes()
p = forks.Process(target=os.getpid)
p.start()
p.join(30)
print(p.exitcode, fuse_usable())
"""
    env = {**os.environ, "FUSE_LIBRARY_NAME": "no-such-fuse-library"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    exitcode, why = done.stdout.strip().split(" ", 1)
    assert exitcode == "0"
    assert why != "None"  # FUSE is said to be unusable: its tests are skipped
