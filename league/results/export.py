"""A season's standings and games, as CSV and JSON, for the organiser's one click and
``clabber league export``.

The standings are each division's, as the season page shows them. The games are every game of the
season's divisions, round by round: its meeting, teams, points and result as it counts
(a ruling as ruled), and for a game played at a kiosk its ``clabber-game/1`` record, with the league's
team names at NS and EW and any corrections made after the table (the engine reads it back:
``clabber sheet``). A text cell that a spreadsheet would take for a formula is written with a ``'``
before it: team names are anyone's input.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from league.organiser.actions import Organiser
from league.organiser.figures import fold
from league.organiser.season import LeagueRefused
from league.store import kiosks as ks
from league.store.core import Reader, Store
from league.store.rows import LeagueRow, SeasonRow
from shared.present import corrections_of

FORMATS = ("csv", "json")
WHAT = ("standings", "games")
STANDINGS_COLUMNS = (
    "division",
    "position",
    "team",
    "played",
    "won",
    "lost",
    "tied",
    "wins",
    "points_for",
    "points_against",
    "difference",
)
GAMES_COLUMNS = (
    "game",
    "division",
    "round",
    "stage",
    "date",
    "meeting",
    "number",
    "team_a",
    "team_b",
    "points_a",
    "points_b",
    "result",
    "ruling",
    "note",
    "played_at",
)
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _season(r: Reader, season: int) -> tuple[SeasonRow, LeagueRow]:
    s = r.season(season)
    if s is None:
        raise LeagueRefused(f"there is no season {season}")
    league = r.league(s["league_id"])
    assert league is not None  # a season is written after its league
    return s, league


def standings(store: Store, season: int) -> dict[str, Any]:
    """Each division's standings, in order."""
    with store.read() as r:
        s, league = _season(r, season)
        divisions = [
            {"id": d["id"], "name": d["name"], "standings": [x.to_json() for x in Organiser._standings(r, d["id"])]}
            for d in r.divisions(season)
        ]
    return {"league": league["name"], "season": {"id": s["id"], "name": s["name"]}, "divisions": divisions}


def games(store: Store, season: int) -> dict[str, Any]:
    """Every game of the season with its result; a kiosk game with its ``clabber-game/1`` record."""
    out = []
    with store.read() as r:
        s, league = _season(r, season)
        for d in r.divisions(season):
            names = {t["id"]: t["name"] for t in r.teams(d["id"])}
            meetings = {m["id"]: m for m in r.meetings(d["id"])}
            played = r.division_games(d["id"])
            played.sort(key=lambda g: (meetings[g["meeting_id"]]["round"], g["meeting_id"], g["number"]))
            out += [_game(r, d, meetings[g["meeting_id"]], g, names) for g in played]
    return {"league": league["name"], "season": {"id": s["id"], "name": s["name"]}, "games": out}


def _game(r: Reader, d: dict[str, Any], m: dict[str, Any], g: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    a, b = m["team_a"], m["team_b"]
    game: dict[str, Any] = {
        "game": g["id"],
        "division": d["name"],
        "round": m["round"],
        "stage": m["stage"],
        "date": m["date"] or m["round_date"],
        "meeting": m["id"],
        "number": g["number"],
        "teams": {"a": {"id": a, "name": names.get(a)}, "b": {"id": b, "name": names.get(b)}},
        "points": {"a": g["points_a"], "b": g["points_b"]},
        "result": g["outcome"] or "abandoned",
        "counts": g["outcome"] is not None,
        "ruling": g["ruled_reason"],
        "note": g["note"],
        "played_at": "kiosk" if g["kiosk_id"] is not None else "by hand",
    }
    if g["kiosk_id"] is not None:
        game["sides"], game["record"] = _record(r, g, m, names)
    return game


def _record(
    r: Reader, g: dict[str, Any], m: dict[str, Any], names: dict[int, str]
) -> tuple[dict[str, int] | None, dict[str, Any] | None]:
    """Which team sat NS and EW, and the game as the table played it."""
    state = fold(r.conn, g["kiosk_id"], g["kiosk_game"])
    bound = ks.bound_game(r.conn, g["kiosk_id"], g["kiosk_game"])
    if state is None:
        return None, None
    record = state.record()
    corrections = corrections_of(state)
    if corrections:
        record["corrections"] = corrections
    ns = bound["ns_team"] if bound else None
    if ns is None or ns not in (m["team_a"], m["team_b"]):
        return None, record  # the table's own names: nobody said which team sat where
    ew = m["team_b"] if ns == m["team_a"] else m["team_a"]
    record["teams"] = {"NS": names.get(ns, record["teams"]["NS"]), "EW": names.get(ew, record["teams"]["EW"])}
    return {"NS": ns, "EW": ew}, record


def safe_cell(value: Any) -> Any:
    """A text a spreadsheet would read as a formula, with a ``'`` before it; anything else as it is."""
    if isinstance(value, str) and value.startswith(FORMULA):
        return "'" + value
    return value


def _csv(columns: Sequence[str], rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([safe_cell("" if row.get(c) is None else row[c]) for c in columns])
    return buffer.getvalue()


def standings_csv(data: dict[str, Any]) -> str:
    """One row a team, division by division."""
    rows = [{**line, "division": d["name"], "team": line["name"]} for d in data["divisions"] for line in d["standings"]]
    for row in rows:
        row["wins"] = f"{row['wins']:g}"
    return _csv(STANDINGS_COLUMNS, rows)


def games_csv(data: dict[str, Any]) -> str:
    """One row a game: its teams, points and result (the records are in the JSON)."""
    rows = [
        {
            **g,
            "team_a": g["teams"]["a"]["name"],
            "team_b": g["teams"]["b"]["name"],
            "points_a": g["points"]["a"],
            "points_b": g["points"]["b"],
        }
        for g in data["games"]
    ]
    return _csv(GAMES_COLUMNS, rows)


def export(store: Store, season: int, what: str = "standings", form: str = "json") -> str:
    """The season's standings or games as CSV or JSON text."""
    if what not in WHAT:
        raise LeagueRefused(f"export: standings or games, not {what!r}")
    if form not in FORMATS:
        raise LeagueRefused(f"export: csv or json, not {form!r}")
    data = standings(store, season) if what == "standings" else games(store, season)
    if form == "json":
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    return standings_csv(data) if what == "standings" else games_csv(data)


def filename(season: int, what: str, form: str) -> str:
    return f"season-{season}-{what}.{form}"
