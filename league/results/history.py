"""A division's round-robin results in the order they were played, and what follows from the order:
each team's form (its last results) and the standings after each round (the race over the weeks).

The results are the standings' own: the games that count (an abandoned game counts for nobody), and a
forfeited meeting as its games won by the other team with no points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from league.organiser.standings import TIE, A, B, Line, Result, standings
from league.store import tables as tb
from league.store.core import Reader

FORM_LENGTH = 5


@dataclass(frozen=True)
class Played:
    """A result with when it was played: its round, its night, and its place that night."""

    round: int
    night: str
    meeting: int
    number: int
    result: Result


def played(r: Reader, division: int, games_per_meeting: int) -> list[Played]:
    """The division's round-robin results, oldest first (by night, then round, meeting and game)."""
    meetings = {m["id"]: m for m in r.meetings(division) if m["stage"] == tb.ROUND_ROBIN}
    out = []
    for g in r.division_games(division, tb.ROUND_ROBIN):
        m = meetings[g["meeting_id"]]
        result = Result(g["team_a"], g["team_b"], g["points_a"], g["points_b"], g["outcome"])
        out.append(Played(m["round"], m["date"] or m["round_date"], m["id"], g["number"], result))
    for m in meetings.values():
        if m["forfeit_team"] is not None:
            won = B if m["forfeit_team"] == m["team_a"] else A
            night = m["date"] or m["round_date"]
            out += [
                Played(m["round"], night, m["id"], n, Result(m["team_a"], m["team_b"], 0, 0, won))
                for n in range(1, games_per_meeting + 1)
            ]
    return sorted(out, key=lambda p: (p.night, p.round, p.meeting, p.number))


def letter(result: Result, team: int) -> str | None:
    """W, L or T for the team in a result it played in; None when it counts for nobody."""
    if result.outcome is None or team not in (result.a, result.b):
        return None
    if result.outcome == TIE:
        return "T"
    return "W" if (result.outcome == A) == (team == result.a) else "L"


def form(history: Sequence[Played], team: int, length: int = FORM_LENGTH) -> list[str]:
    """The team's last ``length`` results as W, L or T, the newest last."""
    letters = [x for x in (letter(p.result, team) for p in history) if x is not None]
    return letters[-length:]


def race(history: Sequence[Played], teams: dict[int, str], ranking: str, tie_breakers: Sequence[str]) -> dict[str, Any]:
    """The standings after each round that has a result: ``rounds`` (their numbers), and for each
    team its ``positions`` and ``wins`` (a tie half) after each of them."""
    rounds = sorted({p.round for p in history if p.result.outcome is not None})
    positions: dict[int, list[int]] = {t: [] for t in teams}
    wins: dict[int, list[Fraction]] = {t: [] for t in teams}
    for k in rounds:
        lines: list[Line] = standings(teams, [p.result for p in history if p.round <= k], ranking, tie_breakers)
        for line in lines:
            positions[line.team].append(line.position)
            wins[line.team].append(line.wins)
    return {"rounds": rounds, "positions": positions, "wins": wins}
