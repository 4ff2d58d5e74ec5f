"""Pushes stored in groups (league/ingest.py, ``Kiosks.push_all``), on SQLite and PostgreSQL: a group
answers each push as if it came alone, a refusal stays its own push's, and a busy server commits
many pushes at once."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from league import kiosks as kiosks_module
from league.ingest import Ingest
from league.kiosk_store import kiosk_events
from league.kiosks import KioskRefused, Kiosks
from league.store import Store
from shared.events import GameEvent
from tests.league_kiosk_helpers import league_with_schedule, played_game


@pytest.fixture
def world(league_db, tmp_path):
    store = Store(league_db)
    w = league_with_schedule(store)
    kiosks = Kiosks(store)
    keys = {(v, t): kiosks.enrol(kiosks.make_code(v, t))["key"] for v in w["venues"] for t in (1, 2)}
    games = {v: played_game(tmp_path, w["teams_at"][v]) for v in w["venues"]}
    yield {**w, "store": store, "kiosks": kiosks, "keys": keys, "games": games, "db": league_db}
    store.close()


def _body(meeting: int, events: list[dict], game: int = 1) -> dict:
    return {"games": [{"game": game, "meeting": meeting, "events": events}]}


def _held(store: Store) -> dict[tuple[int, int], list[int]]:
    """The seqs the league holds of each (kiosk, game)."""
    with store.read() as r:
        rows = r.conn.execute(sa.select(kiosk_events.c.kiosk_id, kiosk_events.c.game, kiosk_events.c.seq)).all()
    out: dict[tuple[int, int], list[int]] = {}
    for k, g, seq in sorted(rows):
        out.setdefault((k, g), []).append(seq)
    return out


def test_a_group_answers_each_push_as_if_it_came_alone(world):
    """Good pushes, pushes refused before anything is written (a bad key, a body that is not JSON,
    another venue's meeting) and one refused after its first game was written: each gets its own
    answer; the refused write nothing, the good are stored whole."""
    v1, v2 = world["venues"]
    m1, m2 = world["meeting_at"][v1], world["meeting_at"][v2]
    g1, g2 = world["games"][v1], world["games"][v2]
    k = world["keys"]
    half_then_elsewhere = {
        "games": [
            {"game": 5, "meeting": m1, "events": g1},
            {"game": 6, "meeting": m2, "events": g1},  # the other venue's meeting: 403, after game 5 was written
        ]
    }
    pushes = [
        (k[(v1, 1)], _body(m1, g1)),
        (k[(v1, 2)], _body(m2, g1)),  # another venue's meeting
        (k[(v2, 1)], json.dumps(_body(m2, g2)).encode()),  # as the API hands it over: the JSON's bytes
        ("not-a-key", _body(m1, g1)),
        (k[(v2, 2)], b"{not json"),
        (k[(v1, 2)], half_then_elsewhere),
    ]
    answers = world["kiosks"].push_all(pushes)

    good = [a if isinstance(a, Exception) else a["games"][0]["acked"] for a in (answers[0], answers[2])]
    assert good == [len(g1), len(g2)]
    refused = {i: (a.status, str(a)) for i, a in enumerate(answers) if isinstance(a, KioskRefused)}
    assert refused.keys() == {1, 3, 4, 5}
    assert refused[1][0] == 403 and "not at this kiosk's venue" in refused[1][1]
    assert refused[3][0] == 401
    assert refused[4][0] == 400 and "not JSON" in refused[4][1]
    assert refused[5][0] == 403 and "game 6" in refused[5][1]
    # Only the two good pushes are held: nothing of the refused, not even game 5 of the last one.
    held = _held(world["store"])
    assert sorted(held.values()) == sorted([list(range(1, len(g1) + 1)), list(range(1, len(g2) + 1))])
    # Both games were played to the target: their results are in the standings, once each.
    table = world["org"].standings(world["division"])
    assert sum(row.played for row in table) == 4


def test_a_bad_key_is_the_answer_whatever_the_body_and_game_numbers_out_of_range_are_refused_in_words(world):
    """One group: pushes without a good key (unknown, or revoked after its kiosk's first push) are
    refused 401 whether their body is not JSON, not a batch or a good batch; game numbers the league
    does not take (0, -5, past 2**31, true) are refused 422 naming the game; the good push beside
    them is stored, and the revoked kiosk's game holds what it held."""
    v1, v2 = world["venues"]
    m1, m2, g1, g2 = world["meeting_at"][v1], world["meeting_at"][v2], world["games"][v1], world["games"][v2]
    kiosks, k = world["kiosks"], world["keys"]
    revoked = k[(v2, 2)]
    assert kiosks.push(revoked, _body(m2, g2[:3]))["games"][0]["acked"] == 3
    kiosks.revoke(kiosks.kiosk_for_key(revoked)["id"])
    odd = [0, -5, 2**31, True]
    pushes = [
        ("not-a-key", b"{not json"),
        ("not-a-key", {"games": "all of them"}),
        ("not-a-key", _body(m1, g1)),
        (revoked, _body(m2, g2[3:])),
        *((k[(v1, 2)], _body(m1, g1, game=n)) for n in odd),
        (k[(v1, 1)], _body(m1, g1)),
    ]
    answers = kiosks.push_all(pushes)

    said = [(a.status, str(a)) if isinstance(a, KioskRefused) else a["games"][0]["acked"] for a in answers]
    assert [s[0] for s in said[:4]] == [401] * 4
    assert all("unknown or revoked" in s[1] for s in said[:4])
    for n, (status, why) in zip(odd, said[4:-1], strict=True):
        assert status == 422 and f"game number from 1, not {n!r}" in why
    assert said[-1] == len(g1)
    assert sorted(_held(world["store"]).values()) == sorted([[1, 2, 3], list(range(1, len(g1) + 1))])


def _scans(store: Store, work: Callable[[], Any]) -> list[tuple[str, str]]:
    """What ``work`` reads by scanning, on SQLite: each plan's SCAN (a table or an index read whole,
    not a list of constants) with its statement, of every statement it sends but its inserts."""
    sent: list[tuple[str, Any]] = []

    def seen(_conn, _cursor, statement, parameters, _context, many):
        if not many and statement.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")):
            sent.append((statement, parameters))

    sa.event.listen(store.engine, "before_cursor_execute", seen)
    try:
        work()
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", seen)
    assert sent
    raw = store.engine.raw_connection()
    try:
        return [
            (step, " ".join(statement.split())[:200])
            for statement, parameters in sent
            for step in _steps(raw, statement, parameters)
            if step.startswith("SCAN") and "VIRTUAL TABLE" not in step
        ]
    finally:
        raw.close()


def _steps(raw: Any, statement: str, parameters: Any) -> list[str]:
    """A statement's plan, a step a line, in the words of SQLite 3.36 and later (``SCAN t``, where
    3.35 said ``SCAN TABLE t``)."""
    plan = raw.cursor().execute(f"EXPLAIN QUERY PLAN {statement}", parameters)
    return [re.sub(r"^(SCAN|SEARCH) TABLE ", r"\1 ", step) for *_, step in plan]


@pytest.mark.parametrize("league_db", ["sqlite"], indirect=True)
def test_on_sqlite_no_statement_of_a_push_group_or_its_results_reads_a_table_whole(world):
    """What a group of pushes and their games' results read, SQLite finds by an index: no statement's
    plan scans a table, so a push costs the same however many events the league holds. (A list of
    (kiosk, game) pairs in SQLite 3.40 is looked up in no index: the bindings' and the seqs' reads
    scanned their tables, 58 ms a group of 10 with 1.2 million events held, 2.5 ms with none.)"""
    v1, v2 = world["venues"]
    first, rest = [], []
    for v in (v1, v2):
        for t in (1, 2):
            events = world["games"][v]
            first.append((world["keys"][(v, t)], _body(world["meeting_at"][v], events[:10], game=t)))
            rest.append((world["keys"][(v, t)], _body(world["meeting_at"][v], events[10:], game=t)))
    kiosks, answers = world["kiosks"], []

    def push_and_count() -> None:
        answers.extend([*kiosks.push_events(first), *kiosks.push_events(rest)])
        due = [where for _, theirs in answers for where in theirs]
        assert due and kiosks.write_results(due) == []

    assert _scans(world["store"], push_and_count) == []
    assert not [a for a, _ in answers if isinstance(a, Exception)]


@pytest.mark.parametrize("league_db", ["sqlite"], indirect=True)
def test_on_sqlite_the_organisers_flags_read_only_the_marked_rows(world):
    """The quarantine and the noted games are read from indexes of those rows alone (the quarantine
    read all 1.6 million events of a season, 82 ms, before them); the re-deliveries that differ are a
    table of such rows by itself."""
    kiosks, store = world["kiosks"], world["store"]

    def look() -> None:
        kiosks.quarantine()
        kiosks.flags()

    marked = ("kiosk_events_quarantined", "kiosk_games_noted")
    scans = _scans(store, look)
    assert [
        (step, q) for step, q in scans if not (step.endswith(marked) or step.startswith("SCAN kiosk_divergences"))
    ] == []


def test_a_push_the_database_could_not_keep_is_refused_alone(world):
    """A text with a NUL character (PostgreSQL's text cannot hold one) and a body nested past what the
    JSON reader takes: each refused in words, the push beside them stored."""
    v1 = world["venues"][0]
    m1, g1 = world["meeting_at"][v1], world["games"][v1]
    started = {**g1[0], "payload": {**g1[0]["payload"], "token": "a\u0000b"}}
    nul = json.dumps(_body(m1, [started, *g1[1:]])).encode()
    assert b"\\u0000" in nul
    pushes = [
        (world["keys"][(v1, 1)], nul),
        (world["keys"][(v1, 1)], b"[" * 100_000),
        (world["keys"][(v1, 2)], json.dumps(_body(m1, g1)).encode()),
    ]
    answers = world["kiosks"].push_all(pushes)
    assert isinstance(answers[0], KioskRefused) and answers[0].status == 422 and "NUL" in str(answers[0])
    assert isinstance(answers[1], KioskRefused) and answers[1].status == 400 and "nested" in str(answers[1])
    assert answers[2]["games"][0]["acked"] == len(g1)
    assert list(_held(world["store"]).values()) == [list(range(1, len(g1) + 1))]


def test_concurrent_pushes_are_committed_together_and_stored_as_one_at_a_time_would(world, league_db, tmp_path):
    """Every kiosk sends its game a few events a push, all at once through the ingest: every push is
    acknowledged in order, the pushes' events are written in a few groups (the results of the games
    they end in a transaction or a few after), and the league ends up as when the same pushes are
    stored one at a time."""
    store, kiosks = world["store"], world["kiosks"]
    commits, writes = [], []  # every commit; each group's one statement writing the pushes' events
    sa.event.listen(store.engine, "commit", lambda _conn: commits.append(1))
    sa.event.listen(
        store.engine,
        "before_cursor_execute",
        lambda _c, _cur, sql, *_a: writes.append(1) if sql.startswith("INSERT INTO kiosk_events") else None,
    )
    plan = []  # (key, body, last seq of the push), each game's pushes in order
    for (venue, table), key in world["keys"].items():
        events = world["games"][venue]
        for i in range(0, len(events), 3):
            batch = events[i : i + 3]
            plan.append((key, _body(world["meeting_at"][venue], batch, game=table), batch[-1]["seq"]))

    async def all_at_once() -> list[dict]:
        ingest = Ingest(kiosks)
        return await asyncio.gather(*(ingest.push(key, json.dumps(body).encode()) for key, body, _ in plan))

    answers = asyncio.run(all_at_once())
    assert [a["games"][0]["acked"] for a in answers] == [last for _, _, last in plan]
    assert all(a["games"][0]["resend_from"] is None for a in answers)
    assert len(writes) < len(plan) / 4, f"the events written in {len(writes)} groups for {len(plan)} pushes"
    ended = len(world["keys"])  # each kiosk's game ends: its result in a transaction of the results'
    assert len(commits) <= len(writes) + ended, f"{len(commits)} commits for {len(plan)} pushes"

    # The same pushes, one at a time, into a database of their own.
    alone = Store(str(tmp_path / "alone.db"))
    other = league_with_schedule(alone)
    one_by_one = Kiosks(alone)
    keys = {vt: one_by_one.enrol(one_by_one.make_code(*vt))["key"] for vt in world["keys"]}
    by_key = {key: keys[vt] for vt, key in world["keys"].items()}
    for key, body, _ in plan:
        one_by_one.push(by_key[key], body)
    assert _held(store) == _held(alone)
    assert world["org"].standings(world["division"]) == other["org"].standings(other["division"])
    alone.close()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)


@given(payload=st.dictionaries(st.text(max_size=6), json_values, max_size=4), seq=st.integers(1, 10**6))
def test_an_event_is_kept_as_the_same_text_as_ever(payload, seq):
    """A re-delivery is told from a different event by its text: the text must stay what it was."""
    e = GameEvent(game=3, seq=seq, at="2026-01-06T20:00:00.000+00:00", kind="hand_entered", payload=payload)
    assert kiosks_module._text(e) == json.dumps(asdict(e), sort_keys=True)


def _standing_games(world) -> int:
    return sum(row.played for row in world["org"].standings(world["division"]))


def test_a_result_left_due_by_a_stop_is_written_when_the_server_starts_again(world):
    """The ingest stores a push's events with the result of the game it ends marked due, in one
    transaction, and writes the result in the next. A server that stopped in between (here: the
    events stored through ``push_events`` and nothing after, as a kill would leave them) writes the
    result when ``clabber league serve`` starts again; until then the game is not in the standings."""
    from tests.league_server import LeagueServer
    from tests.sync_helpers import wait_until

    v1 = world["venues"][0]
    events = world["games"][v1]
    [(answer, due)] = world["kiosks"].push_events([(world["keys"][(v1, 1)], _body(world["meeting_at"][v1], events))])
    assert answer["games"][0]["acked"] == len(events) and len(due) == 1
    assert _standing_games(world) == 0  # stored, acknowledged, not yet counted
    world["kiosks"].push_events([(world["keys"][(v1, 1)], _body(world["meeting_at"][v1], events[-2:]))])
    assert _standing_games(world) == 0  # a re-delivery of its end (the kiosk heard no answer) is no result

    server = LeagueServer(world["db"])
    server.start()
    try:
        wait_until(lambda: _standing_games(world) == 2, 20, "the result left due written at the start")
    finally:
        server.stop()
    with world["store"].read() as r:
        [game] = r.games(world["meeting_at"][v1])
    assert game["kiosk_game"] == 1 and game["outcome"] is not None
    assert world["kiosks"].finish_results() == 0  # nothing is left due


def test_a_push_that_ends_a_game_is_answered_once_its_result_is_in_the_standings(world):
    """Through the ingest, a push that ended no game is answered when its events are stored; one
    that ended a game, only once that game is in the standings: what a kiosk was told stored can
    be seen."""
    v1 = world["venues"][0]
    events = world["games"][v1]
    meeting = world["meeting_at"][v1]
    key = world["keys"][(v1, 1)]

    async def pushes() -> list[int]:
        ingest = Ingest(world["kiosks"])
        seen = []
        for part in (events[:10], events[10:]):
            await ingest.push(key, json.dumps(_body(meeting, part)).encode())
            seen.append(_standing_games(world))
        return seen

    assert asyncio.run(pushes()) == [0, 2]


def test_a_game_is_let_go_of_once_its_result_is_written_and_a_late_event_is_folded_from_the_database(world):
    """The server keeps the games it folded, so that the next push folds only its own events; an
    ended game's is let go of once its result is written (a busy night's ended games would fill the
    memory and make the collector pause); a game still going is kept; an event pushed to the ended
    game later is still checked against the whole game, read from the database."""
    kiosks = world["kiosks"]
    v1 = world["venues"][0]
    events, meeting, key = world["games"][v1], world["meeting_at"][v1], world["keys"][(v1, 1)]
    [(answer, due)] = kiosks.push_events([(key, _body(meeting, events[:-1]))])
    assert not isinstance(answer, Exception) and due == []
    [where] = [w for w in _held(world["store"])]
    assert kiosks.folds.kept(*where) is not None  # the game going on
    [(answer, due)] = kiosks.push_events([(key, _body(meeting, events[-1:]))])
    assert due == [where] and kiosks.folds.kept(*where) is not None  # kept for its result
    assert kiosks.write_results(due) == []
    assert kiosks.folds.kept(*where) is None
    late = {**events[-1], "seq": len(events) + 1, "kind": "hand_confirmed"}  # a hand after the end
    [answer] = kiosks.push_all([(key, _body(meeting, [late]))])
    assert not isinstance(answer, Exception)
    [refused] = answer["games"][0]["quarantined"]  # refused by the whole game's fold, not stored as applied
    assert refused == {"seq": len(events) + 1, "why": "no hand is waiting to be confirmed"}


def test_a_result_the_database_fails_to_write_is_a_503_and_written_with_the_next(world, monkeypatch):
    """The database failing just as a result is written: the push is answered 503 (its events kept,
    its result due), and the kiosk's retry of it, all duplicates, writes it (with every other result
    still due, in the order the games ended) and is answered as stored."""
    from league.store import StoreTrouble, StoreUnreachable

    kiosks = world["kiosks"]
    real, calls = kiosks._results, []

    def failing_once(due):
        calls.append(due)
        if len(calls) == 2:  # the second push's result
            raise StoreUnreachable("cannot use the database: the server closed the connection")
        real(due)

    monkeypatch.setattr(kiosks, "_results", failing_once)
    v1, v2 = world["venues"]
    pushed = {v: json.dumps(_body(world["meeting_at"][v], world["games"][v])).encode() for v in (v1, v2)}

    async def pushes() -> list:
        ingest = Ingest(kiosks)
        seen = []
        for v in (v1, v2, v2):
            try:
                answer = await ingest.push(world["keys"][(v, 1)], pushed[v])
                seen.append((answer["games"][0]["duplicates"] > 0, _standing_games(world)))
            except StoreTrouble as e:
                seen.append((str(e), _standing_games(world)))
        return seen

    first, second, retry = asyncio.run(pushes())
    assert first == (False, 2)
    assert "cannot be written now" in second[0] and second[1] == 2
    assert retry == (True, 4)  # all duplicates: the result left due written with it
    assert kiosks.finish_results() == 0


def test_the_kiosks_retry_of_a_push_whose_result_was_left_due_writes_it(world):
    """A push whose result was left due (here: stored through ``push_events`` and no result written)
    sent again, all of it duplicates: that push writes the result, through the library as through the
    ingest."""
    v1 = world["venues"][0]
    body = _body(world["meeting_at"][v1], world["games"][v1])
    world["kiosks"].push_events([(world["keys"][(v1, 1)], body)])
    assert _standing_games(world) == 0
    answer = world["kiosks"].push(world["keys"][(v1, 1)], body)
    assert answer["games"][0]["stored"] == 0 and _standing_games(world) == 2
    assert world["kiosks"].finish_results() == 0  # its mark cleared with it


def test_results_left_due_are_written_in_the_order_their_games_ended(world, tmp_path):
    """A meeting with room for one game and two games played at it: the one bound later but ended
    first takes the place when the results left due by a stop are written; the other is noted."""
    v1 = world["venues"][0]
    meeting = world["meeting_at"][v1]
    early, late = world["keys"][(v1, 2)], world["keys"][(v1, 1)]
    game = world["games"][v1]
    kiosks = world["kiosks"]
    kiosks.push_events([(late, _body(meeting, game[:3]))])  # bound first
    kiosks.push_events([(early, _body(meeting, game[:3]))])
    kiosks.push_events([(early, _body(meeting, game[3:]))])  # ended first
    kiosks.push_events([(late, _body(meeting, game[3:]))])
    assert kiosks.finish_results() == 2
    with world["store"].read() as r:
        [counted] = r.games(meeting)
        notes = dict(r.conn.execute(sa.text("SELECT kiosk_id, note FROM kiosk_games")).all())
    first, second = (kiosks.kiosk_for_key(k)["id"] for k in (early, late))
    assert counted["kiosk_id"] == first and notes[first] is None
    assert "already has its 1 game(s)" in notes[second]


def _results_rows(store: Store) -> dict[str, list[tuple]]:
    """What results write: the games, the kiosk games' league games and notes, the teams' totals, the
    games' figures and the statistics' sums, and the league's events (their text, not their time)."""
    from league.kiosk_store import kiosk_games
    from league.stats_store import game_figures, team_figures
    from league.tables import games, team_totals

    with store.read() as r:
        out = {t.name: sorted(tuple(row) for row in r.conn.execute(sa.select(t))) for t in (games, team_totals)}
        for t in (game_figures, team_figures):
            out[t.name] = sorted(tuple(row) for row in r.conn.execute(sa.select(t)))
        c = kiosk_games.c
        out["kiosk_games"] = sorted(r.conn.execute(sa.select(c.kiosk_id, c.game, c.league_game, c.note)).all())
        out["events"] = [(e.kind, e.payload) for e in r.events()]
    return out


def test_results_written_together_are_those_written_one_at_a_time(world, tmp_path):
    """The results thread writes the new round-robin games of a batch together: the same rows as one
    game after another would, and the statistics' sums a recount of every game gives. Every meeting
    of the season is played, the first two rounds' results in a batch (each team twice in it, new to
    the sums), the last round's in another (over sums the teams have); a second game at a meeting
    that has its one game is noted, not counted; some games won by EW."""
    with world["store"].read() as r:
        meetings = [m for m in r.meetings(world["division"]) if m["team_b"] is not None]
        names = {t["id"]: t["name"] for t in r.teams(world["division"])}
    plan: list[list[tuple[str, dict]]] = [[], []]
    number = {vt: 0 for vt in world["keys"]}
    for i, m in enumerate(meetings):
        at = (m["venue_id"], 1 + i % 2)
        number[at] += 1
        game = played_game(tmp_path, (names[m["team_a"]], names[m["team_b"]]), winner="EW" if i % 3 else "NS")
        plan[m["round"] > 2].append((world["keys"][at], _body(m["id"], game, game=number[at])))
    again = plan[1][0]
    plan[1].append((again[0], {"games": [{**again[1]["games"][0], "game": 9}]}))

    for batch in plan:
        stored = world["kiosks"].push_events(batch)
        assert all(not isinstance(answer, Exception) for answer, _ in stored), stored
        world["kiosks"].write_results([where for _, due in stored for where in due])

    alone = Store(str(tmp_path / "alone.db"))
    league_with_schedule(alone)
    one_by_one = Kiosks(alone)
    keys = {vt: one_by_one.enrol(one_by_one.make_code(*vt))["key"] for vt in world["keys"]}
    by_key = {key: keys[vt] for vt, key in world["keys"].items()}
    for key, body in plan[0] + plan[1]:
        one_by_one.push(by_key[key], body)  # each result in its push's own transaction
    together, apart = _results_rows(world["store"]), _results_rows(alone)
    alone.close()
    assert together == apart
    from league.stats import rebuild

    rebuild(world["store"])  # every game's figures and the sums counted again from the events
    assert _results_rows(world["store"]) == together
    assert len(together["games"]) == len(meetings)
    [note] = [n for _, _, lg, n in together["kiosk_games"] if lg is None]
    assert "already has its 1 game(s)" in note
