"""League benchmarks, on PostgreSQL and on a SQLite file.

Ingest: ``clabber league serve`` as its own process on loopback; 200 kiosks (20 venues of 10
tables), each enrolled with a real code through /api/v1/enrol, push a real game (played once with
the kiosk's table controller, then given each meeting's teams) to their own venue's meeting: first a
few events a push, the next push after the answer, as fast as they can (the sustained rate); then
for 8 s as their sync workers would while their tables store 500 events a second in all (a look for
new events every half second, all that wait sent at once, the next push half a second after one
that took all: its p99), the tables at different points of their games when it begins, as on a
league night; then a backlog, a whole game a push.
The floor beside it: the same kiosks asking for a night with no meetings (a key check and one query).

The targets: sustained >= 500 events a second (fifty times a city league night's peak of about 10:
200 tables, a hand a minute each) and a p99 acknowledgement <= 100 ms at that rate, one server
process. On PostgreSQL, ingest runs twice: one server process, then two on the same database (as two
units behind the proxy), the kiosks shared between them: reported, no target on two cores.

Standings: a 40-team division over about 2,000 games, written through the store's event path, then
``Organiser.standings`` timed (target <= 20 ms) beside counting every game in Python.

Push: the CPU a push costs the store itself (``Kiosks.push``, no HTTP and no server), as the least of
rounds: on a shared machine, a figure that moves far less than the ingest's latencies, to compare a
change to the push's own work with.

History: ten pushes in a row, wall clock, with the league new and then with 1.2 million events of
past games held, and the ratio: a push should cost the same at a season's end as at its start.

Run with ``./run bench league [ingest|push|history|standings] [postgresql|sqlite]`` (all by default). Prints
figures, with the targets as met or not; asserts nothing. PostgreSQL is $CLABBER_TEST_PG
(default postgresql://postgres@127.0.0.1:5432/test), in a schema of its own dropped afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from kiosk.sync import Pace
from league.ingest.kiosks import Kiosk, Kiosks
from league.organiser.actions import Organiser
from league.organiser.standings import A, B, Result, standings
from league.store import events as ev
from league.store import kiosks as ks
from league.store.core import Store
from league.store.tables import games
from tests.bench.bench_store import quick_hand
from tests.league_db import PG_URL
from tests.league_server import LeagueServer
from tests.store_helpers import open_table

KIOSKS = 200
VENUES, TABLES = 20, 10  # a kiosk at every table
DIVISIONS, DIVISION_TEAMS = 10, 40  # each division's first round: 20 meetings, one at each venue
GAMES_EACH = 2  # games each kiosk pushes for its meeting as fast as it can, and in the backlog
PACED_SECONDS = 8.0  # the tables storing and their sync workers pushing: some 16,000 events
PACED_GAMES = range(GAMES_EACH + 1, GAMES_EACH + 5)  # enough for 8 s at 10 events a second
BACKLOG_GAMES = range(GAMES_EACH + 5, 2 * GAMES_EACH + 5)
BATCH = 4  # events a push, as a kiosk's sync worker sends them; the next push after the answer
BACKLOG_BATCH = 30  # a whole game a push: a kiosk sending what queued while the league was away
NIGHT = "2026-01-06"
EMPTY_NIGHT = "2025-12-25"  # no meetings: the floor is a key check and one empty query
FLOOR_SECONDS = 5
PROCESSES = (1, 2)  # server processes on PostgreSQL, each its own ``clabber league serve``
TARGET_RATE, TARGET_P99 = 500, 0.100
TARGET_STANDINGS = 0.020

STANDINGS_TEAMS = 40
STANDINGS_GAMES_A_MEETING = 3
STANDINGS_ROUNDS = 34  # of 39: 20 meetings a round, three games each: about 2,000 games
STANDINGS_REPEATS = 30


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


@contextmanager
def postgres() -> Iterator[str]:
    """A fresh schema on $CLABBER_TEST_PG, dropped afterwards: its URL."""
    admin = sa.create_engine(sa.make_url(PG_URL).set(drivername="postgresql+psycopg"))
    schema = f"clabber_bench_{secrets.token_hex(6)}"
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except sa.exc.OperationalError as e:
        why = f"bench league needs PostgreSQL at {PG_URL} ({e.orig}); start it or set CLABBER_TEST_PG"
        raise SystemExit(why) from None
    try:
        yield sa.make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()


@contextmanager
def sqlite_file() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        yield str(Path(tmp) / "league.db")


DATABASES = (("PostgreSQL", postgres), ("SQLite file", sqlite_file))


# ---- ingest --------------------------------------------------------------------------------------


def played_game(folder: Path) -> list[dict[str, Any]]:
    """A whole game played once with the kiosk's table controller, as the kiosk's entry screens
    store it (drafts as trump and maker are chosen, the hand entered, then confirmed by the other
    team; one hand corrected with the owner's PIN): its events as the kiosk pushes them."""
    table = open_table(folder / "kiosk.db", seed=11)
    table.set_pin("246813")
    rng = random.Random(12)
    g = table.new_game(["Team A", "Team B"], ["N", "E", "S", "W"], first_dealer="N")
    while g.status == "open":
        hand = quick_hand(rng)
        table.save_draft(g.id, {"trump": hand["trump"]})
        table.save_draft(g.id, {"trump": hand["trump"], "maker": hand["maker"]})
        table.enter_hand(g.id, hand)
        g = table.confirm(g.id)
        if len(g.hands) == 2:
            g = table.correct(g.id, 1, {**hand, "trump": "S"}, "trump misread", "246813")
    events = []
    for e in table.store.events(g.id):
        d = asdict(e)
        d.pop("game")
        events.append(d)
    table.close()
    return events


def for_meeting(events: list[dict[str, Any]], meeting: dict[str, Any]) -> list[dict[str, Any]]:
    """The game as played by the meeting's teams: their names and players, a token of its own."""
    a, b = meeting["teams"]["a"], meeting["teams"]["b"]
    first = events[0]["payload"]
    started = {
        **first,
        "teams": {"NS": a["name"], "EW": b["name"]},
        "players": dict(zip("NESW", (a["players"][0], b["players"][0], a["players"][1], b["players"][1]), strict=True)),
        "token": secrets.token_urlsafe(12),
    }
    return [{**events[0], "payload": started}, *events[1:]]


def ingest_season(store: Store) -> list[tuple[int, int]]:
    """20 venues of 10 tables and 10 divisions of 40 teams: 200 meetings on the first night, ten at
    each venue. Returns every (venue, table)."""
    org = Organiser(store)
    league = org.create_league("City league")
    _season, first = org.create_season(league, "Winter 2026", {"games_per_meeting": BACKLOG_GAMES[-1]})
    divisions = [first, *(org.add_division(_season, f"Division {d}") for d in range(2, DIVISIONS + 1))]
    venues = [org.add_venue(league, f"Bar {v + 1}", tables=TABLES) for v in range(VENUES)]
    for d, division in enumerate(divisions):
        for t in range(DIVISION_TEAMS):
            org.add_team(division, f"Team {d + 1}-{t + 1}", [f"P{d}-{t}a", f"P{d}-{t}b"])
        org.make_schedule(division, NIGHT)
    return [(v, t) for v in venues for t in range(1, TABLES + 1)]


class Served:
    """``processes`` runs of ``clabber league serve`` on one database, each on a free loopback port of
    its own, started at once; kiosk ``i`` talks to ``port(i)``."""

    def __init__(self, db: str, processes: int = 1) -> None:
        self.servers = [LeagueServer(db) for _ in range(processes)]
        for server in self.servers:
            server.start()

    def port(self, i: int) -> int:
        return self.servers[i % len(self.servers)].port

    def cpu_seconds(self) -> float:
        """The servers' CPU time so far (user + system), from /proc."""
        ticks = 0
        for server in self.servers:
            assert server.proc is not None
            fields = Path(f"/proc/{server.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> str:
        """Stops them; what they said on standard error, the end of it."""
        said = []
        for server in self.servers:
            server.stop()
            server.log.seek(0)
            said.append(server.log.read().decode(errors="replace")[-1500:])
        return "\n".join(said)


class Load:
    """What the kiosks saw: each request's time to its answer, events acknowledged, and any fault."""

    def __init__(self, last_seq: int = 0) -> None:
        self.last_seq = last_seq  # a game's last event: a push that sends it ends the game
        self.latencies: list[float] = []
        self.ending: list[float] = []  # those of pushes that ended a game (answered once it is counted)
        self.events = 0
        self.sizes: list[int] = []  # events a push, where they vary
        self.faults: list[str] = []
        self.seconds = 0.0
        self.client_cpu = 0.0
        self.server_cpu = 0.0

    def report(self, what: str, per_request: str) -> str:
        lat = self.latencies
        if not lat:
            return f"  {what}: nothing answered; faults: {self.faults[:3]}"
        rate = (self.events or len(lat)) / self.seconds
        return (
            f"  {what}: {len(lat):,} requests, {rate:,.0f} {per_request}/s;"
            f" p50 {ms(percentile(lat, 50))} p95 {ms(percentile(lat, 95))} p99 {ms(percentile(lat, 99))}"
            f" max {ms(max(lat))}"
            + (
                f" (pushes that ended a game: p50 {ms(percentile(self.ending, 50))},"
                f" p99 {ms(percentile(self.ending, 99))})"
                if self.ending
                else ""
            )
            + f"; CPU: server {self.server_cpu / self.seconds:.0%}"
            f", kiosks {self.client_cpu / self.seconds:.0%} of a core"
            + (f"; {len(self.faults)} faults, first: {self.faults[0]}" if self.faults else "")
        )


class Link:
    """One kiosk's keep-alive HTTP/1.1 connection to the server, as light as a client can be: the
    200 kiosks share the machine's two cores with the server and PostgreSQL."""

    def __init__(self, port: int, key: str) -> None:
        self.port, self.key = port, key
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """The answer's status and JSON body."""
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.key}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        length = next(int(x.split(":")[1]) for x in lines if x.lower().startswith("content-length:"))
        data = await self.reader.readexactly(length)
        try:
            return int(lines[0].split()[1]), json.loads(data)
        except ValueError:  # not the API's JSON: the server's own words, kept for the fault's report
            return int(lines[0].split()[1]), {"answer": lines[0], "body": data.decode(errors="replace")}

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()


Meeting = dict[str, Any]  # what each push of a kiosk's game says of its meeting: its id and its sides


def _meeting(tonight: dict[str, Any]) -> Meeting:
    """A meeting of tonight's, as the kiosk's sync worker names it in a push: its id, and the teams
    at NS and EW (team a at NS, as ``for_meeting`` seats them)."""
    teams = tonight["teams"]
    return {"meeting": tonight["meeting"], "sides": {"NS": teams["a"]["id"], "EW": teams["b"]["id"]}}


async def _push(link: Link, meeting: Meeting, games: list[tuple[int, list[dict[str, Any]]]], load: Load) -> bool:
    """One push of some games' events, timed; False (a fault noted) unless all were acknowledged."""
    body = {"games": [{"game": number, **meeting, "events": batch} for number, batch in games]}
    start = time.perf_counter()
    status, answer = await link.call("POST", "/api/v1/push", body)
    load.latencies.append(time.perf_counter() - start)
    if any(batch[-1]["seq"] == load.last_seq for _, batch in games):
        load.ending.append(load.latencies[-1])
    said = {g["game"]: g for g in answer["games"]} if status == 200 else {}
    for number, batch in games:
        pushed = said.get(number)
        if pushed is None or pushed["acked"] != batch[-1]["seq"] or pushed["quarantined"]:
            load.faults.append(f"game {number} seq {batch[0]['seq']}: {status} {json.dumps(answer)[:200]}")
            return False
        load.events += pushed["stored"]
    load.sizes.append(sum(len(batch) for _, batch in games))
    return True


async def _kiosk_pushes(
    link: Link,
    meeting: Meeting,
    games: dict[int, list[dict[str, Any]]],
    load: Load,
    batch_size: int = BATCH,
) -> None:
    """One kiosk pushing its games in order, ``batch_size`` events a push, each push sent as soon as the
    answer to the one before has come."""
    for number, events in games.items():
        for i in range(0, len(events), batch_size):
            if not await _push(link, meeting, [(number, events[i : i + batch_size])], load):
                return


async def _kiosk_syncs(
    link: Link,
    meeting: Meeting,
    games: dict[int, list[dict[str, Any]]],
    load: Load,
    rate: float,
    pace: Pace,
    played: int,
    until: float,
) -> None:
    """One kiosk as its sync worker (kiosk/sync.py) pushes while its table stores ``rate`` events a
    second until ``until``: it looks for new events every ``pace.poll`` seconds and sends all that
    wait (up to ``pace.most_events``); after a push that took all that waited, the next starts
    ``pace.gather`` after it began. ``played``: the events its table had stored, and the league
    acknowledged, before the measuring began (tables are at different points of their games)."""
    queue = [(number, e) for number, events in games.items() for e in events]
    start = time.perf_counter() - played / rate
    sent, next_push = played, 0.0
    await asyncio.sleep(random.uniform(0, pace.poll))  # each worker looks at its store at moments of its own
    while sent < len(queue):
        now = time.perf_counter()
        stored = min(len(queue), int((min(now, until) - start) * rate))  # what the table has stored so far
        if stored <= sent:
            if now >= until:
                return
            await asyncio.sleep(pace.poll)
            continue
        if now < next_push:
            await asyncio.sleep(next_push - now)
            continue
        waiting = queue[sent : min(stored, sent + pace.most_events)]
        by_game: dict[int, list[dict[str, Any]]] = {}
        for number, e in waiting:
            by_game.setdefault(number, []).append(e)
        if not await _push(link, meeting, list(by_game.items()), load):
            return
        sent += len(waiting)
        if len(waiting) < pace.most_events:
            next_push = now + pace.gather


async def _kiosk_played(
    link: Link, meeting: Meeting, games: dict[int, list[dict[str, Any]]], played: int, load: Load
) -> None:
    """What a kiosk's table stored before the measuring began, pushed at once (not measured)."""
    number, events = next(iter(games.items()))
    if played:
        await _push(link, meeting, [(number, events[:played])], load)


async def _kiosk_floor(link: Link, until: float, load: Load) -> None:
    """One kiosk asking, again and again until ``until``, for the meetings of a night with none."""
    while time.perf_counter() < until:
        start = time.perf_counter()
        status, answer = await link.call("GET", f"/api/v1/tonight?date={EMPTY_NIGHT}")
        load.latencies.append(time.perf_counter() - start)
        if status != 200:
            load.faults.append(f"{status} {json.dumps(answer)[:200]}")
            return


async def _run(served: Served, keys: list[str], work: Any, last_seq: int = 0) -> Load:
    """Runs ``work(link, i, load)`` for every kiosk at once, each over its own connection; ``last_seq``:
    a game's last event, to tell the pushes that end a game."""
    load = Load(last_seq)
    links = [Link(served.port(i), key) for i, key in enumerate(keys)]
    server_cpu, client_cpu, start = served.cpu_seconds(), time.process_time(), time.perf_counter()
    try:
        await asyncio.gather(*(work(link, i, load) for i, link in enumerate(links)))
    finally:
        load.seconds = time.perf_counter() - start
        load.client_cpu = time.process_time() - client_cpu
        load.server_cpu = served.cpu_seconds() - server_cpu
        for link in links:
            await link.close()
    return load


def enrol(served: Served, store: Store, spots: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """Every kiosk enrolled with a real code through /api/v1/enrol, with its meeting tonight."""
    kiosks = Kiosks(store)
    out = []

    async def each() -> None:
        for venue, table in spots:
            link = Link(served.port(0), "")
            status, answer = await link.call("POST", "/api/v1/enrol", {"code": kiosks.make_code(venue, table)})
            await link.close()
            if status != 200:
                raise SystemExit(f"enrolment refused: {status} {answer}")
            link = Link(served.port(0), answer["key"])
            status, tonight = await link.call("GET", f"/api/v1/tonight?date={NIGHT}")
            await link.close()
            out.append({"key": answer["key"], "meeting": tonight["meetings"][table - 1]})

    asyncio.run(each())
    return out


def bench_ingest(name: str, db: str, game: list[dict[str, Any]], processes: int = 1) -> None:
    rng = random.Random(5)
    store = Store(db)
    start = time.perf_counter()
    spots = ingest_season(store)
    served = Served(db, processes)
    try:
        kiosks = enrol(served, store, spots)
        set_up = time.perf_counter() - start
        keys = [k["key"] for k in kiosks]
        until = time.perf_counter() + FLOOR_SECONDS
        floor = asyncio.run(_run(served, keys, lambda link, _i, load: _kiosk_floor(link, until, load)))
        meeting = [_meeting(k["meeting"]) for k in kiosks]
        first = [{g: for_meeting(game, k["meeting"]) for g in range(1, GAMES_EACH + 1)} for k in kiosks]
        flat_out = asyncio.run(
            _run(served, keys, lambda link, i, load: _kiosk_pushes(link, meeting[i], first[i], load), len(game))
        )
        # The tables at different points of their games when the measuring begins, as on a league
        # night: games end at a steady rate, not all 200 within the same half second.
        then = [{g: for_meeting(game, k["meeting"]) for g in PACED_GAMES} for k in kiosks]
        played = [rng.randrange(len(game)) for _ in kiosks]
        warm = asyncio.run(
            _run(served, keys, lambda link, i, load: _kiosk_played(link, meeting[i], then[i], played[i], load))
        )
        share = TARGET_RATE / KIOSKS  # each table's share of the target rate
        until = time.perf_counter() + PACED_SECONDS
        paced = asyncio.run(
            _run(
                served,
                keys,
                lambda link, i, load: _kiosk_syncs(link, meeting[i], then[i], load, share, Pace(), played[i], until),
                len(game),
            )
        )
        paced.faults += warm.faults
        later = [{g: for_meeting(game, k["meeting"]) for g in BACKLOG_GAMES} for k in kiosks]
        backlog = asyncio.run(
            _run(
                served,
                keys,
                lambda link, i, load: _kiosk_pushes(link, meeting[i], later[i], load, batch_size=BACKLOG_BATCH),
            )
        )
    finally:
        err = served.close()
        store.close()
    print(
        f"{name}, {processes} server process{'es' if processes > 1 else ''}: {KIOSKS} kiosks ({VENUES} venues of"
        f" {TABLES} tables) pushing real games of {len(game)} events,"
        f" {BATCH} events a push, each push after the answer to the one before (set up in {set_up:.0f} s)"
    )
    print(floor.report("floor: GET /api/v1/tonight of a night with no meetings, as fast as they can", "requests"))
    print(flat_out.report(f"pushes as fast as they can, {flat_out.events:,} events", "events"))
    sizes = f"a push {statistics.median(paced.sizes or [0]):.0f} events (median), up to {max(paced.sizes or [0])}"
    print(
        paced.report(
            f"tables storing {TARGET_RATE:,} events/s in all, each kiosk pushing as its sync worker does"
            f" ({sizes}), {paced.events:,} events",
            "events",
        )
    )
    print(
        backlog.report(f"a backlog after an outage, {BACKLOG_BATCH} events a push, {backlog.events:,} events", "events")
    )
    if flat_out.latencies and floor.latencies:
        pushes_per_s = len(flat_out.latencies) / flat_out.seconds
        print(
            f"  pushes to the floor: {pushes_per_s / (len(floor.latencies) / floor.seconds):.2f}x the requests"
            f" a second, {percentile(flat_out.latencies, 50) / percentile(floor.latencies, 50):.1f}x the p50"
        )
    rate = flat_out.events / flat_out.seconds if flat_out.seconds else 0.0
    flush = backlog.events / backlog.seconds if backlog.seconds else 0.0
    p99 = percentile(paced.latencies, 99) if paced.latencies else float("inf")
    if processes > 1:
        print(
            f"  reported: {rate:,.0f} events/s sustained, p99 {p99 * 1000:,.0f} ms paced,"
            f" a backlog {flush:,.0f} events/s"
        )
    else:
        print(
            f"  targets: sustained >= {TARGET_RATE:,} events/s: {'met' if rate >= TARGET_RATE else 'NOT met'}"
            f" ({rate:,.0f}); p99 acknowledgement <= {TARGET_P99 * 1000:.0f} ms at {TARGET_RATE:,} events/s:"
            f" {'met' if p99 <= TARGET_P99 and not paced.faults else 'NOT met'} ({p99 * 1000:,.0f} ms);"
            f" a backlog: {flush:,.0f} events/s"
        )
    if "Traceback" in err:
        print("  the server failed:", err)


# ---- a push's own cost, without HTTP ----------------------------------------------------------------

PUSH_ROUNDS = 6  # rounds, the least is the figure, the machine's noise aside
PUSHES_A_ROUND = 150


def kiosk_pushes(kiosks: Kiosks, spots: list[tuple[int, int]], game: list[dict[str, Any]]) -> list[tuple[Kiosk, Any]]:
    """Every kiosk enrolled through the library, and its pushes of its meeting's games, 4 events each,
    as (key, body): each kiosk's in order, the kiosks' interleaved as a busy night's arrive."""
    pushes: list[tuple[int, int, str, bytes]] = []
    for venue, table in spots:
        key = kiosks.enrol(kiosks.make_code(venue, table))["key"]
        tonight = kiosks.tonight(key, NIGHT)["meetings"][table - 1]
        for number in range(1, GAMES_EACH + 4):
            events = for_meeting(game, tonight)
            for i in range(0, len(events), BATCH):
                body = {"games": [{"game": number, **_meeting(tonight), "events": events[i : i + BATCH]}]}
                pushes.append((number, i, key, json.dumps(body).encode()))
    pushes.sort(key=lambda p: (p[0], p[1]))
    return [(key, body) for _, _, key, body in pushes]


def warmed_pushes(store: Store, kiosks: Kiosks, game: list[dict[str, Any]]) -> Iterator[tuple[Kiosk, Any]]:
    """``kiosk_pushes`` of the ingest's season, every kiosk's first game already stored (the caches
    filled): the pushes left, in order."""
    pushes = kiosk_pushes(kiosks, ingest_season(store), game)
    warm = KIOSKS * len(range(0, len(game), BATCH))
    for key, body in pushes[:warm]:
        kiosks.push(key, body)
    return iter(pushes[warm:])


def bench_push(name: str, db: str, game: list[dict[str, Any]]) -> None:
    """The CPU a push costs the store (``Kiosks.push``, as a server's worker thread calls it): the
    process's own CPU time, so neither PostgreSQL's share of the cores nor the kiosks' counts."""
    store = Store(db)
    try:
        kiosks = Kiosks(store)
        rest = warmed_pushes(store, kiosks, game)
        cpu: list[float] = []
        for _ in range(PUSH_ROUNDS):
            taken = [next(rest) for _ in range(PUSHES_A_ROUND)]
            start = time.process_time()
            for key, body in taken:
                kiosks.push(key, body)
            cpu.append((time.process_time() - start) / PUSHES_A_ROUND)
    finally:
        store.close()
    print(f"{name}: a push of {BATCH} events stored by Kiosks.push, no HTTP, the process's CPU")
    print(f"  {ms(min(cpu))} a push (least of {PUSH_ROUNDS} rounds; median {ms(statistics.median(cpu))})")


HISTORY_GAMES = 200  # past games of each kiosk's held: 200 kiosks, 30 events a game, 1.2 million events
HISTORY_GROUPS = 60  # runs of ten pushes timed with the league new, then as many with its history held
GROUP = 10


def bench_history(name: str, db: str, game: list[dict[str, Any]]) -> None:
    """Ten pushes in a row (``Kiosks.push``), wall clock, so that the database's own work
    counts on either: with the league new, then with every kiosk's past games held, 1.2 million
    events (written through the store, each a short text: the rows' number is what a read that does
    not find its games by the table's key pays for)."""
    store = Store(db)
    try:
        kiosks = Kiosks(store)
        rest = warmed_pushes(store, kiosks, game)

        def groups() -> list[float]:
            took = []
            for _ in range(HISTORY_GROUPS):
                group = [next(rest) for _ in range(GROUP)]
                start = time.perf_counter()
                for key, body in group:
                    kiosks.push(key, body)
                took.append(time.perf_counter() - start)
            return took

        new = groups()
        start = time.perf_counter()
        held = hold_history(store, [k["id"] for k in kiosks.enrolled()], len(game))
        written = time.perf_counter() - start
        old = groups()
    finally:
        store.close()
    print(
        f"{name}: {GROUP} pushes of {BATCH} events in a row, wall clock (median of {HISTORY_GROUPS} runs each),"
        f" with the league new and with {held:,} events of past games held (written in {written:.0f} s)"
    )
    before, after = statistics.median(new), statistics.median(old)
    print(f"  new: {ms(before)}   with its history: {ms(after)}   ratio {after / before:.2f}x")


def hold_history(store: Store, kiosk_ids: list[int], events_each: int) -> int:
    """Every kiosk's ``HISTORY_GAMES`` past games, bound to no meeting, each of ``events_each`` events:
    the number of events written."""
    written = 0
    with store.write(league_lock=False) as w:
        for kiosk in kiosk_ids:
            numbers = range(100_000, 100_000 + HISTORY_GAMES)
            for n in numbers:
                ks.bind_game(
                    w.conn, {"kiosk_id": kiosk, "game": n, "meeting_id": 0, "bound_at": NIGHT, "ns_team": None}
                )
            rows = [
                {"kiosk_id": kiosk, "game": n, "seq": seq, "event": '{"kind": "past"}', "quarantined": None}
                for n in numbers
                for seq in range(1, events_each + 1)
            ]
            ks.add_events(w.conn, rows, NIGHT)
            written += len(rows)
    return written


# ---- the standings ---------------------------------------------------------------------------------


def big_division(store: Store, rng: random.Random) -> tuple[int, int]:
    """A 40-team division with three games a meeting and its first 34 rounds played: about 2,000 games
    (a few forfeited meetings, abandoned games, ties and rulings among them), written in one
    transaction through the store's event path. Returns the division and its number of games."""
    org = Organiser(store)
    league = org.create_league("Evansville Clabber League")
    _season, division = org.create_season(league, "Winter 2026", {"games_per_meeting": STANDINGS_GAMES_A_MEETING})
    for i in range(STANDINGS_TEAMS):
        org.add_team(division, f"Team {i + 1}", [f"P{i}a", f"P{i}b"])
    for v in range(10):
        org.add_venue(league, f"Bar {v + 1}", tables=10)
    org.make_schedule(division, "2026-01-06")
    with store.read() as r:
        played = [m for m in r.meetings(division) if m["team_b"] is not None and m["round"] <= STANDINGS_ROUNDS]
    counted = 0
    with store.write() as w:
        game = w.next_id(games)
        for m in played:
            if rng.random() < 0.01:
                team = m["team_a"] if rng.random() < 0.5 else m["team_b"]
                w.append(ev.MEETING_FORFEITED, {"meeting": m["id"], "team": team, "reason": "a player is ill"})
                counted += STANDINGS_GAMES_A_MEETING
                continue
            for number in range(1, STANDINGS_GAMES_A_MEETING + 1):
                points = sorted(rng.randrange(200, 700) for _ in range(2))
                roll = rng.random()
                if roll < 0.005:
                    outcome, pa, pb = None, points[0], points[1]
                elif roll < 0.02:
                    outcome, pa, pb = "tie", points[1], points[1]
                elif roll < 0.51:
                    outcome, pa, pb = A, points[1], points[0]
                else:
                    outcome, pa, pb = B, points[0], points[1]
                payload = {"game": game, "meeting": m["id"], "number": number, "points_a": pa, "points_b": pb}
                w.append(ev.GAME_RECORDED, {**payload, "outcome": outcome})
                if rng.random() < 0.002:
                    w.append(
                        ev.GAME_RULED,
                        {"game": game, "outcome": A, "points_a": pa, "points_b": pb, "reason": "a renege missed"},
                    )
                game += 1
                counted += 1
    return division, counted


def every_game_standings(org: Organiser, division: int) -> list:
    """The standings counted in Python from every game read (the path before the store aggregated)."""
    with org.store.read() as r:
        season = r.division(division)["season_id"]
    settings = org.settings(season)
    with org.store.read() as r:
        names = {t["id"]: t["name"] for t in r.teams(division)}
        results = [
            Result(g["team_a"], g["team_b"], g["points_a"], g["points_b"], g["outcome"])
            for g in r.division_games(division)
        ]
        for m in r.meetings(division):
            if m["forfeit_team"] is not None:
                won = B if m["forfeit_team"] == m["team_a"] else A
                results += [Result(m["team_a"], m["team_b"], 0, 0, won)] * settings.games_per_meeting
    return standings(names, results, settings.ranking, settings.tie_breakers)


def timed(work, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        out.append(time.perf_counter() - start)
    return out


def bench_standings(name: str, db: str) -> None:
    store = Store(db)
    try:
        start = time.perf_counter()
        division, counted = big_division(store, random.Random(7))
        built = time.perf_counter() - start
        org = Organiser(store)
        fast = timed(lambda: org.standings(division), STANDINGS_REPEATS)
        slow = timed(lambda: every_game_standings(org, division), max(5, STANDINGS_REPEATS // 3))
        same = org.standings(division) == every_game_standings(org, division)
    finally:
        store.close()
    met = "met" if statistics.median(fast) <= TARGET_STANDINGS else "NOT met"
    print(f"{name}: standings of a {STANDINGS_TEAMS}-team division over {counted:,} games (built in {built:.0f} s)")
    print(
        f"  Organiser.standings       median {ms(statistics.median(fast))}   p95 {ms(percentile(fast, 95))}"
        f"   target <= 20 ms: {met}"
    )
    print(
        f"  counted from every game   median {ms(statistics.median(slow))}   p95 {ms(percentile(slow, 95))}"
        f"   ratio {statistics.median(slow) / statistics.median(fast):.1f}x   same table: {'yes' if same else 'NO'}"
    )


def main() -> None:
    """``python -m tests.bench.bench_league [ingest] [standings] [postgresql] [sqlite]``: all by default."""
    words = {w.lower() for w in sys.argv[1:]}
    parts = words & {"ingest", "push", "history", "standings"} or {"ingest", "push", "history", "standings"}
    databases = [(n, d) for n, d in DATABASES if n.split()[0].lower() in words] or list(DATABASES)
    print(
        f"Clabber league benchmarks, {time.strftime('%Y-%m-%d')},"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    if parts & {"ingest", "push", "history"}:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a socket for each of 200 kiosks
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4096)), hard))
        with tempfile.TemporaryDirectory() as tmp:
            game = played_game(Path(tmp))
    for name, database in databases:
        if "ingest" in parts:
            for processes in PROCESSES if name == "PostgreSQL" else (1,):
                with database() as db:
                    bench_ingest(name, db, game, processes)
        if "push" in parts:
            with database() as db:
                bench_push(name, db, game)
        if "history" in parts:
            with database() as db:
                bench_history(name, db, game)
        if "standings" in parts:
            with database() as db:
                bench_standings(name, db)


if __name__ == "__main__":
    main()
