"""The served league's results written by a process of their own on PostgreSQL (league/results_process.py),
and by the server's own results thread on a SQLite file: either way a push that ends a game is answered
once its result is in the standings, and a results' process that dies loses no result."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from league import kiosk_store as ks
from league import results_process
from league.kiosks import Kiosks
from league.organiser import Organiser
from league.results_process import APPLICATION, ResultsProcess
from league.store import Store, StoreTrouble
from tests.league_db import _admin
from tests.league_kiosk_helpers import league_with_schedule, played_game
from tests.league_server import LeagueServer, spawned


def _results_process(server: LeagueServer) -> list[int]:
    """The server's results' process, if it has one."""
    assert server.proc is not None
    return spawned(server.proc.pid)


def _wait_for(what, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:  # bounded
        got = what()
        if got:
            return got
        time.sleep(0.05)
    return what()


@pytest.fixture
def league(league_db, tmp_path):
    """The served league, a kiosk enrolled at each venue, and a game won at each venue's meeting."""
    store = Store(league_db)
    world = league_with_schedule(store)
    server = LeagueServer(league_db)
    server.start()
    keys, games = {}, {}
    for venue in world["venues"]:
        status, enrolled = server.api.call("POST", "/api/v1/enrol", {"code": Kiosks(store).make_code(venue, 1)})
        assert status == 200
        keys[venue] = enrolled["key"]
        games[venue] = played_game(tmp_path, world["teams_at"][venue])
    yield {**world, "store": store, "server": server, "keys": keys, "games": games}
    server.stop()
    store.close()


def _push_game(league, venue: int) -> tuple[int, dict]:
    body = {"games": [{"game": 1, "meeting": league["meeting_at"][venue], "events": league["games"][venue]}]}
    return league["server"].api.call("POST", "/api/v1/push", body, league["keys"][venue])


def _counted(league) -> int:
    """Games in the division's standings."""
    return sum(row.played for row in Organiser(league["store"]).standings(league["division"])) // 2


def test_a_push_that_ends_a_game_is_answered_once_its_result_is_in_the_standings(league, league_db):
    """On PostgreSQL by the server's results' process, on SQLite by its results thread (no process)."""
    here = league["venues"][0]
    status, got = _push_game(league, here)
    assert status == 200 and got["games"][0]["acked"] == len(league["games"][here])
    assert _counted(league) == 1  # at once: the answer came after the result
    theirs = _results_process(league["server"])
    assert len(theirs) == (1 if league_db.startswith("postgresql") else 0)


@pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)
def test_a_results_process_that_died_is_started_again_and_no_result_is_lost(league):
    """Killed between two games: the next game's result is written by a new process, and its push is
    answered as usual."""
    here, there = league["venues"]
    assert _push_game(league, here)[0] == 200
    (first,) = _wait_for(lambda: _results_process(league["server"]))
    os.kill(first, signal.SIGKILL)
    assert _wait_for(lambda: first not in _results_process(league["server"]))

    status, got = _push_game(league, there)
    assert status == 200 and got["games"][0]["acked"] == len(league["games"][there])
    assert _counted(league) == 2
    (second,) = _results_process(league["server"])
    assert second != first


def _results_due(
    league_db: str, tmp_path: Path, kiosks: Kiosks | None = None
) -> tuple[Store, dict, list[tuple[int, int]]]:
    """A league with a game won at each venue's meeting, pushed through the library (``kiosks``, when
    given, as a server's) with its result left due: the store, the league, the (kiosk, game) pairs due."""
    store = kiosks.store if kiosks is not None else Store(league_db)
    world = league_with_schedule(store)
    kiosks = kiosks or Kiosks(store)
    due = []
    for venue in world["venues"]:
        key = kiosks.enrol(kiosks.make_code(venue, 1))["key"]
        events = played_game(tmp_path, world["teams_at"][venue])
        body = {"games": [{"game": 1, "meeting": world["meeting_at"][venue], "events": events}]}
        (answer, theirs), *_ = kiosks.push_events([(key, body)])
        assert not isinstance(answer, Exception)
        due += theirs
    assert len(due) == 2
    return store, world, due


@pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)
def test_a_results_process_writes_what_is_due_and_says_what_it_could_not(league_db, tmp_path):
    """The process on its own, without a server: results left due by pushes are written by it; a batch
    asked of a process that was killed is heard by a new one; closed, it ends."""
    store, world, due = _results_due(league_db, tmp_path)
    results = ResultsProcess(store.url.render_as_string(hide_password=False)).start()
    try:
        assert results.write_results(due[:1]) == []
        assert sum(r.played for r in Organiser(store).standings(world["division"])) // 2 == 1
        first = results.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        _wait_for(lambda: not results.running)
        assert results.finish_results() == 1  # the other game, still due, by a new process
        assert results.pid != first
        assert sum(r.played for r in Organiser(store).standings(world["division"])) // 2 == 2
    finally:
        results.close()
    assert not results.running
    store.close()


@pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)
def test_the_server_lets_go_of_a_game_once_the_results_process_has_written_its_result(league_db, tmp_path):
    """The games the server folded are handed to the results' process; once a result is written, the
    server lets go of that game (an ended game is not pushed again), and keeps the one still due."""
    server = Kiosks(Store(league_db))
    store, _world, due = _results_due(league_db, tmp_path, server)
    results = ResultsProcess(store.url.render_as_string(hide_password=False), server.folds).start()
    try:
        assert all(server.folds.kept(*where) is not None for where in due)
        assert results.write_results(due[:1]) == []
        assert server.folds.kept(*due[0]) is None
        assert server.folds.kept(*due[1]) is not None  # not written yet: kept for its result
    finally:
        results.close()
    store.close()


@pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)
def test_a_results_process_whose_connection_postgresql_closed_fails_one_push_in_words_then_writes_it(league):
    """PostgreSQL restarted or an administrator ended the process's connection (found by its name in
    pg_stat_activity): the push that ends the next game hears 503 in words, its events kept; its retry
    is answered as usual, with the result in the standings."""
    here, there = league["venues"]
    assert _push_game(league, here)[0] == 200
    (results,) = _results_process(league["server"])
    name = f"{APPLICATION} of {league['server'].proc.pid}"
    admin = _admin()
    try:
        with admin.begin() as conn:
            ended = conn.execute(
                sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :name"),
                {"name": name},
            ).scalars()
            assert list(ended) == [True]
    finally:
        admin.dispose()

    status, got = _push_game(league, there)  # its connection is not tried first: in use less than 10 s ago
    assert status == 503 and got["error"] == "the league's database cannot be used now: try again later"
    assert _counted(league) == 1
    status, got = _push_game(league, there)  # the kiosk's retry
    assert status == 200 and got["games"][0]["duplicates"] == len(league["games"][there])
    assert _counted(league) == 2
    assert _results_process(league["server"]) == [results]  # the same process: only its connection was new


@pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)
def test_a_stop_waits_a_while_for_a_batch_held_up_then_ends_the_process_and_the_results_stay_due(
    league_db, tmp_path, monkeypatch
):
    """A batch waiting for the league's lock (held here by another writer) when the server stops: the
    stop waits STOP_SECONDS for it, not for ever, then ends the process; the batch's caller hears
    StoreTrouble, and its results are still due for the next start."""
    store, _world, due = _results_due(league_db, tmp_path)
    monkeypatch.setattr(results_process, "STOP_SECONDS", 1)
    results = ResultsProcess(store.url.render_as_string(hide_password=False)).start()
    heard: list[object] = []

    def batch() -> None:
        try:
            heard.append(results.write_results(due))
        except StoreTrouble as e:
            heard.append(e)

    with store.write():  # the league's lock, held until the stop is over
        writing = threading.Thread(target=batch)
        writing.start()
        time.sleep(1.0)  # the process is waiting for the lock by now
        stopping = threading.Thread(target=results.close)
        stopping.start()
        stopping.join(5)  # bounded: a stop that waited for the batch would wait for this lock for ever
        stopped = not stopping.is_alive()
    writing.join(10)
    stopping.join(10)
    assert stopped and not results.running
    assert len(heard) == 1 and isinstance(heard[0], StoreTrouble) and "stay due" in str(heard[0])
    with store.read() as r:
        assert ks.results_due(r.conn) == due
    again = ResultsProcess(store.url.render_as_string(hide_password=False))
    try:
        assert again.finish_results() == 2
    finally:
        again.close()
    store.close()
