"""A write transaction's statements to PostgreSQL in pipeline mode (league/pipeline.py): fewer round
trips for the same rows, the same errors, nothing kept of a transaction that fails.

Round trips are counted from libpq's own trace of each connection the store checks out: one each time
the client, having sent, reads the server's answer."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from league import kiosk_store as ks
from league import pipeline
from league import stats_store as fs
from league import store as st
from league.kiosks import Kiosks
from league.organiser import Organiser
from league.store import Store, StoreTrouble, venues
from tests.league_kiosk_helpers import league_with_schedule, played_game

pg_only = pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)


@contextmanager
def round_trips(store: Store) -> Iterator[list[int]]:
    """The round trips of each connection checked out within, in the order they went back."""
    from psycopg import pq

    counted: list[int] = []
    traces: dict[int, Any] = {}

    def out(dbapi: Any, _record: Any, _proxy: Any) -> None:
        trace = traces[id(dbapi)] = tempfile.TemporaryFile("w+")  # noqa: SIM115  (closed at checkin)
        dbapi.pgconn.trace(trace.fileno())
        dbapi.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)

    def back(dbapi: Any, _record: Any) -> None:
        trace = traces.pop(id(dbapi), None)
        if trace is None:
            return
        dbapi.pgconn.untrace()
        with trace:
            trace.seek(0)
            sides = [line.split("\t", 1)[0] for line in trace.read().splitlines() if line]
        counted.append(sum(1 for pair in itertools.pairwise(sides) if pair == ("F", "B")))

    sa.event.listen(store.engine, "checkout", out)
    sa.event.listen(store.engine, "checkin", back)
    try:
        yield counted
    finally:
        sa.event.remove(store.engine, "checkout", out)
        sa.event.remove(store.engine, "checkin", back)


def _league(league_db: str, tmp_path: Path) -> tuple[Store, dict[str, Any], Kiosks, list[tuple[str, dict[str, Any]]]]:
    """A league with a kiosk at each venue and a whole game for each to push (``push_events``' form)."""
    store = Store(league_db)
    world = league_with_schedule(store)
    kiosks = Kiosks(store)
    pushes = []
    for venue in world["venues"]:
        key = kiosks.enrol(kiosks.make_code(venue, 1))["key"]
        events = played_game(tmp_path / str(venue), world["teams_at"][venue])
        pushes.append((key, {"games": [{"game": 1, "meeting": world["meeting_at"][venue], "events": events}]}))
    return store, world, kiosks, pushes


@pg_only
def test_a_group_of_pushes_and_a_batch_of_results_take_a_few_round_trips_however_many_games(league_db, tmp_path):
    """A group of pushes: the keys (with the BEGIN), then the games' bindings, last seqs and new meetings
    together, then the writes with the COMMIT: 3 round trips, for one game or two. A batch of results:
    the lock, bindings and seqs, then the meetings, then the games, rosters, next id and sums together,
    then the writes with the COMMIT: 4, for one result or two. Each statement sent alone and waited
    for, as SQLAlchemy sends them (the store before league/pipeline.py), the same took 9 and 16."""
    store, world, kiosks, (first, second) = _league(league_db, tmp_path)
    (key, body) = first
    more = (key, {"games": [{**body["games"][0], "game": 2}]})  # a second game at a meeting that takes one
    with round_trips(store) as one_push:
        [(answer, due_one)] = kiosks.push_events([first])
    with round_trips(store) as two_pushes:
        answers = kiosks.push_events([second, more])
    assert not [a for a, _ in [(answer, due_one), *answers] if isinstance(a, Exception)]
    due_two = [where for _, theirs in answers for where in theirs]
    assert (len(due_one), len(due_two)) == (1, 2)
    assert one_push == two_pushes == [3]

    with round_trips(store) as one_result:
        assert kiosks.write_results(due_one) == []
    with round_trips(store) as two_results:
        assert kiosks.write_results(due_two) == []
    assert one_result == two_results == [4]
    # Written as ever: a game at each meeting; the second at the first venue's is kept off the standings.
    assert sum(r.played for r in Organiser(store).standings(world["division"])) == 4
    with store.read() as r:
        assert ks.results_due(r.conn) == []
    store.close()


def test_reads_sent_together_read_what_each_would_alone(store_and_league):
    """``together`` in a write (one round trip on PostgreSQL) and in a read (one statement after another)
    gives what each read gives alone; a read with nothing to read sends nothing."""
    store, world = store_and_league
    division = world["division"]
    with store.read() as r:
        meetings = [m["id"] for m in r.meetings(division) if m["team_b"] is not None]
        teams = [t["id"] for t in r.teams(division)]
        alone = (r.meetings_with_settings(meetings), r.games_of_meetings(meetings), fs.rosters(r.conn, teams))
    reads = (st.meetings_named(meetings), st.games_of(meetings), fs.rosters_of(teams))
    with store.write() as w:
        assert pipeline.together(w.conn, *reads) == alone
        assert pipeline.together(w.conn, st.next_id(st.games), st.games_of([]), fs.sums_of([])) == (
            w.next_id(st.games),
            {},
            {},
        )
    with store.read() as r:
        assert pipeline.together(r.conn, *reads) == alone


@pytest.fixture
def store_and_league(league_db):
    store = Store(league_db)
    yield store, league_with_schedule(store)
    store.close()


@pg_only
def test_a_refusal_among_reads_sent_together_undoes_the_transaction_and_the_next_one_goes_on(store_and_league):
    """A read that PostgreSQL refuses, sent with others after a write that did not wait, is refused in
    words as ever; what the transaction wrote is not kept, and the pool's next transaction goes on."""
    store, world = store_and_league
    with store.read() as r:
        league = r.venue(world["venues"][0])["league_id"]
        before = [v["name"] for v in r.venues(league)]
    bad = pipeline.Read(sa.text("SELECT 1 / 0 AS never"), None, list)
    with pytest.raises(StoreTrouble, match="division by zero"), store.write() as w:
        w.conn.execute(sa.insert(venues), [{"id": 901, "name": "Bar Z", "league_id": league, "tables": 2}])
        pipeline.together(w.conn, st.games_of([1]), bad, st.next_id(st.games))
    with store.write() as w:
        w.conn.execute(sa.insert(venues), [{"id": 902, "name": "Bar Y", "league_id": league, "tables": 2}])
    with store.read() as r:
        assert [v["name"] for v in r.venues(league)] == [*before, "Bar Y"]
