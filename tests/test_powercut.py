"""Cut the power at random moments: every hand the writer reported saved must be there afterwards.

The writer (tests/crash_writer.py: the real store and controller) runs on tests/lossyfs.py, a
filesystem that loses everything not fsynced when the power is cut. Unlike the SIGKILL test
(test_crash.py), which the page cache lets pass without a single fsync, this one fails when a
save is acknowledged before it is durable: the second test shows that it does.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TextIO

import pytest

from kiosk.projection import project
from kiosk.store import Store
from tests import crash_writer
from tests.helpers import unavailable
from tests.lossyfs import Disk, fuse_usable

CUTS = int(os.environ.get("CLABBER_POWERCUT_CUTS", "200"))
WEAK_CUTS = 12  # a weakened store loses hands at most of these
WRITER_LIMIT = 20.0  # seconds for one run of the writer; it is ready in about 0.05
HANDS_PER_RUN = 15  # on average, between two cuts


@pytest.fixture(autouse=True)
def _fuse_here() -> None:
    why = fuse_usable()
    if why is not None:
        unavailable(f"the power-cut test needs FUSE: {why}")


@dataclass
class Tally:
    """What a run of cuts saw."""

    cuts: int = 0
    acknowledged: int = 0  # hands the writer reported saved
    lost: int = 0  # acknowledged hands missing after a cut, summed over the cuts
    cuts_with_loss: int = 0
    losses: list[str] = field(default_factory=list)  # the first few, in words
    damage: list[str] = field(default_factory=list)  # cuts after which the file was not sound, and why
    failures: list[str] = field(default_factory=list)  # writers that did not start or ended in a traceback
    fsyncs: int = 0  # fsyncs that reached the filesystem (every process, every mount)
    fs_log: str = ""  # what the filesystem logged (mfusepy logs an operation that raised)
    seconds: float = 0.0

    def figures(self, label: str) -> str:
        return (
            f"{label}: {self.cuts} cuts, {self.acknowledged} hands acknowledged, {self.lost} lost"
            f" at {self.cuts_with_loss} cuts, {len(self.damage)} damaged, {self.fsyncs} fsyncs,"
            f" {self.seconds:.0f} s"
        )


def _on_sheet(db: Path) -> dict[int, int]:
    """Hands per game, as the kiosk would find them at start: on the sheet and confirmed in the log."""
    conn = sqlite3.connect(f"file:{db}?mode=rw", uri=True)  # never creates an empty file
    try:
        check = conn.execute("PRAGMA integrity_check").fetchall()
        if check != [("ok",)]:
            raise sqlite3.DatabaseError("integrity_check: " + "; ".join(r[0] for r in check[:3]))
        if conn.execute("PRAGMA user_version").fetchone() == (0,):
            return {}  # cut before the store's tables were first made: nothing could be saved yet
        sheet = dict(conn.execute("SELECT game, COUNT(*) FROM hands GROUP BY game").fetchall())
        query = "SELECT game, COUNT(*) FROM events WHERE kind = 'hand_confirmed' GROUP BY game"
        log = dict(conn.execute(query).fetchall())
    finally:
        conn.close()
    return {game: min(sheet.get(game, 0), log.get(game, 0)) for game in sheet.keys() | log.keys()}


@dataclass
class Writer:
    """tests/crash_writer.py in a process of its own, and what it prints."""

    process: BaseProcess
    output: TextIO

    @classmethod
    def start(cls, processes: ForkServerContext, db: Path, seed: int, synchronous: str | None) -> Writer:
        return cls(*crash_writer.start_forked(processes, str(db), seed, synchronous))

    def kill_at_random(self, rng: random.Random) -> str:
        """Kills it at a random moment; everything it printed."""
        watchdog = threading.Timer(WRITER_LIMIT, self.process.kill)  # a hung writer ends the wait
        watchdog.start()
        head = ""
        if rng.random() < 1 / 8:  # while it starts: opening, recovering the WAL, checking the file
            time.sleep(rng.uniform(0.0, 0.1))
        else:  # mid-save: after a random number of hands, at a random point of the next save
            wanted, seen, ready = rng.randint(0, 2 * HANDS_PER_RUN), 0, False
            for line in iter(self.output.readline, ""):  # "" once it died (or the watchdog killed it)
                head += line
                ready = ready or line == "ready\n"  # (a hand left unconfirmed is confirmed before)
                seen += ready and line.startswith("saved ")
                if ready and seen >= wanted:
                    break
            else:
                head += "(stopped before it was killed)\n"
            time.sleep(rng.uniform(0.0, 0.01))  # a hand takes a few milliseconds
        self.process.kill()  # SIGKILL
        watchdog.cancel()
        self.process.join()
        with self.output:
            return head + self.output.read()  # a few kB at most


def cut_power_repeatedly(
    tmp_path: Path, cuts: int, seed: int, synchronous: str | None = None, power_cut: bool = True
) -> Tally:
    """Runs the writer on a LossyFS and stops it ``cuts`` times at random moments.

    With ``power_cut`` each stop cuts the power and mounts the filesystem again (a reboot); without,
    it only kills the writer, as the SIGKILL test does. Then the database must be sound and hold
    every hand acknowledged before the stop. A loss is counted, and the count goes on from what
    survived, so each stop's loss is counted once. ``synchronous`` weakens the writer's store."""
    disk = Disk(tmp_path / "disk", tmp_path / "mnt")
    db = disk.mountpoint / "clabber.db"
    rng = random.Random(seed)
    tally = Tally()
    saved: dict[int, int] = {}  # game -> hands acknowledged and not found lost since
    started = time.monotonic()
    disk.mount()
    try:
        for i in range(cuts):
            out = Writer.start(disk.processes, db, seed * 1000 + i, synchronous).kill_at_random(rng)
            if power_cut:
                disk.cut()  # the power goes: whatever was not fsynced is gone
            tally.cuts += 1
            if "Traceback" in out or "(stopped before" in out:
                tally.failures.append(f"cut {i}: {out[-800:]}")
            for line in out.splitlines():
                if line.startswith("saved "):
                    game, hands = map(int, line.split()[1:])
                    saved[game] = max(saved.get(game, 0), hands)
                    tally.acknowledged += 1
            if power_cut:
                disk.mount()  # the power is back
            try:
                there = _on_sheet(db) if db.exists() else {}  # cut before the file was first made
            except sqlite3.Error as e:
                tally.damage.append(f"cut {i}: {e}")
                there = {}
            missing = {game: n - there.get(game, 0) for game, n in saved.items() if there.get(game, 0) < n}
            if missing:
                tally.cuts_with_loss += 1
                tally.lost += sum(missing.values())
                if len(tally.losses) < 5:
                    tally.losses.append(f"cut {i}: lost {missing} (game: acknowledged hands missing)")
                saved = {game: min(n, there.get(game, 0)) for game, n in saved.items()}
    finally:
        disk.close()
        tally.seconds = time.monotonic() - started
    tally.fsyncs = disk.stats().get("fsyncs", 0)
    tally.fs_log = disk.log()
    return tally


@pytest.mark.slow
def test_a_power_cut_never_loses_an_acknowledged_hand(tmp_path):
    tally = cut_power_repeatedly(tmp_path, CUTS, seed=2026)
    print(tally.figures("the store as it is"))
    assert tally.acknowledged > tally.cuts  # the writer really was saving when the power went
    assert not tally.failures, tally.failures[0]
    assert not tally.fs_log, tally.fs_log
    assert not tally.damage, tally.damage
    assert tally.lost == 0, tally.figures("lost") + "\n" + "\n".join(tally.losses)
    assert tally.fsyncs >= 2 * tally.acknowledged  # each hand's two saves reached the filesystem's fsync
    # The sheet and the log agree after all those cuts (checked on a copy: a rebuild is quicker on a real disk).
    disk = Disk(tmp_path / "disk", tmp_path / "mnt")
    disk.mount()
    try:
        with (
            closing(sqlite3.connect(disk.mountpoint / "clabber.db")) as src,
            closing(sqlite3.connect(tmp_path / "copy.db")) as dest,
        ):
            src.backup(dest)
    finally:
        disk.close()
    store = Store(tmp_path / "copy.db")
    assert store.derived_matches(project)
    store.close()


@pytest.mark.slow
@pytest.mark.parametrize("synchronous", ["OFF", "NORMAL"])
def test_the_power_cut_test_sees_a_missing_fsync(tmp_path, synchronous):
    """The harness can fail: a store that acknowledges before it fsyncs loses hands at a cut.

    OFF never syncs; NORMAL (the usual advice for WAL) syncs only at checkpoints."""
    tally = cut_power_repeatedly(tmp_path, WEAK_CUTS, seed=7, synchronous=synchronous)
    print(tally.figures(f"synchronous={synchronous}"))
    assert tally.acknowledged > tally.cuts
    assert tally.lost > 0 and tally.cuts_with_loss >= 3, tally.figures(synchronous)


@pytest.mark.slow
def test_killing_the_writer_alone_cannot_see_a_missing_fsync(tmp_path):
    """Why the power must be cut: SIGKILL leaves the page cache, so nothing is lost even with OFF."""
    tally = cut_power_repeatedly(tmp_path, WEAK_CUTS, seed=7, synchronous="OFF", power_cut=False)
    print(tally.figures("synchronous=OFF, SIGKILL only"))
    assert tally.acknowledged > tally.cuts
    assert tally.lost == 0 and not tally.damage
