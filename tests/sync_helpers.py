"""A league on a real server and kiosks that play league games through the table controller, for the
sync worker's tests: the worker in a thread or as its own process (``clabber league sync``), and the
comparison of what the league holds with what the kiosk holds."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from kiosk import league_link, outbox
from kiosk.store import Store as KioskStore
from kiosk.sync import Pace, Sync
from kiosk.table import Table
from league.ingest.kiosks import Kiosks
from league.store.core import Store
from league.store.kiosks import kiosk_divergences, kiosk_events
from league.store.tables import games as league_games
from tests.crash_writer import random_quick_hand
from tests.league_kiosk_helpers import league_with_schedule, tonight_now
from tests.league_server import CLABBER, LeagueServer
from tests.store_helpers import open_table

QUICK = Pace(
    first=0.05, longest=0.5, revoked=600.0, tonight_every=300.0, poll=0.05, gather=0.05, timeout=5.0, refresh=0.2
)


def wait_until(what: Callable[[], Any], seconds: float, why: str = "") -> Any:
    """``what()`` once it is true, polling; AssertionError with ``why`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        got = what()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {why}")
        time.sleep(0.05)


class Kiosk:
    """A table's kiosk joined to the league: its controller over its own store, playing league games
    for one meeting with random quick hands (a new game when one is over)."""

    id: int = 0  # the league's id of this kiosk, once joined

    def __init__(self, path: Path, meeting: dict[str, Any], names: tuple[str, str], seed: int = 1) -> None:
        self.path = path
        self.table: Table = open_table(path)
        self.meeting = {"meeting": meeting["id"], "NS": meeting["team_a"], "EW": meeting["team_b"]}
        self.names = names
        self.rng = random.Random(seed)
        self.game: Any = None

    def join(self, kiosks: Kiosks, venue: int, url: str, table: int = 1) -> int:
        joined = league_link.join(self.table.store, url, kiosks.make_code(venue, table))
        return int(joined["kiosk"])

    def hand(self) -> float:
        """One hand entered and confirmed (a game started first when none is open); its seconds."""
        if self.game is None or self.game.status != "open":
            self.game = self.table.new_game(list(self.names), league=self.meeting, first_dealer="N")
        started = time.perf_counter()
        self.game = self.table.add_hand(self.game.id, random_quick_hand(self.rng))
        return time.perf_counter() - started

    def play(self, events: int) -> list[float]:
        """Hands until at least ``events`` more events are in the log; each add_hand's seconds."""
        goal = self.events() + events
        times = []
        while self.events() < goal:
            times.append(self.hand())
        return times

    def events(self) -> int:
        return int(self.table.store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    @property
    def store(self) -> KioskStore:
        return self.table.store

    def close(self) -> None:
        self.table.close()


def league_holds(store: Store, kiosk: int) -> dict[int, list[dict[str, Any]]]:
    """The league's copy of a kiosk's games: game -> its events as stored, in seq order."""
    with store.read() as r:
        rows = r.conn.execute(
            sa.select(kiosk_events.c.game, kiosk_events.c.seq, kiosk_events.c.event)
            .where(kiosk_events.c.kiosk_id == kiosk)
            .order_by(kiosk_events.c.game, kiosk_events.c.seq)
        ).all()
    out: dict[int, list[dict[str, Any]]] = {}
    for game, seq, text in rows:
        event = json.loads(text)
        assert event["seq"] == seq
        out.setdefault(game, []).append(event)
    return out


def kiosk_holds(store: KioskStore) -> dict[int, list[dict[str, Any]]]:
    """The kiosk's league games as the league should hold them: game -> its events, in seq order."""
    league = [r[0] for r in store.conn.execute("SELECT game FROM league_games ORDER BY game")]
    return {game: [asdict(e) for e in store.events(game)] for game in league}


def differences(store: Store, kiosk: int, mine: KioskStore) -> list[str]:
    """Where the league's copy differs from the kiosk's, in words (empty: exactly the same, each once)."""
    theirs, ours = league_holds(store, kiosk), kiosk_holds(mine)
    out = []
    for game in sorted(theirs.keys() | ours.keys()):
        a, b = theirs.get(game, []), ours.get(game, [])
        if [e["seq"] for e in a] != list(range(1, len(a) + 1)):
            out.append(f"game {game}: the league's seqs are not 1..{len(a)}")
        if len(a) != len(b):
            out.append(f"game {game}: the league holds {len(a)} events, the kiosk {len(b)}")
        elif a != b:
            seq = next(x["seq"] for x, y in zip(a, b, strict=True) if x != y)
            out.append(f"game {game}: event {seq} differs")
    return out


def divergences(store: Store) -> int:
    with store.read() as r:
        return int(r.conn.execute(sa.select(sa.func.count()).select_from(kiosk_divergences)).scalar_one())


def league_game_count(store: Store, kiosk: int) -> dict[int, int]:
    """How many league games each kiosk game became (never more than one)."""
    with store.read() as r:
        rows = r.conn.execute(
            sa.select(league_games.c.kiosk_game, sa.func.count())
            .where(league_games.c.kiosk_id == kiosk)
            .group_by(league_games.c.kiosk_game)
        ).all()
    return {int(g): int(n) for g, n in rows}


def delivered(kiosk: Kiosk) -> bool:
    """The outbox is empty and the worker said so."""
    return outbox.queued(kiosk.store) == 0 and outbox.sync_state(kiosk.store).get("state") == "connected"


@contextmanager
def worker(path: Path, pace: Pace = QUICK, seed: int = 1) -> Iterator[Sync]:
    """The worker in a thread of this process until the block ends."""
    sync = Sync(path, pace, random.Random(seed))
    stop = threading.Event()
    thread = threading.Thread(target=sync.run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield sync
    finally:
        stop.set()
        thread.join(timeout=30)
        assert not thread.is_alive(), "the worker did not stop"


class WorkerProcess:
    """``clabber league sync`` as its own process, as systemd runs it; its journal in a file."""

    def __init__(self, path: Path | None, env: dict[str, str] | None = None) -> None:
        self.path = path
        self.journal = tempfile.TemporaryFile()  # noqa: SIM115  (read by words(), closed with the test)
        self.proc = subprocess.Popen(
            [str(CLABBER), "league", "sync", *(["--kiosk-db", str(path)] if path else [])],
            stdout=subprocess.DEVNULL,
            stderr=self.journal,
            env={**os.environ, **(env or {})},
        )

    def words(self) -> str:
        self.journal.seek(0)
        return self.journal.read().decode(errors="replace")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> int:
        """SIGTERM, as systemd stops it: its exit status."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def tonight_league(db: str) -> dict[str, Any]:
    """league_with_schedule whose first round is tonight (the server's today), with each venue's
    meeting as a row, and the kiosks' library."""
    store = Store(db)
    world = league_with_schedule(store, tonight_now())
    with store.read() as r:
        meetings = {v: r.meeting(m) for v, m in world["meeting_at"].items()}
    return {**world, "store": store, "kiosks": Kiosks(store), "meeting": meetings}


def served_league(db: str) -> Iterator[dict[str, Any]]:
    """tonight_league served by ``clabber league serve`` on loopback, with its ``server`` and ``url``
    (and ``db``), for a fixture to yield from."""
    world = tonight_league(db)
    server = LeagueServer(db)
    server.start()
    yield {**world, "server": server, "url": server.url, "db": db}
    server.stop()
    world["store"].close()


def kiosk_at(world: dict[str, Any], folder: Path, venue: int, url: str, seed: int = 1) -> tuple[Kiosk, int]:
    """A kiosk at ``venue``'s table 1 joined to the league at ``url``, playing that venue's meeting; its id."""
    folder.mkdir(parents=True, exist_ok=True)
    kiosk = Kiosk(folder / "kiosk.db", world["meeting"][venue], world["teams_at"][venue], seed)
    return kiosk, kiosk.join(world["kiosks"], venue, url)
