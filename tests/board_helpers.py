"""A league night at one venue for the board's tests: a division of 24 teams whose first round is 12
meetings at one venue of 12 tables, a kiosk enrolled at each table, and real games played with the
kiosk's table controller, pushed as a kiosk's sync worker pushes them."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.store.core import Store
from tests.league_kiosk_helpers import tonight_now
from tests.store_helpers import open_table

TONIGHT = tonight_now()  # the board shows the league's night now unless asked for another
HANDS = [  # the table's hands in turn: made, set, made by the other team, with a meld
    {"trump": "D", "maker": "N", "points": {"NS": 112, "EW": 50}},
    {"trump": "S", "maker": "E", "points": {"NS": 90, "EW": 72}},
    {"trump": "H", "maker": "S", "points": {"NS": 70, "EW": 92}},
    {"trump": "C", "maker": "W", "points": {"NS": 40, "EW": 122}, "melds": {"W": [["JC", "JD", "JH", "JS"]]}},
    {"trump": "D", "maker": "N", "points": {"NS": 100, "EW": 62}},
]


def busy_night(store: Store, tables: int = 12, night: str = TONIGHT) -> dict[str, Any]:
    """2 × ``tables`` teams, one venue of ``tables`` tables: the first round's meetings all at that
    venue on ``night``, one at each table (as the organiser sets them), and a kiosk enrolled at each."""
    org = Organiser(store)
    league = org.create_league("Evansville Clabber League")
    season, division = org.create_season(league, "Winter 2026")
    for i in range(1, 2 * tables + 1):
        org.add_team(division, f"Team {i:02d}", [f"P{i}a", f"P{i}b"])
    venue = org.add_venue(league, "Germania Maennerchor", tables=tables)
    org.make_schedule(division, night)
    with store.read() as r:
        first = [m for m in r.meetings(division) if m["round"] == 1 and m["team_b"] is not None]
        names = {t["id"]: t["name"] for t in r.teams(division)}
    assert len(first) == tables and all(m["venue_id"] == venue for m in first), first
    for n, m in enumerate(first, 1):
        org.move_meeting(m["id"], venue=venue, table=n, reason="the organiser's table plan")
    kiosks = Kiosks(store)
    keys = [kiosks.enrol(kiosks.make_code(venue, n))["key"] for n in range(1, tables + 1)]
    return {
        "season": season,
        "division": division,
        "venue": venue,
        "keys": keys,
        "meetings": [m["id"] for m in first],
        "teams": [(names[m["team_a"]], names[m["team_b"]]) for m in first],
    }


def table_game(folder: Path, teams: tuple[str, str], hands: int) -> list[dict[str, Any]]:
    """A game played with the table controller, ``hands`` hands from HANDS in turn (team a at NS), as
    the kiosk pushes it: its events as JSON, in seq order."""
    table = open_table(folder / f"kiosk-{len(list(folder.glob('kiosk-*.db')))}.db")
    g = table.new_game(
        list(teams), [f"{teams[0]} N", f"{teams[1]} E", f"{teams[0]} S", f"{teams[1]} W"], first_dealer="N"
    )
    for i in range(hands):
        table.add_hand(g.id, HANDS[i % len(HANDS)])
    out = []
    for e in table.store.events(g.id):
        d = asdict(e)
        d.pop("game")
        out.append(d)
    table.close()
    return out


def push_body(meeting: int, events: list[dict[str, Any]], game: int = 1) -> dict[str, Any]:
    return {"games": [{"game": game, "meeting": meeting, "events": events}]}
