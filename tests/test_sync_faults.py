"""The sync worker's faults, each on loopback against a real ``clabber league serve`` (SQLite) and real
kiosk stores written by the table controller: the league killed in the middle of a batch, an evening
without the league, a network that drops, repeats, delays, re-orders and cuts deliveries, the worker
killed at random moments, the kiosk's power cut, a restored older backup, a revoked key.

Each ends with the league's copy compared with the kiosk's own log, event by event: the same events,
in order, each stored once (tests/sync_helpers.py ``differences``)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import socket
import sqlite3
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kiosk import league_link, outbox, sync
from kiosk.backups import back_up
from kiosk.recovery import restore
from league.ingest.kiosks import Kiosks
from tests import crash_writer
from tests.helpers import unavailable
from tests.league_server import LeagueServer
from tests.lossyfs import Disk, fuse_usable, processes
from tests.store_helpers import open_table
from tests.sync_helpers import (
    QUICK,
    Kiosk,
    WorkerProcess,
    delivered,
    differences,
    divergences,
    kiosk_at,
    league_game_count,
    league_holds,
    tonight_league,
    wait_until,
    worker,
)

KILLS = int(os.environ.get("CLABBER_SYNC_KILLS", "100"))
CUTS = int(os.environ.get("CLABBER_SYNC_POWERCUTS", "20"))


@pytest.fixture
def league(tmp_path):
    world = tonight_league(str(tmp_path / "league.db"))
    server = LeagueServer(str(tmp_path / "league.db"))
    server.start()
    yield {**world, "server": server, "url": server.url}
    server.stop()
    world["store"].close()


@pytest.fixture
def kiosk(league, tmp_path):
    here = league["venues"][0]
    k, kiosk_id = kiosk_at(league, tmp_path / "kiosk", here, league["url"])
    k.id = kiosk_id
    yield k
    k.close()


def exactly_once(league: dict[str, Any], kiosk: Kiosk) -> None:
    """The league holds the kiosk's league games exactly: every event, in order, once; no game counted twice."""
    assert differences(league["store"], kiosk.id, kiosk.store) == []
    assert divergences(league["store"]) == 0
    assert all(n == 1 for n in league_game_count(league["store"], kiosk.id).values())
    assert outbox.queued(kiosk.store) == 0 and outbox.held(kiosk.store) == []


class Journal(logging.Handler):
    """What the worker said, kept in a list (it says each change of state or error once)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    def __enter__(self) -> Journal:
        logging.getLogger("clabber.sync").addHandler(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        logging.getLogger("clabber.sync").removeHandler(self)


def connected(store: Any) -> bool:
    return outbox.sync_state(store).get("state") == "connected"


def at_league(league: dict[str, Any], kiosk: Kiosk) -> int:
    return sum(len(events) for events in league_holds(league["store"], kiosk.id).values())


# ---- the league killed in the middle of a batch ------------------------------------------------------


@pytest.mark.slow
def test_the_league_killed_in_the_middle_of_a_batch_then_restarted_every_event_arrives_once(league, kiosk):
    kiosk.play(1200)  # a backlog: pushes of 200 events follow each other
    total = kiosk.events()
    rng = random.Random(16)
    with Journal() as journal, worker(kiosk.path):
        for kills in range(3):
            before = at_league(league, kiosk)
            wait_until(lambda: at_league(league, kiosk) > before, 30, "the worker delivering")  # noqa: B023
            if kills == 0:
                # The first kill surely lands in a push: another writer holds the league's file, so the
                # push the worker sends next waits at the league for the lock when the league dies.
                with league_file_locked(league):
                    time.sleep(1.0)  # the next push is sent meanwhile (the worker's deadline is 5 s)
                    league["server"].kill()  # SIGKILL: the push under way is cut off, never committed
            else:
                time.sleep(rng.uniform(0.0, 0.15))  # the others land where they land: in a push or between
                league["server"].kill()
            kiosk.play(10)  # the table plays on
            time.sleep(0.3)
            league["server"].start()
        wait_until(lambda: delivered(kiosk), 60, "everything delivered after the last restart")
    assert kiosk.events() > total
    exactly_once(league, kiosk)
    # A push was cut off mid-way (the other kills may have found the port closed on the next try).
    assert _cut_off(journal), journal.lines


@contextlib.contextmanager
def league_file_locked(league: dict[str, Any]) -> Iterator[None]:
    """The league's SQLite file's write lock held by another program (a copy, an sqlite3 shell)."""
    other = sqlite3.connect(league["server"].db, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def _cut_off(journal: Journal) -> list[str]:
    """The worker's reports of a push cut off by the league's death (not a port found closed)."""
    return [line for line in journal.lines if "closed connection without response" in line or "reset" in line]


# ---- an evening without the league --------------------------------------------------------------------


def _figures(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[int(0.95 * len(ms))]
    return f"{len(ms)} hands: median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"


def _side_by_side(kiosk: Kiosk, twin: Kiosk, events: int) -> tuple[list[float], list[float]]:
    """Hands on the kiosk and on a twin with no worker, one after the other, until the kiosk has ``events``
    more: the two tables' add_hand times under the same load of the machine."""
    goal = kiosk.events() + events
    mine, theirs = [], []
    while kiosk.events() < goal:
        mine.append(kiosk.hand())
        theirs.append(twin.hand())
    return mine, theirs


