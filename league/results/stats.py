"""A league's statistics: each team's and player's figures over a season, or over all a league's seasons.

Games, wins and ties are every game that counts (round robin and playoffs; a ruling as ruled; forfeits
are not games played). The rest is counted from the kiosk games' events by the kiosk's own
``shared/stats.py``: each kiosk game's figures are written (``game_figures``) when its result is, in the
same transaction, and ``clabber league rebuild`` writes them all again from the events. Games recorded
by hand have no hands to count: they add to games and wins only. A kiosk game's NS and EW are the
league teams that sat there (``kiosk_games.ns_team``); its players are the names at the seats, each the
team's own spelling when it is one of its players or substitutes (in any case), else as typed. Over
all a league's seasons, teams and players are the same when their names are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.text import MAX_NAME
from league.organiser.season import LeagueRefused
from league.store import kiosks as ks
from league.store import stats as fs
from league.store.core import Reader, Store
from shared.game_state import ActionRefused, GameState
from shared.stats import COUNTED, HAND_FIGURES, NOTHING, Figures, GameFigures, Line, figures_of, same_name


def player_name(typed: Any, registered: list[str]) -> str | None:
    """A seat's name as the league keeps it: the team's spelling when it is one of the team's players or
    substitutes, else as typed (spaces tidied, at most 40 characters); None for no name."""
    if not isinstance(typed, str) or not typed.strip():
        return None
    tidy = " ".join(typed.split())[:MAX_NAME]
    return next((r for r in registered if same_name(r) == same_name(tidy)), tidy)


def lines_of(
    game: GameFigures, ns: int, ew: int, registered: dict[int, list[str]], ns_side: str = "a"
) -> list[dict[str, Any]]:
    """A kiosk game's rows of ``game_figures``: each team's, and each named player's (a name typed at
    both seats of a team counts once, for the first seat); ``ns_side``: NS is the meeting's team a or b."""
    out: list[dict[str, Any]] = []
    for t, team in enumerate((ns, ew)):
        side = ns_side if t == 0 else "b" if ns_side == "a" else "a"
        out.append({"team_id": team, "player": fs.TEAM_LINE, "side": side, **_hand(game.sides[t])})
        seen = set()
        for s in (t, t + 2):
            name = player_name(game.players.get("NESW"[s]), registered.get(team, []))
            if name is None or same_name(name) in seen:
                continue
            seen.add(same_name(name))
            out.append({"team_id": team, "player": name, "side": side, **_hand(game.seats[s])})
    return out


def _hand(f: Figures) -> dict[str, int]:
    return {k: getattr(f, k) for k in HAND_FIGURES}


def counted_at(state: GameState | None, ns_team: int | None, teams: tuple[int, int | None] | None) -> bool:
    """Whether a kiosk game has figures to count: it folds, and one of its meeting's two teams sat NS."""
    return state is not None and ns_team is not None and teams is not None and ns_team in teams and teams[1] is not None


def game_lines(
    state: Any, ns_team: int, teams: tuple[int, int | None], rosters: dict[int, list[str]]
) -> list[dict[str, Any]]:
    """A kiosk game's rows of ``game_figures`` (``counted_at`` it): ``rosters``, the teams' players and
    substitutes as stored (``league.store.stats.rosters``)."""
    ew_team = teams[1] if ns_team == teams[0] else teams[0]
    assert ew_team is not None
    registered = {t: [n for text in rosters.get(t, []) for n in json.loads(text)] for t in (ns_team, ew_team)}
    side = "a" if ns_team == teams[0] else "b"
    return lines_of(figures_of(state), ns_team, ew_team, registered, side)


def write_figures(
    conn: Any,
    league_game: int,
    meeting: int,
    ns_team: int | None,
    state: GameState | None,
    *,
    sums: bool = True,
    new: fs.NewGame | None = None,
) -> None:
    """A kiosk game's figures in place of those it had, and (``sums``) its teams' sums; no figures when
    the game cannot be folded or nobody knows which team sat NS (its result then waits for the
    organiser, and its hands count for nobody). ``new``: the game was written just now, with no
    figures yet and a result new to its teams' sums, so the sums are added to rather than summed again
    over all their games (and its meeting's teams are not read again)."""
    teams = (new.team_a, new.team_b) if new is not None else fs.meeting_teams(conn, meeting)
    lines: list[dict[str, Any]] = []
    if counted_at(state, ns_team, teams):
        assert teams is not None and ns_team is not None
        lines = game_lines(state, ns_team, teams, fs.rosters(conn, [t for t in teams if t is not None]))
    if new is not None and sums:
        fs.add_games(conn, [(league_game, lines, new)])
    else:
        fs.replace_game(conn, league_game, lines, sums=sums)


def fold(conn: Any, kiosk: int, game: int) -> GameState | None:
    """A kiosk game as its applied events fold (None if they do not: each was accepted when it came)."""
    log = ks.applied_events(conn, kiosk, game)
    try:
        return GameState.from_events(log) if log else None
    except ActionRefused:
        return None


def refigure(conn: Any) -> int:
    """Writes every kiosk game's figures again from its events; returns how many games."""
    fs.clear(conn)
    done = 0
    for k in fs.finished_kiosk_games(conn):
        state = fold(conn, k["kiosk_id"], k["game"])
        write_figures(conn, k["league_game"], k["meeting_id"], k["ns_team"], state, sums=False)
        done += 1
    fs.sum_teams(conn)
    return done


def rebuild(store: Store) -> tuple[int, int]:
    """The league's derived tables from its log, then every kiosk game's figures from its events;
    returns the events replayed and the kiosk games counted."""
    replayed = store.rebuild()
    with store.write() as w:
        games = refigure(w.conn)
    return replayed, games


# ---- reading ------------------------------------------------------------------------------------------


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
