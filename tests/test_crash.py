"""Kill a writer at random moments: every hand it reported saved must be there, the file sound."""

from __future__ import annotations

import os
import random
import sqlite3
import time
from typing import TextIO

import pytest

from kiosk.projection import project
from kiosk.store import Store
from tests import crash_writer, lossyfs

pytestmark = pytest.mark.slow  # 200 kills of a real writer

KILLS = int(os.environ.get("CLABBER_CRASH_KILLS", "200"))


def _until_ready(output: TextIO) -> list[str]:
    """The writer's lines up to and including ``ready`` (fewer if it ended first)."""
    lines = []
    for line in iter(output.readline, ""):
        lines.append(line)
        if line.strip() == "ready":
            break
    return lines


def test_sigkill_at_random_moments_never_loses_a_saved_hand(tmp_path):
    db = tmp_path / "clabber.db"
    rng = random.Random(2026)
    saved: dict[int, int] = {}  # game -> hands reported saved
    reports = 0
    # Each writer is forked from a server that has imported it: a start costs a fork, not an
    # interpreter's start, so the kills land on the store's work rather than on Python's imports.
    processes = lossyfs.processes()
    for i in range(KILLS):
        writer, output = crash_writer.start_forked(processes, str(db), i)
        early = []
        if i % 8 == 0:  # now and then while it is still starting up
            time.sleep(rng.uniform(0.0, 0.3))
        else:  # mostly mid-save: a moment after it said it is ready, however long starting took
            early = _until_ready(output)
            time.sleep(rng.uniform(0.0, 0.2))
        writer.kill()  # SIGKILL
        writer.join()
        with output:
            err = out = "".join(early) + output.read()  # its standard output and error, together
        assert "Traceback" not in err, err
        for line in out.splitlines():
            if line.startswith("saved "):
                game, hands = map(int, line.split()[1:])
                saved[game] = max(saved.get(game, 0), hands)
                reports += 1
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)], f"after kill {i}"
            for game, hands in saved.items():
                on_sheet = conn.execute("SELECT COUNT(*) FROM hands WHERE game = ?", (game,)).fetchone()[0]
                confirmed = conn.execute(
                    "SELECT COUNT(*) FROM events WHERE game = ? AND kind = 'hand_confirmed'", (game,)
                ).fetchone()[0]
                assert on_sheet >= hands and confirmed >= hands, f"game {game} lost hands after kill {i}"
        finally:
            conn.close()
    assert reports > KILLS  # the writer really was saving when it was killed
    store = Store(db)
    assert store.derived_matches(project)
    store.close()