@pytest.mark.slow
def test_an_evening_without_the_league_the_table_plays_on_and_all_arrives_within_a_minute(league, kiosk, tmp_path):
    """The worker as systemd runs it (its own process, the real pace): the league stopped, then its port held
    by a program that accepts and never answers; 1,000+ events wait on the kiosk; the league comes back.
    A twin table without a worker plays hand for hand beside it, for the add_hand figures."""
    server = league["server"]
    here = league["venues"][0]
    twin = Kiosk(tmp_path / "twin" / "kiosk.db", league["meeting"][here], league["teams_at"][here])
    process = WorkerProcess(kiosk.path)
    try:
        pushing, twin_up = _side_by_side(kiosk, twin, 300)  # the worker delivering beside the table
        wait_until(lambda: delivered(kiosk), 30, "the first events delivered")
        server.stop()
        away, twin_away = _side_by_side(kiosk, twin, 600)  # the league's port refuses
        silent = socket.socket()
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        silent.bind(("127.0.0.1", server.port))
        silent.listen(64)  # connections are taken by the kernel and never answered: every try waits its timeout
        more, twin_more = _side_by_side(kiosk, twin, 600)
        queued = outbox.queued(kiosk.store)
        state = outbox.sync_state(kiosk.store)
        # Every hand returned while the league was away: the table never waited on the network.
        assert server.proc is None and queued >= 1000
        assert state["state"] == "unreachable" and state["error"].startswith("cannot reach the league at")
        assert state["next_try"] is not None and state["last_delivery"] is not None
        silent.close()
        server.start()
        back = time.monotonic()
        wait_until(lambda: delivered(kiosk), 60, "everything delivered within a minute of the league's return")
        caught_up = time.monotonic() - back
    finally:
        assert process.stop() == 0
        twin.close()
    print(
        f"\nadd_hand, the league there, the worker delivering: {_figures(pushing)}"
        f"\n  the twin table without a worker meanwhile:      {_figures(twin_up)}"
        f"\nadd_hand, the league away, the worker retrying:  {_figures(away + more)}"
        f"\n  the twin table without a worker meanwhile:      {_figures(twin_away + twin_more)}"
        f"\n{queued} events queued while the league was away; all delivered {caught_up:.1f} s after its return"
    )
    assert "Traceback" not in process.words()
    exactly_once(league, kiosk)


# ---- a network that drops, repeats, delays, re-orders and cuts deliveries -------------------------------


