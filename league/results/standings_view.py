"""What the standings pages show of a division: each line with the columns of the season's ranking
and tie-breakers, the team's form, a note for each place a tie-breaker decided, the race over the
rounds; and a team's own figures: its form, its points game by game, its players' hands as makers."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from typing import Any

from engine.seats import SEAT_NAMES
from league.organiser.actions import Organiser
from league.organiser.season import SeasonSettings
from league.organiser.standings import Line
from league.results.history import form, played, race
from league.store import kiosks as ks
from league.store.core import Reader
from shared.events import event_of
from shared.game_state import FOLD_ERRORS, GameState

WORDS = {
    "games_won": "games won",
    "game_points": "game points",
    "point_difference": "point difference",
    "head_to_head": "head to head",
}


def halves(x: Fraction | float | int | None) -> str:
    """A number of games, a tie counting half: 2, 2½, ½."""
    if x is None:
        return ""
    whole, half = divmod(Fraction(x) * 2, 2)
    return f"{int(whole) or ''}½" if half else str(int(whole))


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n).replace("-", "−")


def figure(line: Line, key: str) -> str:
    """A line's figure for a ranking key, as the note says it."""
    if key == "games_won":
        return halves(line.wins)
    if key == "game_points":
        return str(line.points_for)
    if key == "point_difference":
        return signed(line.difference)
    return halves(line.head_to_head)


def notes(lines: list[Line]) -> list[str]:
    """For each place a tie-breaker decided: who is above whom, on what, with both figures."""
    out = []
    for above, line in itertools.pairwise(lines):
        key = line.decided_by
        if key is None:
            continue
        among = " among the teams level" if key == "head_to_head" else ""
        out.append(
            f"{above.name} above {line.name} on {WORDS.get(key, key)} "
            f"({figure(above, key)} to {figure(line, key)}{among})."
        )
    return out


def columns(settings: SeasonSettings, lines: list[Line]) -> dict[str, bool]:
    """Which columns beyond played, won, lost, tied and the points the season's standings need."""
    keys = {settings.ranking, *settings.tie_breakers}
    return {
        "wins": "games_won" in keys and any(x.tied for x in lines),  # W alone says it when no game was tied
        "head_to_head": "head_to_head" in keys,
    }


def division_view(r: Reader, division: dict[str, Any], settings: SeasonSettings) -> dict[str, Any]:
    """A division's standings as the season page shows them."""
    lines = Organiser._standings(r, division["id"])
    history = played(r, division["id"], settings.games_per_meeting)
    rows = [
        {
            "line": x,
            "wins": halves(x.wins),
            "difference": signed(x.difference),
            "head_to_head": halves(x.head_to_head),
            "form": form(history, x.team),
        }
        for x in lines
    ]
    return {
        "id": division["id"],
        "name": division["name"],
        "rows": rows,
        "notes": notes(lines),
        "columns": columns(settings, lines),
        "raced": len({p.round for p in history}) >= 1,
    }


def race_of(r: Reader, division: int, settings: SeasonSettings) -> dict[str, Any]:
    """The standings after each round, by team name, for the race chart."""
    teams = {t["id"]: t["name"] for t in r.teams(division)}
    history = played(r, division, settings.games_per_meeting)
    run = race(history, teams, settings.ranking, settings.tie_breakers)
    # Ordered as the standings are now, so the legend reads as the table does.
    now = Organiser._standings(r, division)
    return {
        "rounds": run["rounds"],
        "positions": {x.name: run["positions"][x.team] for x in now},
        "teams": len(teams),
    }


def team_games(r: Reader, team: int) -> list[dict[str, Any]]:
    """The team's round-robin and playoff games that count, oldest first: round, game number, its
    points and its opponents', and where it was played at a kiosk, which kiosk game."""
    t = r.team(team)
    assert t is not None
    out = []
    for m in r.meetings(t["division_id"]):
        if team not in (m["team_a"], m["team_b"]) or m["team_b"] is None:
            continue
        ours = "a" if m["team_a"] == team else "b"
        for g in r.games(m["id"]):
            if g["outcome"] is None:
                continue
            out.append(
                {
                    "night": m["date"] or m["round_date"],
                    "round": m["round"],
                    "number": g["number"],
                    "label": f"R{m['round']}" + (f"·{g['number']}" if g["number"] > 1 else ""),
                    "scored": g["points_a"] if ours == "a" else g["points_b"],
                    "conceded": g["points_b"] if ours == "a" else g["points_a"],
                    "kiosk": (g["kiosk_id"], g["kiosk_game"]) if g["kiosk_id"] is not None else None,
                }
            )
    return sorted(out, key=lambda g: (g["night"], g["round"], g["number"]))


def make_rates(r: Reader, team: int) -> dict[str, Any]:
    """Each of the team's players' hands as maker in its games played at a kiosk, and how many they
    made good: the rate so far after each game (None until they first made trump)."""
    labels: list[str] = []
    counts: dict[str, list[int]] = {}
    rates: dict[str, list[float | None]] = {}
    for g in team_games(r, team):
        if g["kiosk"] is None:
            continue
        bound, stored = ks.game_of(r.conn, *g["kiosk"])
        state = _fold(g["kiosk"][1], stored)
        if bound is None or state is None:
            continue
        seats = "NS" if bound["ns_team"] == team else "EW"
        labels.append(g["label"])
        for entry, row in zip(state.hands, state.sheet.rows, strict=True):
            maker = entry.hand.maker
            if maker is None or SEAT_NAMES[maker] not in seats:
                continue
            name = state.players.get(SEAT_NAMES[maker]) or f"{SEAT_NAMES[maker]} seat"
            made, hands = counts.setdefault(name, [0, 0])
            counts[name] = [made + (not row.score.set), hands + 1]
            rates.setdefault(name, [None] * (len(labels) - 1))
        for name, (made, hands) in counts.items():
            series = rates.setdefault(name, [None] * (len(labels) - 1))
            if len(series) < len(labels):
                series.append(round(100 * made / hands, 1) if hands else None)
    return {"labels": labels, "rates": rates, "counts": {k: tuple(v) for k, v in counts.items()}}


def _fold(game: int, stored: list[dict[str, Any]]) -> GameState | None:
    applied = []
    for s in stored:
        if s["quarantined"] is None:
            applied.append(event_of(game, json.loads(s["event"])))
    try:
        return GameState.from_events(applied) if applied else None
    except FOLD_ERRORS:
        return None
