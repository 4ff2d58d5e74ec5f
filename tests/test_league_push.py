"""A kiosk's push, one transaction (``Kiosks.push``), on SQLite and PostgreSQL: its events and the
result of the game it ends stored whole or not at all, each push's refusal its own, concurrent pushes
stored as one at a time would store them."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from league.ingest import push as push_module
from league.ingest.kiosks import KioskRefused, Kiosks
from league.store.core import Store, StoreTrouble, StoreUnreachable
from league.store.kiosks import kiosk_events
from shared.events import GameEvent, event_text
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


def _answers(kiosks: Kiosks, pushes: list[tuple[str, Any]]) -> list[dict | KioskRefused]:
    """Each push's answer, or its refusal."""
    out: list[dict | KioskRefused] = []
    for key, body in pushes:
        try:
            out.append(kiosks.push(key, body))
        except KioskRefused as e:
            out.append(e)
    return out


def _standing_games(world) -> int:
    return sum(row.played for row in world["org"].standings(world["division"]))


def test_each_push_is_answered_alone_and_a_refused_push_writes_nothing(world):
    """Good pushes, pushes refused before anything is written (a bad key, a body that is not JSON,
    another venue's meeting) and one refused after its first game was written: each gets its own
    answer; the refused write nothing, the good are stored whole with their results."""
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
    answers = _answers(world["kiosks"], pushes)

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
    assert _standing_games(world) == 4


def test_a_bad_key_is_the_answer_whatever_the_body_and_game_numbers_out_of_range_are_refused_in_words(world):
    """Pushes without a good key (unknown, or revoked after its kiosk's first push) are refused 401
    whether their body is not JSON, not a batch or a good batch; game numbers the league does not
    take (0, -5, past 2**31, true) are refused 422 naming the game; the good push after them is
    stored, and the revoked kiosk's game holds what it held."""
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
    answers = _answers(kiosks, pushes)

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
def test_on_sqlite_no_statement_of_a_push_or_its_result_reads_a_table_whole(world):
    """What pushes and their games' results read, SQLite finds by an index: no statement's plan scans
    a table, so a push costs the same however many events the league holds."""
    kiosks, answers = world["kiosks"], []

    def push_and_count() -> None:
        for part in (slice(0, 10), slice(10, None)):
            for v in world["venues"]:
                for t in (1, 2):
                    events = world["games"][v][part]
                    answers.append(kiosks.push(world["keys"][(v, t)], _body(world["meeting_at"][v], events, game=t)))

    assert _scans(world["store"], push_and_count) == []
    assert len(answers) == 8 and _standing_games(world) > 0


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


def test_a_push_the_database_could_not_keep_is_refused_in_words(world):
    """A text with a NUL character (PostgreSQL's text cannot hold one) and a body nested past what the
    JSON reader takes: each refused in words, the push after them stored."""
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
    answers = _answers(world["kiosks"], pushes)
    assert isinstance(answers[0], KioskRefused) and answers[0].status == 422 and "NUL" in str(answers[0])
    assert isinstance(answers[1], KioskRefused) and answers[1].status == 400 and "nested" in str(answers[1])
    assert answers[2]["games"][0]["acked"] == len(g1)
    assert list(_held(world["store"]).values()) == [list(range(1, len(g1) + 1))]


