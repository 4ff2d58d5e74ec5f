"""What a stolen kiosk key can do, and what it cannot: a game counts by itself only for a meeting at
the kiosk's own table, begun on that meeting's league night by the league's clock and not ahead of
it; any other is held for the organiser with why. One kiosk is live at a table. The league's night
is the league's, whatever the server's or the kiosk's time zone. On SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from kiosk.league_words import tonight_view
from league.ingest.kiosks import KioskRefused, Kiosks
from league.organiser.actions import Organiser
from league.organiser.season import LeagueRefused
from league.store.core import Store
from tests.league_kiosk_helpers import played_game

EVANSVILLE = "America/Chicago"


@pytest.fixture
def league(league_db, tmp_path):
    """A league with 6 teams, a round a week from 2026-01-06 at one bar of 3 tables; the league's
    clock now: 5 am on 2026-01-07 in Evansville, the end of the night of the 6th."""
    store = Store(league_db)
    org = Organiser(store)
    lg = org.create_league("Evansville Clabber League", EVANSVILLE, 6)
    _, division = org.create_season(lg, "Winter")
    for i in range(1, 7):
        org.add_team(division, f"Team {i}", [f"P{i}a", f"P{i}b"])
    venue = org.add_venue(lg, "Germania", tables=3)
    org.make_schedule(division, "2026-01-06")
    now = [dt.datetime(2026, 1, 7, 11, 0, tzinfo=dt.UTC)]
    kiosks = Kiosks(store, clock=lambda: now[0])
    with store.read() as r:
        meetings = [m for m in r.meetings(division) if m["team_b"] is not None]
        names = {t["id"]: t["name"] for t in r.teams(division)}
    yield {
        "store": store,
        "org": org,
        "kiosks": kiosks,
        "venue": venue,
        "division": division,
        "meetings": meetings,
        "names": names,
        "now": now,
        "tmp": tmp_path,
    }
    store.close()


def _enrol(s, table: int) -> dict:
    return s["kiosks"].enrol(s["kiosks"].make_code(s["venue"], table))


def _game(s, m: dict, night: str) -> list[dict]:
    return played_game(s["tmp"], (s["names"][m["team_a"]], s["names"][m["team_b"]]), night=night)


def _push(s, key: str, number: int, m: dict, events: list[dict]) -> dict:
    sides = {"NS": m["team_a"], "EW": m["team_b"]}
    body = {"games": [{"game": number, "meeting": m["id"], "sides": sides, "events": events}]}
    return s["kiosks"].push(key, body)["games"][0]


def _counted(s) -> int:
    return sum(line.played for line in s["org"].standings(s["division"])) // 2


def _notes(s) -> list[str]:
    """The held games' notes, by the kiosk's game number."""
    return [g["note"] for g in sorted(s["kiosks"].flags()["games"], key=lambda g: g["game"])]


def test_a_stolen_key_cannot_count_games_for_later_meetings_or_other_tables(league):
    """A key taken from table 1: games pushed for meetings weeks ahead (started on their nights, or
    tonight) and for a meeting at another table are stored, held for the organiser with why, and
    counted nowhere; tonight's game at its own table counts."""
    s = league
    key = _enrol(s, 1)["key"]
    tonight = [m for m in s["meetings"] if m["round"] == 1]
    ahead = [m for m in s["meetings"] if m["round"] == 3]
    for m, table in zip(tonight, (1, 2, 3), strict=True):
        s["org"].move_meeting(m["id"], venue=s["venue"], table=table, reason="the table plan")
    _push(s, key, 1, ahead[0], _game(s, ahead[0], "2026-01-20"))  # its own night, two weeks ahead
    _push(s, key, 2, ahead[1], _game(s, ahead[1], "2026-01-06"))  # tonight, for a later meeting
    _push(s, key, 3, tonight[1], _game(s, tonight[1], "2026-01-06"))  # tonight, table 2's meeting
    assert _counted(s) == 0
    notes = _notes(s)
    assert "later than the league's clock: not counted; rule on it" in notes[0]
    assert f"played on the night of 2026-01-06; meeting {ahead[1]['id']} is on 2026-01-20" in notes[1]
    assert f"meeting {tonight[1]['id']} is played at table 2, and this kiosk sits at table 1" in notes[2]
    _push(s, key, 4, tonight[0], _game(s, tonight[0], "2026-01-06"))
    assert _counted(s) == 1
    # A game delivered late (the bar's Wi-Fi down all night) still counts for the night it was played.
    s["now"][0] = dt.datetime(2026, 1, 8, 18, 0, tzinfo=dt.UTC)
    other = _enrol(s, 3)["key"]
    _push(s, other, 1, tonight[2], _game(s, tonight[2], "2026-01-06"))
    assert _counted(s) == 2


