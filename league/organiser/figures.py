"""A kiosk game's figures, as the league counts them: its rows of ``game_figures`` from its events,
folded by the kiosk's own ``shared/stats.py``, written with its result (league/organiser/counting.py)
and all again by ``clabber league rebuild``.

A kiosk game's NS and EW are the league teams that sat there (``kiosk_games.ns_team``); its players are
the names at the seats, each the team's own spelling when it is one of its players or substitutes (in
any case), else as typed. Games recorded by hand have no hands to count: they add to games and wins
only. The sums are the store's (``league.store.stats.write_result``)."""

from __future__ import annotations

import json
from typing import Any

from engine.text import MAX_NAME
from league.store import kiosks as ks
from league.store import stats as fs
from league.store.core import Store
from shared.game_state import ActionRefused, GameState
from shared.stats import HAND_FIGURES, Figures, GameFigures, figures_of, same_name

Lines = list[dict[str, Any]]  # a game's rows of game_figures: team_id, player, side, the hand figures


def player_name(typed: object, registered: list[str]) -> str | None:
    """A seat's name as the league keeps it: the team's spelling when it is one of the team's players or
    substitutes, else as typed (spaces tidied, at most 40 characters); None for no name."""
    if not isinstance(typed, str) or not typed.strip():
        return None
    tidy = " ".join(typed.split())[:MAX_NAME]
    return next((r for r in registered if same_name(r) == same_name(tidy)), tidy)


def lines_of(game: GameFigures, ns: int, ew: int, registered: dict[int, list[str]], ns_side: str = "a") -> Lines:
    """A kiosk game's rows of ``game_figures``: each team's, and each named player's (a name typed at
    both seats of a team counts once, for the first seat); ``ns_side``: NS is the meeting's team a or b."""
    out: Lines = []
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


def game_lines(conn: Any, state: GameState | None, ns_team: int | None, teams: tuple[int, int | None] | None) -> Lines:
    """A kiosk game's rows of ``game_figures``; none when the game cannot be folded or nobody knows
    which of its meeting's teams sat NS (its result then waits for the organiser, and its hands count
    for nobody). ``teams``: its meeting's team a and team b."""
    if state is None or ns_team is None or teams is None or teams[1] is None or ns_team not in teams:
        return []
    ew_team = teams[1] if ns_team == teams[0] else teams[0]
    assert ew_team is not None
    rosters = fs.rosters(conn, [ns_team, ew_team])
    registered = {t: [n for text in rosters.get(t, []) for n in json.loads(text)] for t in (ns_team, ew_team)}
    return lines_of(figures_of(state), ns_team, ew_team, registered, "a" if ns_team == teams[0] else "b")


def fold(conn: Any, kiosk: int, game: int) -> GameState | None:
    """A kiosk game as its applied events fold (None if they do not: each was accepted when it came)."""
    log = ks.applied_events(conn, kiosk, game)
    try:
        return GameState.from_events(log) if log else None
    except ActionRefused:
        return None


def refigure(conn: Any) -> int:
    """Writes every kiosk game's figures again from its events, then every team's sums once; returns
    how many games."""
    fs.clear(conn)
    done = 0
    for k in fs.finished_kiosk_games(conn):
        state = fold(conn, k["kiosk_id"], k["game"])
        teams = fs.meeting_teams(conn, k["meeting_id"])
        fs.put_lines(conn, k["league_game"], game_lines(conn, state, k["ns_team"], teams))
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
