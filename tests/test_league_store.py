"""The league's store and organiser library, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from league.organiser.actions import Organiser
from league.organiser.season import LeagueRefused
from league.store.core import Store, StoreTrouble


@pytest.fixture
def store(league_db):
    s = Store(league_db)
    yield s
    s.close()


def _season(org: Organiser, teams: int = 4, venues: int = 2, **settings):
    league = org.create_league("Evansville Clabber League")
    season, division = org.create_season(league, "Winter 2026", settings or None)
    ids = [org.add_team(division, f"Team {i}", [f"P{i}a", f"P{i}b"]) for i in range(1, teams + 1)]
    vs = [org.add_venue(league, f"Bar {i}", tables=2) for i in range(1, venues + 1)]
    return league, season, division, ids, vs


def test_a_league_season_teams_and_venues_are_kept(store):
    org = Organiser(store)
    league, season, division, _teams, _venues = _season(org, games_per_meeting=3, ranking="game_points")
    org.add_team(division, "Subs welcome", ["Ann", "Bob"], ["Cy"])
    with store.read() as r:
        assert [x["name"] for x in r.leagues()] == ["Evansville Clabber League"]
        assert [d["name"] for d in r.divisions(season)] == ["Division 1"]
        names = [t["name"] for t in r.teams(division)]
        assert names == ["Team 1", "Team 2", "Team 3", "Team 4", "Subs welcome"]
        last = r.teams(division)[-1]
        assert json.loads(last["players"]) == ["Ann", "Bob"] and json.loads(last["substitutes"]) == ["Cy"]
        assert [(v["name"], v["tables"]) for v in r.venues(league)] == [("Bar 1", 2), ("Bar 2", 2)]
    s = org.settings(season)
    assert (s.games_per_meeting, s.ranking, s.tie_breakers) == (
        3,
        "game_points",
        ("game_points", "point_difference", "head_to_head"),
    )


@pytest.mark.parametrize(
    "action, message",
    [
        (lambda o, d: o.add_team(d, "Team 1", ["X", "Y"]), "already has a team named 'Team 1'"),
        (lambda o, d: o.add_team(d, "Trio", ["X", "Y", "Z"]), "a team is two players, not 3"),
        (lambda o, d: o.add_team(d, "  ", ["X", "Y"]), "a name is needed"),
        (lambda o, d: o.add_team(999, "Lost", ["X", "Y"]), "there is no division 999"),
        (lambda o, d: o.create_season(1, "Bad", {"ranking": "luck"}), "ranking: must be one of games_won, game_points"),
        (lambda o, d: o.create_season(1, "Bad", {"tie_breakers": ["coin"]}), "tie_breakers[0]: must be one of"),
        (lambda o, d: o.create_season(1, "Bad", {"games_per_meeting": 0}), "games_per_meeting: must be a whole number"),
        (lambda o, d: o.create_season(1, "Bad", {"rules": "pinochle"}), "unknown preset 'pinochle'"),
        (lambda o, d: o.add_venue(1, "Bar 9", tables=0), "number of tables must be from 1 to 100"),
    ],
)
def test_bad_input_is_refused_with_where_and_why_and_nothing_is_written(store, action, message):
    org = Organiser(store)
    _, _, division, _, _ = _season(org)
    with store.read() as r:
        before = len(r.events())
    with pytest.raises(LeagueRefused) as e:
        action(org, division)
    assert message in str(e.value)
    with store.read() as r:
        assert len(r.events()) == before


def test_the_log_refuses_update_and_delete(store):
    org = Organiser(store)
    org.create_league("L")
    for sql in ("UPDATE events SET kind = 'x'", "DELETE FROM events"):
        with pytest.raises((StoreTrouble, sa.exc.IntegrityError)) as e, store.write() as w:
            w.conn.execute(sa.text(sql))
        assert "append-only" in str(e.value)
    with store.read() as r:
        assert [e.kind for e in r.events()] == ["league_created"]


def test_everything_but_the_log_rebuilds_to_the_same_tables(store):
    org = Organiser(store)
    _, _, division, _teams, venues = _season(org, teams=5)
    org.make_schedule(division, "2026-01-06")
    with store.read() as r:
        m = r.meetings(division)[0]
    org.move_meeting(m["id"], date="2026-01-08", venue=venues[1], table=2, reason="the bar is shut")
    game = org.record_game(m["id"], 521, 480, "a")
    org.rule_game(game, None, "the score sheet was lost")

    def snapshot():
        with store.read() as r:
            return (r.teams(division), r.meetings(division), r.division_games(division), r.venues(1))

    before = snapshot()
    assert store.rebuild() > 0
    assert snapshot() == before


def test_the_schema_matches_the_tables_the_store_writes(store):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from league.store.tables import metadata

    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_the_indexes_of_marked_rows_hold_only_those_rows(store):
    """The quarantine's and the noted games' indexes are partial, on either database: a row is in one
    only while its mark is set (the schema's comparison above sees an index's name and columns only)."""
    with store.engine.connect() as conn:
        found = {i["name"]: i for t in ("kiosk_events", "kiosk_games") for i in sa.inspect(conn).get_indexes(t)}
    for name, mark in (("kiosk_events_quarantined", "quarantined"), ("kiosk_games_noted", "note")):
        where = found[name].get("dialect_options", {}).get(f"{store.dialect}_where")
        assert str(where).strip("()") == f"{mark} IS NOT NULL", (name, where)


def test_an_unreachable_or_unknown_database_is_one_clear_line():
    with pytest.raises(StoreTrouble) as e:
        Store("postgresql://nobody@127.0.0.1:1/none")
    assert "cannot use postgresql+psycopg://nobody@127.0.0.1:1/none" in str(e.value)
    with pytest.raises(StoreTrouble) as e:
        Store("mysql://x@127.0.0.1/db")
    assert "SQLite or PostgreSQL" in str(e.value)
