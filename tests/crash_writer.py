"""A writer for the crash test: saves hands through the controller until it is killed.

Prints ``saved GAME HAND`` only after the controller returned, i.e. after the hand is durable.
Run as ``python -m tests.crash_writer DB SEED``; the power-cut test forks it with ``forked``.

``CLABBER_TEST_SYNCHRONOUS=OFF`` (or ``NORMAL``) weakens the store's connection after it was
opened: only the power-cut test sets it, to prove that it notices a missing fsync. The kiosk
itself has no such setting. ``CLABBER_TEST_LEAGUE`` (JSON: the meeting and sides) makes every game
a league game, whose events go to the outbox; ``forked_sync`` runs the sync worker beside it.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TextIO

from kiosk.recovery import open_store
from kiosk.table import Table


def random_quick_hand(rng: random.Random) -> dict:
    ns = rng.choice([p for p in range(163) if p not in (1, 161)])
    return {"trump": rng.choice("CDHS"), "maker": rng.choice("NESW"), "points": {"NS": ns, "EW": 162 - ns}}


def main() -> None:
    path, seed = Path(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    store, _ = open_store(path, path.parent / "backups")
    weakened = os.environ.get("CLABBER_TEST_SYNCHRONOUS")
    if weakened:
        if weakened not in ("OFF", "NORMAL"):
            sys.exit(f"crash_writer: CLABBER_TEST_SYNCHRONOUS must be OFF or NORMAL, not {weakened!r}")
        store.conn.execute(f"PRAGMA synchronous = {weakened}")
    league = json.loads(os.environ.get("CLABBER_TEST_LEAGUE") or "null")
    table = Table(store, source="cli", rng=rng)
    game = table.open_game()
    if game is not None and game.pending is not None:  # killed between entering and confirming
        game = table.confirm(game.id)
        print(f"saved {game.id} {len(game.hands)}", flush=True)
    print("ready", flush=True)
    while True:
        if game is None or game.status != "open":
            game = table.new_game(["Ruminers", "Mackeys"], first_dealer=rng.choice("NESW"), league=league)
        game = table.add_hand(game.id, random_quick_hand(rng))
        print(f"saved {game.id} {len(game.hands)}", flush=True)


def forked(
    path: str, seed: int, synchronous: str | None, out: Connection, league: dict[str, int] | None = None
) -> None:
    """``main`` in a process forked by the power-cut test, printing (stdout and stderr) into ``out``."""
    os.dup2(out.fileno(), 1)
    os.dup2(out.fileno(), 2)
    if synchronous is not None:
        os.environ["CLABBER_TEST_SYNCHRONOUS"] = synchronous
    if league is not None:
        os.environ["CLABBER_TEST_LEAGUE"] = json.dumps(league)
    sys.argv = [__file__, path, str(seed)]
    main()


def start_forked(
    processes: ForkServerContext, path: str, seed: int, synchronous: str | None = None
) -> tuple[BaseProcess, TextIO]:
    """``forked`` in a process of ``processes``, and what it prints (read until it dies)."""
    reader, out = processes.Pipe(duplex=False)
    process = processes.Process(target=forked, args=(path, seed, synchronous, out))
    process.start()
    out.close()  # the writer holds the only end it writes to: its death ends the stream
    output = open(os.dup(reader.fileno()), encoding="utf-8")  # noqa: SIM115  (the caller closes it)
    reader.close()
    return process, output


def forked_sync(path: str, seed: int, journal: str) -> None:
    """The sync worker (kiosk/sync.py) on ``path`` in a process forked by a test, until it is killed;
    its words appended to ``journal``."""
    import logging

    from kiosk.sync import Pace, Sync

    logging.basicConfig(filename=journal, level=logging.INFO, format="%(message)s")
    pace = Pace(first=0.05, longest=0.5, poll=0.05, gather=0.05, timeout=5.0)
    Sync(Path(path), pace, random.Random(seed)).run(threading.Event())


if __name__ == "__main__":
    main()