def test_concurrent_pushes_are_stored_as_one_at_a_time_would_store_them(world, tmp_path):
    """Every kiosk sends its game a few events a push, all kiosks at once (a thread each, as the
    server's worker threads): every push is acknowledged in order, and the league ends up as when the
    same pushes are stored one at a time."""
    store, kiosks = world["store"], world["kiosks"]
    plans: dict[str, list[tuple[dict, int]]] = {}  # each kiosk's pushes, in order: (body, last seq)
    for (venue, table), key in world["keys"].items():
        events = world["games"][venue]
        plans[key] = [
            (_body(world["meeting_at"][venue], events[i : i + 3], game=table), events[i : i + 3][-1]["seq"])
            for i in range(0, len(events), 3)
        ]
    acked: dict[str, list[int]] = {key: [] for key in plans}
    start = threading.Barrier(len(plans))

    def kiosk(key: str) -> None:
        start.wait()
        for body, _ in plans[key]:
            acked[key].append(kiosks.push(key, json.dumps(body).encode())["games"][0]["acked"])

    threads = [threading.Thread(target=kiosk, args=(key,)) for key in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert acked == {key: [last for _, last in plan] for key, plan in plans.items()}

    # The same pushes, one at a time, into a database of their own.
    alone = Store(str(tmp_path / "alone.db"))
    other = league_with_schedule(alone)
    one_by_one = Kiosks(alone)
    keys = {vt: one_by_one.enrol(one_by_one.make_code(*vt))["key"] for vt in world["keys"]}
    for vt, key in world["keys"].items():
        for body, _ in plans[key]:
            one_by_one.push(keys[vt], body)
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
    assert event_text(e) == json.dumps(asdict(e), sort_keys=True)


def test_a_push_that_ends_a_game_is_answered_once_its_result_is_in_the_standings(world):
    """A push that ended no game leaves the standings as they were; once a push that ends a game is
    answered, the game is in the standings: what a kiosk was told stored can be seen."""
    v1 = world["venues"][0]
    events, meeting, key = world["games"][v1], world["meeting_at"][v1], world["keys"][(v1, 1)]
    seen = []
    for part in (events[:10], events[10:]):
        world["kiosks"].push(key, json.dumps(_body(meeting, part)).encode())
        seen.append(_standing_games(world))
    assert seen == [0, 2]


def test_a_result_the_database_fails_to_write_undoes_its_push_whole_and_the_retry_stores_both(world, monkeypatch):
    """The database failing just as a game's result is written: the push is refused (503 through the
    API) with nothing of it held, neither its events nor its result, and the kiosk's retry of the same
    push stores both. Were the events committed apart from the result, the game would be held ended
    and never counted."""
    kiosks = world["kiosks"]
    real, calls = push_module.count_game, []

    def failing_once(*args):
        calls.append(1)
        if len(calls) == 1:
            raise StoreUnreachable("cannot use the database: the server closed the connection")
        real(*args)

    monkeypatch.setattr(push_module, "count_game", failing_once)
    v1 = world["venues"][0]
    events, key = world["games"][v1], world["keys"][(v1, 1)]
    body = json.dumps(_body(world["meeting_at"][v1], events)).encode()
    with pytest.raises(StoreTrouble, match="closed the connection"):
        kiosks.push(key, body)
    assert _held(world["store"]) == {} and _standing_games(world) == 0
    answer = kiosks.push(key, body)
    assert answer["games"][0]["stored"] == len(events) and answer["games"][0]["duplicates"] == 0
    assert _standing_games(world) == 2


def test_a_late_event_after_a_game_has_ended_is_checked_against_the_whole_game(world):
    """The server keeps the games it folded, so that the next push folds only its own events; an
    event pushed to an ended game later is checked against the whole game, and refused in the fold's
    words when it does not fit: set aside, not applied."""
    kiosks = world["kiosks"]
    v1 = world["venues"][0]
    events, meeting, key = world["games"][v1], world["meeting_at"][v1], world["keys"][(v1, 1)]
    kiosks.push(key, _body(meeting, events[:-1]))
    kiosks.push(key, _body(meeting, events[-1:]))
    late = {**events[-1], "seq": len(events) + 1, "kind": "hand_confirmed"}  # a hand after the end
    answer = kiosks.push(key, _body(meeting, [late]))
    [refused] = answer["games"][0]["quarantined"]
    assert refused == {"seq": len(events) + 1, "why": "no hand is waiting to be confirmed"}


def test_a_game_another_server_process_added_to_is_folded_from_the_database(world):
    """Two server processes on one database each keep their own folded games: a push to a game the
    other process has added to since is folded from what the database holds, not from this
    process's older copy, and the game's result is the whole game's."""
    v1 = world["venues"][0]
    events, meeting, key = world["games"][v1], world["meeting_at"][v1], world["keys"][(v1, 1)]
    here, there = world["kiosks"], Kiosks(world["store"])
    here.push(key, _body(meeting, events[:5]))
    there.push(key, _body(meeting, events[5:-1]))
    answer = here.push(key, _body(meeting, events[-1:]))
    assert answer["games"][0]["quarantined"] == [] and _standing_games(world) == 2


def test_the_first_game_to_end_takes_a_meetings_last_place(world):
    """A meeting with room for one game and two games played at it: the one bound later but ended
    first takes the place; the other is noted for the organiser, not counted."""
    v1 = world["venues"][0]
    meeting = world["meeting_at"][v1]
    early, late = world["keys"][(v1, 2)], world["keys"][(v1, 1)]
    game = world["games"][v1]
    kiosks = world["kiosks"]
    kiosks.push(late, _body(meeting, game[:3]))  # bound first
    kiosks.push(early, _body(meeting, game[:3]))
    kiosks.push(early, _body(meeting, game[3:]))  # ended first
    kiosks.push(late, _body(meeting, game[3:]))
    with world["store"].read() as r:
        [counted] = r.games(meeting)
        notes = dict(r.conn.execute(sa.text("SELECT kiosk_id, note FROM kiosk_games")).all())
    first, second = (kiosks.kiosk_for_key(k)["id"] for k in (early, late))
    assert counted["kiosk_id"] == first and notes[first] is None
    assert "already has its 1 game(s)" in notes[second]


def _results_rows(store: Store) -> dict[str, list[tuple]]:
    """What results write: the games, the kiosk games' league games and notes, the teams' totals, the
    games' figures and the statistics' sums, and the league's events (their text, not their time)."""
    from league.store.kiosks import kiosk_games
    from league.store.stats import game_figures, team_figures
    from league.store.tables import games, team_totals

    with store.read() as r:
        out = {t.name: sorted(tuple(row) for row in r.conn.execute(sa.select(t))) for t in (games, team_totals)}
        for t in (game_figures, team_figures):
            out[t.name] = sorted(tuple(row) for row in r.conn.execute(sa.select(t)))
        c = kiosk_games.c
        out["kiosk_games"] = sorted(r.conn.execute(sa.select(c.kiosk_id, c.game, c.league_game, c.note)).all())
        out["events"] = [(e.kind, e.payload) for e in r.events()]
    return out


def test_results_written_by_pushes_are_what_a_recount_from_the_events_gives(world, tmp_path):
    """Every meeting of the season played, each result written by the push that ends its game: the
    games, totals, figures and statistics' sums are what a rebuild from the events writes again. A
    second game at a meeting that has its one game is noted, not counted; some games won by EW."""
    with world["store"].read() as r:
        meetings = [m for m in r.meetings(world["division"]) if m["team_b"] is not None]
        names = {t["id"]: t["name"] for t in r.teams(world["division"])}
    number = {vt: 0 for vt in world["keys"]}
    pushes = []
    for i, m in enumerate(meetings):
        at = (m["venue_id"], 1 + i % 2)
        number[at] += 1
        night = m["date"] or m["round_date"]
        game = played_game(
            tmp_path, (names[m["team_a"]], names[m["team_b"]]), winner="EW" if i % 3 else "NS", night=night
        )
        pushes.append((world["keys"][at], _body(m["id"], game, game=number[at])))
    again = pushes[0]
    pushes.append((again[0], {"games": [{**again[1]["games"][0], "game": 9}]}))
    for key, body in pushes:
        world["kiosks"].push(key, body)

    pushed = _results_rows(world["store"])
    from league.organiser.figures import rebuild

    rebuild(world["store"])  # every game's figures and the sums counted again from the events
    assert _results_rows(world["store"]) == pushed
    assert len(pushed["games"]) == len(meetings)
    [note] = [n for _, _, lg, n in pushed["kiosk_games"] if lg is None]
    assert "already has its 1 game(s)" in note
