"""The schedule of a division: a round robin by the circle method, dated rounds, venues balanced.

Pure: teams and venues are ids; the store keeps what this returns.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from league.season import LeagueRefused

MOST_TEAMS = 500


@dataclass(frozen=True)
class Meeting:
    """Team ``a`` against team ``b`` at a venue (a bye when ``b`` is None, with no venue)."""

    a: int
    b: int | None
    venue: int | None = None


@dataclass(frozen=True)
class Round:
    number: int  # 1-based
    date: dt.date
    meetings: tuple[Meeting, ...]  # byes last

    @property
    def byes(self) -> tuple[int, ...]:
        return tuple(m.a for m in self.meetings if m.b is None)


def pairings(teams: Sequence[int], double: bool = False) -> list[list[tuple[int, int | None]]]:
    """The rounds' pairs by the circle method: the first team stays, the others turn one place a round.

    With an odd number of teams a ``None`` joins, and whoever meets it has the bye. The second half of
    a double round robin repeats the first with the sides swapped.
    """
    if len(set(teams)) != len(teams):
        raise LeagueRefused("a team is named twice")
    if len(teams) < 2:
        raise LeagueRefused("a schedule needs at least two teams")
    if len(teams) > MOST_TEAMS:
        raise LeagueRefused(f"a division has at most {MOST_TEAMS} teams")
    circle: list[int | None] = list(teams) + ([None] if len(teams) % 2 else [])
    n = len(circle)
    rounds: list[list[tuple[int, int | None]]] = []
    for r in range(n - 1):
        pairs: list[tuple[int, int | None]] = []
        for i in range(n // 2):
            x, y = circle[i], circle[n - 1 - i]
            if i == 0 and r % 2:  # the fixed team alternates sides, so it is not always first
                x, y = y, x
            if x is None:
                x, y = y, None
            assert x is not None
            pairs.append((x, y))
        rounds.append(sorted(pairs, key=lambda p: p[1] is None))  # the bye last
        circle = [circle[0], circle[-1], *circle[1:-1]]
    if double:
        rounds += [[(b, a) if b is not None else (a, None) for a, b in r] for r in rounds]
    return rounds


def make_schedule(
    teams: Sequence[int],
    venues: dict[int, int],
    start: dt.date,
    every_days: int = 7,
    double: bool = False,
) -> list[Round]:
    """Dated rounds of meetings, each at a venue: ``venues`` maps a venue to its number of tables.

    Each round spreads its meetings over the venues (a venue never gets more meetings than tables),
    and over the season each venue hosts as many meetings as any other, give or take one.
    """
    if not venues:
        raise LeagueRefused("a schedule needs at least one venue")
    if every_days < 1:
        raise LeagueRefused("rounds must be at least one day apart")
    if any(t < 1 for t in venues.values()):
        raise LeagueRefused("every venue needs at least one table")
    per_round = len(teams) // 2
    if per_round > sum(venues.values()):
        raise LeagueRefused(
            f"a round has {per_round} meetings but the venues have only {sum(venues.values())} tables between them"
        )
    order = sorted(venues)
    season_load: Counter[int] = Counter()
    out: list[Round] = []
    for r, pairs in enumerate(pairings(teams, double)):
        round_load: Counter[int] = Counter()
        meetings: list[Meeting] = []
        for a, b in pairs:
            if b is None:
                meetings.append(Meeting(a, None))
                continue
            free = [v for v in order if round_load[v] < venues[v]]
            venue = min(free, key=lambda v: (round_load[v], season_load[v], order.index(v)))
            round_load[venue] += 1
            season_load[venue] += 1
            meetings.append(Meeting(a, b, venue))
        out.append(Round(r + 1, start + dt.timedelta(days=every_days * r), tuple(meetings)))
    return out
