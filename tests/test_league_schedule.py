"""The round robin: properties of the circle method, the venues, and the schedule as stored."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.organiser.actions import Organiser
from league.organiser.schedule import make_schedule, pairings
from league.organiser.season import LeagueRefused
from league.store.core import Store

START = dt.date(2026, 1, 6)


@given(st.integers(2, 40), st.booleans())
def test_every_pair_meets_once_or_twice_and_no_team_plays_twice_a_round(n, double):
    teams = list(range(100, 100 + n))
    rounds = pairings(teams, double)
    met = Counter(frozenset((a, b)) for r in rounds for a, b in r if b is not None)
    want = 2 if double else 1
    assert set(met) == {frozenset((a, b)) for a in teams for b in teams if a < b}
    assert set(met.values()) == {want}
    for r in rounds:
        seen = [t for a, b in r for t in (a, b) if t is not None]
        assert sorted(seen) == teams  # everyone plays or has the bye, once
    byes = Counter(a for r in rounds for a, b in r if b is None)
    if n % 2:
        assert {byes[t] for t in teams} == {want}  # spread evenly: one each (two for double)
    else:
        assert not byes
    if double:  # the second half swaps the sides of the first
        half = len(rounds) // 2
        assert [[(b, a) for a, b in r if b is not None] for r in rounds[:half]] == [
            [(a, b) for a, b in r if b is not None] for r in rounds[half:]
        ]


@given(st.integers(2, 30), st.dictionaries(st.integers(1, 50), st.just(100), min_size=1, max_size=6), st.booleans())
def test_venues_share_the_meetings_evenly_each_round_and_over_the_season(n, venues, double):
    rounds = make_schedule(list(range(n)), venues, START, 7, double)
    season: Counter[int] = Counter()
    for i, r in enumerate(rounds):
        assert r.date == START + dt.timedelta(days=7 * i)
        load = Counter(m.venue for m in r.meetings if m.b is not None)
        season += load
        counts = [load[v] for v in venues]
        assert max(counts) - min(counts) <= 1
    totals = [season[v] for v in venues]
    assert max(totals) - min(totals) <= 1


@given(st.integers(2, 30), st.lists(st.integers(1, 4), min_size=1, max_size=6))
def test_a_venue_never_gets_more_meetings_in_a_round_than_it_has_tables(n, tables):
    venues = dict(enumerate(tables))
    if n // 2 > sum(tables):
        with pytest.raises(LeagueRefused, match="only"):
            make_schedule(list(range(n)), venues, START)
        return
    for r in make_schedule(list(range(n)), venues, START):
        load = Counter(m.venue for m in r.meetings if m.b is not None)
        assert all(load[v] <= venues[v] for v in load)


def test_bad_schedules_are_refused():
    with pytest.raises(LeagueRefused, match="at least two teams"):
        pairings([1])
    with pytest.raises(LeagueRefused, match="named twice"):
        pairings([1, 2, 2])
    with pytest.raises(LeagueRefused, match="at least one venue"):
        make_schedule([1, 2], {}, START)


def test_a_stored_schedule_can_be_moved_and_forfeited(league_db):
    store = Store(league_db)
    org = Organiser(store)
    league = org.create_league("Tuesday nights")
    _, division = org.create_season(league, "Spring", {"games_per_meeting": 2})
    teams = [org.add_team(division, f"T{i}", ["A", "B"]) for i in range(5)]
    bar, club = org.add_venue(league, "Germania", 2), org.add_venue(league, "Club", 1)
    assert org.make_schedule(division, "2026-03-03", double=True) == 10
    with store.read() as r:
        ms = r.meetings(division)
        assert [x["date"] for x in r.rounds(division)][:2] == ["2026-03-03", "2026-03-10"]
    assert len(ms) == 10 * 3  # two meetings and a bye each round
    assert Counter(m["team_a"] for m in ms if m["team_b"] is None) == Counter({t: 2 for t in teams})
    first = next(m for m in ms if m["team_b"] is not None)
    with pytest.raises(LeagueRefused, match="a reason is needed"):
        org.move_meeting(first["id"], venue=club, reason=" ")
    with pytest.raises(LeagueRefused, match="already plays on 2026-03-10"):
        org.move_meeting(first["id"], date="2026-03-10", reason="snow")
    org.move_meeting(first["id"], date="2026-03-05", venue=bar, table=2, reason="snow")
    with pytest.raises(LeagueRefused, match="tables 1 to 1, not 3"):
        org.move_meeting(first["id"], venue=club, table=3, reason="x")
    org.forfeit(first["id"], first["team_b"], "a player is ill")
    with store.read() as r:
        moved = r.meeting(first["id"])
    assert (moved["date"], moved["venue_id"], moved["table_number"]) == ("2026-03-05", bar, 2)
    assert (moved["forfeit_team"], moved["forfeit_reason"]) == (first["team_b"], "a player is ill")
    with pytest.raises(LeagueRefused, match="forfeited"):
        org.record_game(first["id"], 521, 0, "a")
    with pytest.raises(LeagueRefused, match="already has a schedule"):
        org.make_schedule(division, "2026-03-03")
    line = {x.team: x for x in org.standings(division)}
    assert (line[first["team_a"]].won, line[first["team_b"]].lost) == (2, 2)  # both games of the meeting
    assert line[first["team_a"]].points_for == 0
    store.close()
