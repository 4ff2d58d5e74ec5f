"""How a kiosk game counts: whether its result goes into the standings by itself or is held for the
organiser's ruling (and why), what it counts as (team a, team b, a tie, or nobody), whether its meeting
has room for it, and the playoff match it decides. Called in the push that ends the game (or changes
it after), in that push's transaction."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict
from typing import Any

from engine.rules import Rules
from league.organiser.actions import advance_playoffs
from league.organiser.figures import game_lines
from league.organiser.night import night_at
from league.organiser.season import LeagueRefused, read_settings
from league.organiser.standings import TIE, A, B
from league.store import events as ev
from league.store import kiosks as ks
from league.store import stats as fs
from league.store import tables as tb
from league.store.core import Writer
from league.store.rows import GameRow, MeetingWithSettings
from shared.game_state import ABANDONED, OPEN, GameState

# How far a kiosk's clock may run ahead of the league's: a Pi sets its clock from the network, and one
# that has not yet may be minutes off. A game starting later than this is held, never counted.
START_AHEAD = dt.timedelta(minutes=15)
Row = dict[str, Any]


def count_game(w: Writer, kiosk: Row, bound: Row, state: GameState | None, now: dt.datetime) -> None:
    """A kiosk game that has ended becomes (or updates) its meeting's game in the standings, with its
    figures; ``bound["league_game"]`` is then that game's id (None while the game goes on, or when it
    does not count). ``bound``: the kiosk game's binding (its meeting, who sat NS); ``now``: the
    league's clock."""
    if state is None or (state.status == OPEN and bound["league_game"] is None):
        if bound["league_game"] is not None:  # no longer folds: its hands count for nobody
            w.lock_league()
            fs.write_result(w.conn, bound["league_game"], [])
        return
    w.lock_league()  # before reading the meeting's games: the count and number must hold when written
    m = w.meeting_with_settings(bound["meeting_id"])
    assert m is not None  # bound games keep their meeting
    settings = read_settings(json.loads(m["season_settings"]))
    points_a, points_b, outcome, note = _figures(state, settings.rules, bound, m)
    figures = {"points_a": points_a, "points_b": points_b, "outcome": outcome, "note": note}
    lines = game_lines(w.conn, state, bound["ns_team"], (m["team_a"], m["team_b"]))
    if bound["league_game"] is not None:
        g = w.game(bound["league_game"])
        assert g is not None
        held_now = {"points_a": g["points_a"], "points_b": g["points_b"], "outcome": g["outcome"], "note": g["note"]}
        if g["ruled_reason"] is None and held_now != figures:
            w.append(
                ev.GAME_PLAYED, {**_who(g["id"], g["meeting_id"], g["number"], kiosk, bound), **figures}, lines=lines
            )
            _advance(w, kiosk, bound, m, g["id"])
        else:  # the result stands (as played, or as ruled): the figures may still have changed
            fs.write_result(w.conn, g["id"], lines)
        return
    held = _held(w, kiosk, m, state, now) if outcome is not None else None
    if held is not None:  # kept for the organiser, with why: counted only by a ruling
        ks.set_result(w.conn, kiosk["id"], bound["game"], None, held)
        return
    played = w.games(m["id"])
    full = _no_room(m["id"], played, outcome, settings.games_per_meeting)
    if full is not None:
        ks.set_result(w.conn, kiosk["id"], bound["game"], None, full)
        return
    game = w.next_id(tb.games)
    new = fs.NewGame(outcome, m["team_a"], m["team_b"])
    w.append(
        ev.GAME_PLAYED, {**_who(game, m["id"], _next_number(played), kiosk, bound), **figures}, lines=lines, new=new
    )
    ks.set_result(w.conn, kiosk["id"], bound["game"], game, note)
    bound["league_game"] = game
    _advance(w, kiosk, bound, m, game)


