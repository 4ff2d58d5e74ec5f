"""The standings of a division: one line a team, ordered by the season's ranking and tie-breakers, each
line saying which tie-breaker (if any) put it below the team above.

Pure: ``standings`` counts the lines from the results; ``rank`` orders lines counted elsewhere (the
store sums them in SQL), asking for the games among a group of teams only when head-to-head must
split them. A tied game counts half a win to each team; an abandoned game counts for nobody (no game
played, no points) unless the organiser ruled its result; a forfeited game is a win for the other
team, with no game points either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

A, B, TIE = "a", "b", "tie"


@dataclass(frozen=True)
class Result:
    """One game of a meeting as it counts: ``outcome`` is a, b, tie, or None when it counts for nobody."""

    a: int
    b: int
    points_a: int
    points_b: int
    outcome: str | None


@dataclass
class Line:
    team: int
    name: str
    played: int = 0
    won: int = 0
    lost: int = 0
    tied: int = 0
    points_for: int = 0
    points_against: int = 0
    position: int = 0
    decided_by: str | None = None  # the tie-breaker that put this team below the one above it
    head_to_head: Fraction | None = None  # games won among the teams level with it, where that was counted

    @property
    def wins(self) -> Fraction:
        """Games won, a tie counting half."""
        return self.won + Fraction(self.tied, 2)

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["wins"] = float(self.wins)
        out["difference"] = self.difference
        out["head_to_head"] = None if self.head_to_head is None else float(self.head_to_head)
        return out


def _stat(line: Line, key: str) -> Fraction | int:
    if key == "games_won":
        return line.wins
    if key == "game_points":
        return line.points_for
    if key == "point_difference":
        return line.difference
    raise ValueError(f"unknown tie-breaker {key!r}")


def _head_to_head(group: Sequence[int], results: Sequence[Result]) -> dict[int, Fraction]:
    """Games won by each team of the group in the games among themselves only."""
    inside = set(group)
    wins = {t: Fraction(0) for t in group}
    for r in results:
        if r.a in inside and r.b in inside and r.outcome is not None:
            if r.outcome == TIE:
                wins[r.a] += Fraction(1, 2)
                wins[r.b] += Fraction(1, 2)
            else:
                wins[r.a if r.outcome == A else r.b] += 1
    return wins


Among = Callable[[Sequence[int]], Iterable[Result]]
"""The counted results of the games between teams of a group (more may come: they are filtered)."""


def _order(group: list[int], keys: Sequence[str], lines: dict[int, Line], among: Among) -> list[tuple[int, str | None]]:
    """The group in order, each team with the key that put it below the team before it (None for the
    first, and for a team level with the one before on everything: they share a place)."""
    if len(group) <= 1 or not keys:
        return [(t, None) for t in sorted(group, key=lambda t: (lines[t].name.casefold(), t))]
    key, rest = keys[0], keys[1:]
    if key == "head_to_head":
        h2h = _head_to_head(group, list(among(group)))
        for t in group:
            lines[t].head_to_head = h2h[t]
        value: dict[int, Fraction | int] = dict(h2h)
    else:
        value = {t: _stat(lines[t], key) for t in group}
    level: dict[Fraction | int, list[int]] = {}  # one pass, not one a value: 200 teams may have 200 values
    for t in group:
        level.setdefault(value[t], []).append(t)
    out: list[tuple[int, str | None]] = []
    for v in sorted(level, reverse=True):
        block = _order(level[v], rest, lines, among)
        if out:
            block[0] = (block[0][0], key)
        out += block
    return out


def tally(teams: dict[int, str], results: Iterable[Result]) -> tuple[dict[int, Line], list[Result]]:
    """Each team's line counted from the results, and the results that count (between two of the
    teams, not abandoned)."""
    lines = {t: Line(t, name) for t, name in teams.items()}
    counted = [r for r in results if r.outcome is not None and r.a in lines and r.b in lines]
    for r in counted:
        a, b = lines[r.a], lines[r.b]
        for line, own, other, won, lost in ((a, r.points_a, r.points_b, A, B), (b, r.points_b, r.points_a, B, A)):
            line.played += 1
            line.points_for += own
            line.points_against += other
            if r.outcome == TIE:
                line.tied += 1
            elif r.outcome == won:
                line.won += 1
            elif r.outcome == lost:
                line.lost += 1
    return lines, counted


def rank(
    lines: dict[int, Line], among: Among, ranking: str = "games_won", tie_breakers: Sequence[str] = ()
) -> list[Line]:
    """The lines in order, each with its position; teams level on everything share a position.
    ``among`` is asked for the games between the teams of a group only when head-to-head must split it."""
    keys = [ranking, *(k for k in tie_breakers if k != ranking)]
    ordered: list[Line] = []
    for t, key in _order(list(lines), keys, lines, among):
        line = lines[t]
        line.position = ordered[-1].position if ordered and key is None else len(ordered) + 1
        line.decided_by = key if key != ranking else None
        ordered.append(line)
    return ordered


def standings(
    teams: dict[int, str], results: Iterable[Result], ranking: str = "games_won", tie_breakers: Sequence[str] = ()
) -> list[Line]:
    """The table: each team's line, in order; teams level on everything share a position."""
    lines, counted = tally(teams, results)
    return rank(lines, lambda _group: counted, ranking, tie_breakers)
