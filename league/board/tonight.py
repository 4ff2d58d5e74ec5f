"""What a venue's board shows tonight: every table live (its teams, totals, whose deal, hands played,
the last hand), the night's meetings with their tables, and the standings of the divisions playing
there.

Each kiosk game bound to one of tonight's meetings at the venue is folded from the events the league
applied (the quarantined ones left out) with the kiosk's own fold, shared/game_state.py; a fold is kept
until the league holds more events of that game, so a change at one table folds that table alone.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from dataclasses import dataclass
from typing import Any

from engine.seats import seat_name
from league.organiser.actions import Organiser
from league.organiser.ratings import KeptRatings
from league.store import kiosks as ks
from league.store.core import Reader, Store
from league.store.rows import DivisionRow
from shared.events import event_of
from shared.game_state import FOLD_ERRORS, GameState
from shared.present import cell

KEPT_FOLDS = 4096  # games kept folded: a city league's tables on one night, and room to spare


@dataclass(frozen=True)
class Folded:
    held: int  # the events the league held of the game when it was folded
    state: GameState | None  # None: the fold refused the log as it stands


def night_words(night: str) -> str:
    """``2026-01-06`` as ``Tuesday 6 January 2026``."""
    d = dt.date.fromisoformat(night)
    return f"{d:%A} {d.day} {d:%B %Y}"


def last_hand(state: GameState) -> str:
    """The last hand on the sheet in a few words: the makers and whether they made it, then what NS
    and EW scored (XX for a set): ``EW set, 90–XX``."""
    if not state.sheet.rows:
        return ""
    row = state.sheet.rows[-1]
    s = row.score
    if s.passed_out:
        return "passed out"
    if s.misdeal:
        return "misdeal: no score"
    if s.void:
        return "both reneged: no score"
    # A zero is written "-" on the sheet; between two scores "-–162" reads as nothing: 0 here.
    ns, ew = ("0" if cell(s, i) == "-" else cell(s, i) for i in (0, 1))
    if s.renege is not None:  # play ended at the renege: nobody made or was set
        return f"renege by {('NS', 'EW')[s.renege.team]}, {ns}–{ew}"
    said = "" if s.makers is None else f"{('NS', 'EW')[s.makers]} {'set' if s.set else 'made'}, "
    return f"{said}{ns}–{ew}"


def table_view(state: GameState, names: dict[str, str]) -> dict[str, Any]:
    """One live table: its game as the kiosk's screen has it, with the league's team names by seat."""
    ns, ew = state.sheet.totals
    dealer = seat_name(state.dealer)
    winner = state.winner
    return {
        "teams": names,
        "totals": {"NS": ns, "EW": ew},
        "dealer": dealer,
        "dealer_name": state.players.get(dealer, ""),
        "hands": len(state.hands),
        "last": last_hand(state),
        "status": state.status,
        "winner": names.get(winner, winner) if winner else None,
        "target": state.rules.target,
        "waiting": state.pending is not None,  # a hand entered, the other team still to confirm it
    }


class Board:
    """A venue's board over the league's store, with the games it has folded."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.ratings = KeptRatings(store)
        self._folded: dict[tuple[int, int], Folded] = {}
        self._lock = threading.Lock()  # boards of several venues are drawn in threads side by side

    def tonight(self, venue: int, night: str) -> dict[str, Any] | None:
        """What the venue's board shows on ``night``; None when there is no such venue."""
        with self.store.read() as r:
            v = r.venue(venue)
            if v is None:
                return None
            meetings = ks.meetings_on(r.conn, venue, night)
            names: dict[int, str] = {}
            pairs: dict[int, list[str]] = {}  # each team's two registered players
            divisions: dict[int, DivisionRow] = {}
            for m in meetings:
                if m["division_id"] not in divisions:
                    d = r.division(m["division_id"])
                    assert d is not None  # a meeting is written after its division
                    divisions[d["id"]] = d
                    for t in r.teams(d["id"]):
                        names[t["id"]], pairs[t["id"]] = t["name"], json.loads(t["players"])
            bound = ks.games_at_meetings(r.conn, [m["id"] for m in meetings])
            tables = self._tables(r, meetings, bound, names)
            standings = [
                {"id": d["id"], "name": d["name"], "season": d["season_id"], "lines": Organiser._standings(r, d["id"])}
                for d in divisions.values()
            ]
        rounds = sorted({m["round"] for m in meetings})
        waiting = [t for t in tables.values() if t["status"] == "waiting"]
        if waiting:  # a table still to start says who the players' ratings favour, where they know anyone
            rated = self.ratings.of(v["league_id"])
            for t in waiting:
                ns, ew = pairs.get(t["team_ids"]["NS"], []), pairs.get(t["team_ids"]["EW"], [])
                shares = rated.shares(ns, ew)
                if shares is not None:
                    t["chance"] = {"NS": shares[0], "EW": shares[1]}
        for t in tables.values():
            t.pop("team_ids", None)
        return {
            "venue": {"id": v["id"], "name": v["name"], "tables": v["tables"]},
            "night": night,
            "night_words": night_words(night),
            "rounds": rounds,
            "tables": [tables[n] for n in sorted(tables)],
            "meetings": [_meeting(m, names, bound) for m in meetings],
            "standings": standings,
        }

    def _tables(
        self, r: Reader, meetings: list[dict[str, Any]], bound: list[dict[str, Any]], names: dict[int, str]
    ) -> dict[int, dict[str, Any]]:
        """Each table with something to show, by its number: the latest game its kiosk is playing for
        one of tonight's meetings, else a meeting set at that table that has not started."""
        by_id = {m["id"]: m for m in meetings}
        latest: dict[int, dict[str, Any]] = {}
        for g in bound:  # oldest first: a kiosk's later game takes its table's place
            latest[g["table_number"]] = g
        tables: dict[int, dict[str, Any]] = {}
        for number, g in latest.items():
            m = by_id[g["meeting_id"]]
            ns_team = g["ns_team"] if g["ns_team"] is not None else m["team_a"]
            ew_team = m["team_b"] if ns_team == m["team_a"] else m["team_a"]
            state = self._fold(r, g)
            seats = {"NS": names.get(ns_team, "?"), "EW": names.get(ew_team, "?")}
            # The meeting's game this is, among those that count: a game that counts for nobody (one
            # abandoned) leaves its place to the next, so "game 3 of 2" is never said.
            counting = sum(x["outcome"] is not None for x in r.games(m["id"]))
            of = _games_per_meeting(r, m["division_id"])
            games_here = min(counting if g["league_game"] is not None else counting + 1, of)
            view = {"table": number, "meeting": m["id"], "game": games_here, "of": of, "live": state is not None}
            if state is None:
                view |= {"teams": seats, "status": "checking"}
            else:
                view |= table_view(state, seats)
            tables[number] = view
        started = {g["meeting_id"] for g in bound}
        for m in meetings:
            n = m["table_number"]
            if n is not None and n not in tables and m["id"] not in started:
                teams = {"NS": names.get(m["team_a"], "?"), "EW": names.get(m["team_b"], "?")}
                tables[n] = {"table": n, "meeting": m["id"], "live": False, "teams": teams, "status": "waiting"}
                tables[n]["team_ids"] = {"NS": m["team_a"], "EW": m["team_b"]}
                if m["forfeit_team"] is not None:
                    tables[n]["status"] = "forfeited"
        return tables

    def _fold(self, r: Reader, g: dict[str, Any]) -> GameState | None:
        key = (g["kiosk_id"], g["game"])
        with self._lock:
            kept = self._folded.get(key)
        if kept is not None and kept.held == g["held"]:
            return kept.state
        stored = ks.game_events(r.conn, *key)  # all of them: how many the league holds keeps the fold
        applied = [event_of(g["game"], json.loads(s["event"])) for s in stored if s["quarantined"] is None]
        try:
            state = GameState.from_events(applied) if applied else None
        except FOLD_ERRORS:
            state = None  # cannot happen for events accepted one by one; the card says so rather than fail
        with self._lock:
            if len(self._folded) >= KEPT_FOLDS:
                self._folded.clear()  # a new night: the old nights' games are not asked for again
            self._folded[key] = Folded(len(stored), state)
        return state


def _games_per_meeting(r: Reader, division: int) -> int:
    return Organiser._settings_of_division(r, division).games_per_meeting


def _meeting(m: dict[str, Any], names: dict[int, str], bound: list[dict[str, Any]]) -> dict[str, Any]:
    """One of tonight's meetings: its teams, the table it is set at or played at, games started."""
    at = sorted({g["table_number"] for g in bound if g["meeting_id"] == m["id"]})
    return {
        "id": m["id"],
        "a": names.get(m["team_a"], "?"),
        "b": names.get(m["team_b"], "?"),
        "tables": at or ([m["table_number"]] if m["table_number"] is not None else []),
        "started": bool(at),
        "forfeited": m["forfeit_team"] is not None,
    }
