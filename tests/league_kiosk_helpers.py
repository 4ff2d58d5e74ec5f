"""A league with a schedule, and real games made with the kiosk's table controller, for the API tests."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from league.organiser.actions import Organiser
from league.organiser.night import NIGHT_ENDS, TIME_ZONE, league_night
from league.store.core import Store
from league.store.kiosks import enrol_codes, kiosk_events, kiosk_games, kiosks
from league.store.tables import events
from tests.store_helpers import QUICK_HANDS, open_table

NIGHT = "2026-01-06"


def meeting_night(store: Store, meeting: int) -> str:
    """The night a meeting is played: its own date when moved, else its round's."""
    with store.read() as r:
        m = r.meeting_with_settings(meeting)
    assert m is not None
    return str(m["date"] or m["round_date"])


def tonight_now() -> str:
    """The league night now by the league's default clock (Evansville's, nights ending at 6 am)."""
    return league_night(dt.datetime.now(dt.UTC), TIME_ZONE, NIGHT_ENDS).isoformat()


def league_with_schedule(store: Store, night: str = NIGHT) -> dict[str, Any]:
    """4 teams, 2 venues of 2 tables: the first round has one meeting at each venue on ``night``."""
    org = Organiser(store)
    league = org.create_league("Evansville Clabber League")
    _season, division = org.create_season(league, "Winter 2026")
    for i in range(1, 5):
        org.add_team(division, f"Team {i}", [f"P{i}a", f"P{i}b"], [f"S{i}"] if i == 1 else [])
    venues = [org.add_venue(league, f"Bar {i}", tables=2) for i in (1, 2)]
    org.make_schedule(division, night)
    with store.read() as r:
        first = [m for m in r.meetings(division) if m["round"] == 1 and m["team_b"] is not None]
        names = {t["id"]: t["name"] for t in r.teams(division)}
    at = {v: [m for m in first if m["venue_id"] == v] for v in venues}
    assert all(at.values()), at  # one meeting at each venue on the first night
    return {
        "org": org,
        "division": division,
        "venues": venues,
        "meeting_at": {v: ms[0]["id"] for v, ms in at.items()},
        # The meeting's teams, team a first: a game started with these names has team a at NS.
        "teams_at": {v: (names[ms[0]["team_a"]], names[ms[0]["team_b"]]) for v, ms in at.items()},
    }


def kiosk_game(
    folder: Path, corrected: bool = True, teams: tuple[str, str] = ("Team 1", "Team 2"), night: str = NIGHT
) -> list[dict[str, Any]]:
    """A game played with the table controller (a correction among its hands) and finished before the
    target, as the kiosk would push it: its events as JSON, in seq order; ``teams`` NS then EW."""
    table = open_table(folder / "kiosk.db", night=night)
    table.set_pin("246813")
    g = table.new_game(list(teams), ["P1a", "P2a", "P1b", "P2b"], first_dealer="N")
    for h in QUICK_HANDS:
        table.add_hand(g.id, h)
    if corrected:
        table.correct(g.id, 2, {"trump": "S", "maker": "S", "points": {"NS": 91, "EW": 71}}, "points misread", "246813")
    table.finish(g.id, reason="closing time")
    out = [_json(e) for e in table.store.events(g.id)]
    table.close()
    return out


def _json(e: Any) -> dict[str, Any]:
    d = asdict(e)
    d.pop("game")
    return d


def refused_event(seq: int) -> dict[str, Any]:
    """A hand the rules refuse (a trump that is no suit): the fold cannot apply it."""
    record = {"trump": "X", "maker": "N", "points": {"NS": 80, "EW": 82}}
    return {"seq": seq, "at": "2026-01-06T20:00:00.000+00:00", "kind": "hand_entered", "payload": {"record": record}}


def snapshot(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the kiosk API could write, to show a refusal wrote nothing."""
    with store.read() as r:
        return {
            t.name: sorted(tuple(row) for row in r.conn.execute(sa.select(t)))
            for t in (events, enrol_codes, kiosks, kiosk_games, kiosk_events)
        }


SMALLER_WIN = {"trump": "S", "maker": "N", "points": {"NS": 100, "EW": 62}}  # NS 12 fewer, EW 12 more
NS_SET = {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}}  # NS set: 0 for them, 81 for EW
NS_HAND = {"trump": "D", "maker": "N", "points": {"NS": 112, "EW": 50}}
EW_HAND = {"trump": "D", "maker": "E", "points": {"NS": 50, "EW": 112}}


def played_game(
    folder: Path,
    teams: tuple[str, str],
    winner: str = "NS",
    rules: dict[str, Any] | None = None,
    correction: dict[str, Any] | None = None,
    night: str = NIGHT,
) -> list[dict[str, Any]]:
    """A game played to the target with the table controller (``winner`` takes 112 of 162 each hand;
    500 is reached on the fifth hand), as the kiosk would push it; ``correction``: the record the
    owner puts in place of the second hand after the game is over."""
    table = open_table(folder / f"kiosk-{len(list(folder.glob('kiosk-*.db')))}.db", night=night)
    table.set_pin("246813")
    g = table.new_game(list(teams), ["P1a", "P2a", "P1b", "P2b"], rules=rules, first_dealer="N")
    hand = NS_HAND if winner == "NS" else EW_HAND
    while g.status != "over":  # the fifth hand at 500; sooner for a lower target
        g = table.add_hand(g.id, hand)
    if correction is not None:
        table.correct(g.id, 2, correction, "misread", "246813")
    out = [_json(e) for e in table.store.events(g.id)]
    table.close()
    return out