class LossyProxy:
    """A proxy on loopback in front of the league. Each push meets one fate: passed; its answer dropped
    (the league stored it, the kiosk never hears); sent twice; its answer delayed past the kiosk's
    timeout; sent again later, after newer pushes (re-ordered); cut short (the league acknowledges only
    part); or with an event taken out of the middle (a gap: the league asks for it again). Other
    requests pass. Every answer the league gave to a push is kept, delivered or not."""

    FATES: ClassVar[dict[str, int]] = {
        "pass": 30,
        "drop": 15,
        "twice": 15,
        "delay": 10,
        "later": 10,
        "short": 10,
        "gap": 10,
    }

    def __init__(self, league_port: int, seed: int) -> None:
        self.league_port = league_port
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.answers: list[dict[str, Any]] = []
        self.fates: Counter[str] = Counter()
        self.late: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.open = True
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while self.open:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self.open = False
        self.sock.close()

    def serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                raw = _read_request(conn)
            except OSError:
                return
            if not raw.startswith(b"POST /api/v1/push "):
                conn.sendall(self.forward(raw))
                return
            with self.lock:
                fate = self.rng.choices(list(self.FATES), weights=list(self.FATES.values()))[0]
                late, self.late = (self.late, []) if self.rng.random() < 0.5 else ([], self.late)
                delay = self.rng.uniform(0.2, 2.0)
                self.fates[fate] += 1
            for old in late:  # pushes held back are delivered now, after newer ones
                self.forward(old)
            if fate in ("short", "gap"):
                raw = self.cut(raw, fate)
            answer = self.forward(raw)
            if fate == "twice":
                answer = self.forward(raw)
            elif fate == "later":
                with self.lock:
                    self.late.append(raw)
            elif fate == "delay":
                time.sleep(delay)  # the worker's timeout is 1 s: it may have given up and sent again
            if fate != "drop":
                with contextlib.suppress(OSError):  # the worker gave up waiting
                    conn.sendall(answer)

    def cut(self, raw: bytes, fate: str) -> bytes:
        head, _, body = raw.partition(b"\r\n\r\n")
        push = json.loads(body)
        events = push["games"][0]["events"]
        if len(events) >= 3:
            with self.lock:
                i = self.rng.randrange(1, len(events) - 1)
            push["games"][0]["events"] = events[:i] if fate == "short" else events[:i] + events[i + 1 :]
        body = json.dumps(push).encode()
        lines = [
            line if not line.lower().startswith(b"content-length:") else b"Content-Length: %d" % len(body)
            for line in head.split(b"\r\n")
        ]
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    def forward(self, raw: bytes) -> bytes:
        """The league's whole answer to one request (it closes the connection after it, as asked)."""
        with socket.create_connection(("127.0.0.1", self.league_port), timeout=30) as s:
            s.sendall(raw)
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        answer = b"".join(chunks)
        if raw.startswith(b"POST /api/v1/push ") and answer.startswith(b"HTTP/1.1 200"):
            with self.lock:
                self.answers.append(json.loads(answer.partition(b"\r\n\r\n")[2]))
        return answer

    def flush(self) -> None:
        """Whatever is still held back reaches the league at last."""
        with self.lock:
            late, self.late = self.late, []
        for old in late:
            self.forward(old)


def _read_request(conn: socket.socket) -> bytes:
    conn.settimeout(30)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise OSError("closed before the request's head")
        data += chunk
    head = data.partition(b"\r\n\r\n")[0]
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0
    )
    while len(data) - len(head) - 4 < length:
        data += conn.recv(65536)
    return data


@pytest.mark.slow
def test_deliveries_dropped_repeated_delayed_reordered_and_cut_are_stored_once_in_order(league, tmp_path):
    here = league["venues"][0]
    proxy = LossyProxy(league["server"].port, seed=2026)
    lossy, kiosk_id = kiosk_at(league, tmp_path / "kiosk", here, proxy.url)  # enrolled through the proxy
    lossy.id = kiosk_id
    pace = sync.Pace(**{**QUICK.__dict__, "timeout": 1.0, "most_events": 15})
    try:
        with worker(lossy.path, pace):
            for _ in range(30):
                lossy.play(20)  # the table plays while the worker fights the network
                time.sleep(0.02)
            wait_until(lambda: delivered(lossy), 90, "everything delivered through the lossy network")
        proxy.flush()
    finally:
        proxy.close()
    exactly_once(league, lossy)
    stored = sum(a["stored"] for answer in proxy.answers for a in answer["games"])
    assert stored == lossy.events()  # each event stored once, however often it travelled
    replies = [a for answer in proxy.answers for a in answer["games"]]
    assert sum(a["duplicates"] for a in replies) > 0 and any(a["resend_from"] for a in replies)
    assert set(proxy.fates) == set(LossyProxy.FATES), proxy.fates
    print(f"\nfates of {sum(proxy.fates.values())} pushes: {dict(proxy.fates)}; {stored} events stored once")
    lossy.close()


# ---- the worker killed at random moments ----------------------------------------------------------------


