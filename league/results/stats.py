"""A league's statistics: each team's and player's figures over a season, or over all a league's seasons.

Games, wins and ties are every game that counts (round robin and playoffs; a ruling as ruled; forfeits
are not games played). The rest is the kiosk games' figures, written with their results
(league/organiser/figures.py) and summed by team and player in the store (``team_figures``). Over all a
league's seasons, teams and players are the same when their names are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from league.organiser.season import LeagueRefused
from league.store import stats as fs
from league.store.core import Reader, Store
from shared.stats import COUNTED, NOTHING, Figures, Line, same_name


@dataclass(frozen=True)
class Stats:
    """Every team's and player's line over some seasons, before any minimum or order."""

    teams: list[Line]
    players: list[Line]


def _figures(row: dict[str, Any]) -> Figures:
    return Figures(**{k: int(row[k] or 0) for k in COUNTED})


def _stats(r: Reader, seasons: list[int], by_name: bool) -> Stats:
    """The lines of the seasons' teams and players: by team (with a link to its page), or, ``by_name``,
    by team name and player name across seasons."""
    teams = fs.season_teams(r.conn, seasons)
    names = {t["id"]: t["name"] for t in teams}
    own: dict[int, Figures] = {}
    players: list[tuple[int, str, Figures]] = []
    for row in fs.sums(r.conn, list(names)):
        if row["player"] == fs.TEAM_LINE:
            own[row["team_id"]] = _figures(row)
        else:
            players.append((row["team_id"], row["player"], _figures(row)))
    team_lines: dict[Any, Line] = {}
    player_lines: dict[Any, Line] = {}
    for t in teams:
        key = same_name(t["name"]) if by_name else t["id"]
        held = team_lines.get(key)
        link = "" if by_name else f"/teams/{t['id']}"
        figures = own.get(t["id"], NOTHING) + (held.figures if held else NOTHING)
        team_lines[key] = Line(t["name"], figures, link=link)
    # A name typed in another case is the same player, shown as typed in most of their games (the
    # first in order of those typed as often): the same on either database, whatever order rows come in.
    spelling: dict[Any, tuple[int, str]] = {}
    for team, player, figures in players:
        team_name = names[team]
        pkey = (same_name(team_name), same_name(player)) if by_name else (team, same_name(player))
        was = player_lines.get(pkey)
        spelling[pkey] = min(spelling.get(pkey, (0, player)), (-figures.games, player))
        player_lines[pkey] = Line(spelling[pkey][1], figures + (was.figures if was else NOTHING), team_name)
    return Stats(list(team_lines.values()), list(player_lines.values()))


def season_stats(store: Store, season: int) -> tuple[dict[str, Any], Stats]:
    """A season (with its league) and its lines; LeagueRefused when there is no such season."""
    with store.read() as r:
        s = r.season(season)
        if s is None:
            raise LeagueRefused(f"there is no season {season}")
        league = r.league(s["league_id"])
        return {"season": s, "league": league}, _stats(r, [season], by_name=False)


def league_stats(store: Store, league: int) -> tuple[dict[str, Any], Stats]:
    """A league (with its seasons) and the lines over all its seasons, teams and players by name."""
    with store.read() as r:
        lg = r.league(league)
        if lg is None:
            raise LeagueRefused(f"there is no league {league}")
        seasons = r.seasons(league)
        return {"league": lg, "seasons": seasons}, _stats(r, [s["id"] for s in seasons], by_name=True)