def _held(w: Writer, kiosk: Row, m: MeetingWithSettings, state: GameState, now: dt.datetime) -> str | None:
    """Why a kiosk's finished game is not counted by itself (None: it is): it counts only for a
    meeting at that kiosk's table, begun on that meeting's league night and not later than the
    league's clock says it is now. A stolen key (or a kiosk's wrong clock, or the wrong meeting
    chosen) gives a game held for the organiser's ruling, never a result in the standings."""
    table = m["table_number"]
    if table is not None and table != kiosk["table_number"]:
        return (
            f"meeting {m['id']} is played at table {table}, and this kiosk sits at table "
            f"{kiosk['table_number']}: not counted; rule on it"
        )
    started = _started(state)
    night = m["date"] or m["round_date"]
    if started is None:
        return f"the game's start time {state.started_at!r} is not a time: not counted; rule on it"
    if started > now + START_AHEAD:
        return f"the game started at {started.isoformat()}, later than the league's clock: not counted; rule on it"
    played = night_at(w, kiosk["venue_id"], started).isoformat()
    if played != night:
        return f"played on the night of {played}; meeting {m['id']} is on {night}: not counted; rule on it"
    return None


def _started(state: GameState) -> dt.datetime | None:
    try:
        at = dt.datetime.fromisoformat(state.started_at)
    except (TypeError, ValueError):
        return None
    return at if at.tzinfo is not None else None


def _advance(w: Writer, kiosk: Row, bound: Row, m: MeetingWithSettings, league_game: int) -> None:
    """A playoff match this game decides sends its winner on. When the bracket has moved past it (the
    next match already played), the table's result is still kept, with a note for the organiser."""
    if m["stage"] != tb.PLAYOFFS:
        return  # a round-robin meeting: no bracket to look up
    try:
        advance_playoffs(w, m["id"])
    except LeagueRefused as e:
        ks.set_result(w.conn, kiosk["id"], bound["game"], league_game, f"the bracket was not changed: {e}")


def _who(game: int, meeting: int, number: int, kiosk: Row, bound: Row) -> Row:
    """Which league game a kiosk game's result is, and which kiosk game it came from."""
    return {
        "game": game,
        "meeting": meeting,
        "number": number,
        "kiosk": kiosk["id"],
        "kiosk_game": bound["game"],
    }


def _figures(
    state: GameState, season_rules: Rules, bound: Row, m: MeetingWithSettings
) -> tuple[int, int, str | None, str | None]:
    """A kiosk game's result in the meeting's terms: points of team a and b, the outcome, and the note."""
    ns, ew = state.sheet.totals
    if bound["ns_team"] is None:  # kept, never guessed: the organiser rules with the sheet in hand
        return 0, 0, None, f"the kiosk did not say which team sat NS (the table's score: NS {ns}, EW {ew}): rule on it"
    ns_is_a = bound["ns_team"] == m["team_a"]
    outcome, note = outcome_of(state, season_rules, ns_is_a)
    return (ns, ew, outcome, note) if ns_is_a else (ew, ns, outcome, note)


def _no_room(meeting: int, played: list[GameRow], outcome: str | None, games_per_meeting: int) -> str | None:
    """Why a game that counts finds no place left at its meeting (None: it has one); a game that counts
    for nobody always has."""
    if outcome is None or sum(g["outcome"] is not None for g in played) < games_per_meeting:
        return None
    return f"meeting {meeting} already has its {games_per_meeting} game(s): this one is not counted"


def _next_number(played: list[GameRow]) -> int:
    """The number of a meeting's next game."""
    return max((g["number"] for g in played), default=0) + 1


def outcome_of(state: GameState, season_rules: Rules, ns_is_a: bool) -> tuple[str | None, str | None]:
    """How a kiosk game counts (a, b, tie, or None for nobody) and, when for nobody, why."""
    if state.status == OPEN:
        return None, "in play again after a correction at the table"
    if state.rules != season_rules:
        theirs, ours = asdict(state.rules), asdict(season_rules)
        differ = ", ".join(f"{k} {theirs[k]}, not {ours[k]}" for k in ours if theirs[k] != ours[k])
        return None, f"played with other rules than the season's ({differ}): rule on it"
    if state.status == ABANDONED:
        return None, f"abandoned at the table ({state.end_reason or 'no reason given'})"
    if not state.sheet.over:
        return None, f"ended at the table before the target ({state.end_reason or 'no reason given'}): rule on it"
    winner = state.winner
    if winner == "tie":
        return TIE, None
    return (A if (winner == "NS") == ns_is_a else B), None