@pytest.mark.slow
def test_the_worker_killed_at_random_moments_loses_nothing_and_duplicates_nothing(league, kiosk, tmp_path):
    rng = random.Random(7)
    kiosk.play(800)  # a backlog, so that kills land in pushes, between them and in acknowledgements
    journal = tmp_path / "journal.txt"
    forks = processes()
    delivered_during = 0
    for i in range(KILLS):
        before = at_league(league, kiosk)
        process = forks.Process(target=crash_writer.forked_sync, args=(str(kiosk.path), i, str(journal)))
        process.start()
        time.sleep(rng.uniform(0.0, 0.3))
        process.kill()  # SIGKILL
        process.join()
        delivered_during += at_league(league, kiosk) - before
        kiosk.play(rng.randint(0, 6))  # the table plays between kills
    assert delivered_during > 0  # the worker was delivering when it was killed
    with worker(kiosk.path):
        wait_until(lambda: delivered(kiosk), 60, "everything delivered after the kills")
    print(f"\n{KILLS} kills: {delivered_during} events delivered between them; {kiosk.events()} in all")
    assert "Traceback" not in journal.read_text()
    exactly_once(league, kiosk)


# ---- the kiosk's power cut ------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_power_cut_on_the_kiosk_loses_no_acknowledged_hand_at_the_league(league, tmp_path):
    """The kiosk's store on tests/lossyfs.py (what was not fsynced is gone at a cut), the table's writer
    and the worker both on it; the power is cut at random moments, then back on."""
    why = fuse_usable()
    if why is not None:
        unavailable(f"the power-cut test needs FUSE: {why}")
    acknowledged, cuts = power_cuts(league, tmp_path, CUTS, seed=16)
    assert cuts == CUTS and sum(acknowledged.values()) > CUTS


def power_cuts(
    league: dict[str, Any], tmp_path: Path, cuts: int, seed: int, synchronous: str | None = None
) -> tuple[dict[int, int], int]:
    here = league["venues"][0]
    meeting = league["meeting"][here]
    sides = {"meeting": meeting["id"], "NS": meeting["team_a"], "EW": meeting["team_b"]}
    disk = Disk(tmp_path / "disk", tmp_path / "mnt")
    db = disk.mountpoint / "clabber.db"
    rng = random.Random(seed)
    acknowledged: dict[int, int] = {}  # game -> hands the writer reported saved
    disk.mount()
    try:
        table = open_table(db)
        kiosk_id = league_link.join(table.store, league["url"], league["kiosks"].make_code(here, 1))["kiosk"]
        table.close(fold_log=True)
        folder = os.open(disk.mountpoint, os.O_RDONLY)
        os.fsync(folder)  # the database's name is durable before the first cut
        os.close(folder)
        for i in range(cuts):
            reader, out = disk.processes.Pipe(duplex=False)
            writer = disk.processes.Process(
                target=crash_writer.forked, args=(str(db), seed * 1000 + i, synchronous, out, sides)
            )
            writer.start()
            out.close()
            worker_ = disk.processes.Process(
                target=crash_writer.forked_sync, args=(str(db), i, str(tmp_path / "journal.txt"))
            )
            worker_.start()
            lines = []
            wanted = rng.randint(0, 30)
            with open(os.dup(reader.fileno()), encoding="utf-8") as output:
                reader.close()
                deadline = time.monotonic() + 20
                for line in iter(output.readline, ""):
                    lines.append(line)
                    if sum(x.startswith("saved ") for x in lines) >= wanted or time.monotonic() > deadline:
                        break
                time.sleep(rng.uniform(0.0, 0.01))
                writer.kill()
                worker_.kill()
                disk.cut()  # the power goes: writer, worker and whatever was not fsynced
                writer.join()
                worker_.join()
                lines += output.read().splitlines(keepends=True)
            assert not any("Traceback" in line for line in lines), "".join(lines)[-2000:]
            for line in lines:
                if line.startswith("saved "):
                    game, hands = map(int, line.split()[1:])
                    acknowledged[game] = max(acknowledged.get(game, 0), hands)
            disk.mount()  # the power is back
        table = open_table(db)
        kiosk = Kiosk.__new__(Kiosk)
        kiosk.table, kiosk.path, kiosk.id = table, db, kiosk_id
        with worker(db):
            settled = lambda: not outbox.waiting(table.store, 1) and connected(table.store)  # noqa: E731
            wait_until(settled, 60, "nothing left to send once the kiosk is back")
        at_league_hands = {
            game: sum(e["kind"] == "hand_confirmed" for e in events)
            for game, events in league_holds(league["store"], kiosk_id).items()
        }
        missing = {g: n - at_league_hands.get(g, 0) for g, n in acknowledged.items() if at_league_hands.get(g, 0) < n}
        assert not missing, f"acknowledged hands missing at the league (game: how many): {missing}"
        exactly_once(league, kiosk)
        table.close()
    finally:
        disk.close()
    return acknowledged, cuts