def test_one_live_kiosk_at_a_table_a_new_enrolment_revokes_the_old_key(league):
    s = league
    first = _enrol(s, 2)
    assert first["replaced"] == []
    assert s["kiosks"].live_at(s["venue"], 2) == [first["kiosk"]]
    second = _enrol(s, 2)
    assert second["replaced"] == [first["kiosk"]]
    assert s["kiosks"].live_at(s["venue"], 2) == [second["kiosk"]]
    with pytest.raises(KioskRefused, match="unknown or revoked") as e:
        s["kiosks"].kiosk_for_key(first["key"])
    assert e.value.status == 401
    assert s["kiosks"].kiosk_for_key(second["key"])["id"] == second["kiosk"]
    assert _enrol(s, 1)["replaced"] == []  # another table's kiosk is left alone


@pytest.mark.parametrize("server_zone", ["Pacific/Auckland", "UTC", "America/Chicago"])
def test_the_night_across_midnight_is_the_leagues_whatever_the_servers_or_kiosks_zone(league, monkeypatch, server_zone):
    """00:30 in Evansville on the 7th is still the night of the 6th: the server (its own time zone
    UTC+12, UTC or Evansville's) lists the 6th's meetings, and a kiosk in America/Chicago fetching
    them says they are tonight's; at 6 am the night is over."""
    s = league
    monkeypatch.setenv("TZ", server_zone)
    time.tzset()
    try:
        key = _enrol(s, 1)["key"]
        s["now"][0] = dt.datetime(2026, 1, 7, 6, 30, tzinfo=dt.UTC)  # 00:30 on the 7th in Evansville
        answer = s["kiosks"].tonight(key)
        assert answer["date"] == "2026-01-06" and answer["time_zone"] == EVANSVILLE
        assert {m["meeting"] for m in answer["meetings"]} == {m["id"] for m in s["meetings"] if m["round"] == 1}
        status = {"league": {"venue": {"name": "Germania"}, "table": 1}, "sync": {"state": "connected"}}
        now = "2026-01-07T06:30:00.000+00:00"
        view = tonight_view({**answer, "fetched_at": now}, status, {}, now)
        assert view.note == "Tonight at Germania: tap your meeting."
        s["now"][0] = dt.datetime(2026, 1, 7, 12, 5, tzinfo=dt.UTC)  # 6:05 am: the night is over
        assert s["kiosks"].tonight(key)["date"] == "2026-01-07"
        later = "2026-01-07T12:05:00.000+00:00"
        assert "tonight's are not in yet" in tonight_view({**answer, "fetched_at": now}, status, {}, later).note
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_leagues_clock_is_checked_when_it_is_created(league):
    org = league["org"]
    with pytest.raises(LeagueRefused, match="'Mars/Olympus' is not a time zone such as America/Chicago"):
        org.create_league("Other", "Mars/Olympus", 6)
    with pytest.raises(LeagueRefused, match="a night ends at an hour from 0 to 12"):
        org.create_league("Other", EVANSVILLE, 13)
    auckland = org.create_league("Auckland", "Pacific/Auckland", 3)
    with league["store"].read() as r:
        assert (r.league(auckland)["time_zone"], r.league(auckland)["night_ends"]) == ("Pacific/Auckland", 3)