# ---- a restored older backup ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_restored_older_backup_is_flagged_on_both_sides_and_nothing_is_overwritten(league, kiosk, tmp_path):
    with worker(kiosk.path) as running:
        kiosk.play(6)  # game 1 under way
        wait_until(lambda: delivered(kiosk), 20)
        backup = back_up(kiosk.store, tmp_path / "backups", keep=5)
        at_backup = kiosk.store.last_seq(1)
        while kiosk.game.status == "open":  # game 1 to its end, then game 2 begun
            kiosk.hand()
        kiosk.play(6)
        wait_until(lambda: delivered(kiosk), 20)
        assert kiosk.game.id == 2
        league_before = league_holds(league["store"], kiosk.id)
        with league["store"].read() as r:
            results_before = r.games(league["meeting_at"][league["venues"][0]])
        # The kiosk is restored from the older backup (the worker still running): game 1 back to where it was,
        # game 2 never played; the table then plays game 1 on and a new game 2.
        kiosk.table.close()
        restore(kiosk.path, backup, tmp_path / "damaged")
        kiosk.table = open_table(kiosk.path)
        kiosk.game = kiosk.table.open_game()
        assert kiosk.game is not None and kiosk.game.id == 1
        kiosk.rng = random.Random(99)  # other hands than before
        kiosk.hand()
        kiosk.table.new_game(["Newcomers", "Others"], league=kiosk.meeting, first_dealer="S")
        wait_until(lambda: len(outbox.held(kiosk.store)) == 2, 20, "both games held on the kiosk")
        now = os.stat(kiosk.path)
        assert running.identity == (now.st_dev, now.st_ino)  # the worker opened the restored file
    held = outbox.held(kiosk.store)
    assert [h["game"] for h in held] == [1, 2]
    assert all(h["why"].startswith("the league holds other events for this game (seq ") for h in held)
    # The kiosk keeps its own events waiting, never sent over the league's; the league keeps its own.
    assert outbox.queued(kiosk.store) == (kiosk.store.last_seq(1) - at_backup) + kiosk.store.last_seq(2)
    assert league_holds(league["store"], kiosk.id) == league_before
    with league["store"].read() as r:
        assert r.games(league["meeting_at"][league["venues"][0]]) == results_before
    flagged = Kiosks(league["store"]).flags()["divergences"]
    assert {d["game"] for d in flagged} == {1, 2} and all(d["kiosk_id"] == kiosk.id for d in flagged)
    assert outbox.sync_state(kiosk.store)["held"] == 2


# ---- a revoked key --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_revoked_key_stops_the_worker_which_says_why_and_keeps_the_outbox(league, kiosk, monkeypatch):
    calls: list[str] = []
    real = sync.call

    def counted(url: str, method: str, path: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(path)
        return real(url, method, path, *args, **kwargs)

    monkeypatch.setattr(sync, "call", counted)
    with worker(kiosk.path):
        kiosk.play(10)
        wait_until(lambda: delivered(kiosk), 20)
        league["kiosks"].revoke(kiosk.id)
        kiosk.play(10)
        state = wait_until(lambda: (s := outbox.sync_state(kiosk.store))["state"] == "revoked" and s, 20)
        assert state["error"] == "this kiosk key is unknown or revoked: enrol the kiosk again"
        tries = len(calls)
        kiosk.play(10)  # more hands: kept, not sent
        time.sleep(1.5)
        assert len(calls) == tries  # it stopped asking
        later = sync.datetime.fromisoformat(state["next_try"]) - sync.datetime.fromisoformat(state["at"])
        assert 590 <= later.total_seconds() <= 610  # and asks again in ten minutes
        queued = outbox.queued(kiosk.store)
        assert queued >= 20 and wait_until(lambda: outbox.sync_state(kiosk.store)["queued"] == queued, 5)
        # Enrolled again with a new code: the worker wakes on the new link and delivers what waited.
        league_link.leave(kiosk.store)
        kiosk.id = kiosk.join(league["kiosks"], league["venues"][0], league["url"])
        wait_until(lambda: delivered(kiosk), 20, "delivered with the new key")
    mine = league_holds(league["store"], kiosk.id)
    assert mine and all(mine[g] == _events(kiosk, g) for g in mine)  # whole games, from seq 1


def _events(kiosk: Kiosk, game: int) -> list[dict[str, Any]]:
    from dataclasses import asdict

    return [asdict(e) for e in kiosk.store.events(game)]
