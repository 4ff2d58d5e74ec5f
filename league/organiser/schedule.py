"""The schedule of a division: a round robin by the circle method, dated rounds, venues balanced.

Pure: teams and venues are ids; the store keeps what this returns.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from league.organiser.season import LeagueRefused

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
    check_venues(venues, len(teams) // 2)
    if every_days < 1:
        raise LeagueRefused("rounds must be at least one day apart")
    rounds = pairings(teams, double)
    places = spread_venues([sum(1 for _a, b in pairs if b is not None) for pairs in rounds], venues)
    out: list[Round] = []
    for r, (pairs, where) in enumerate(zip(rounds, places, strict=True)):
        played = iter(where)
        meetings = tuple(Meeting(a, b, next(played)) if b is not None else Meeting(a, None) for a, b in pairs)
        out.append(Round(r + 1, start + dt.timedelta(days=every_days * r), meetings))
    return out


def check_venues(venues: dict[int, int], most: int) -> None:
    """Refuses venues that cannot hold a round of ``most`` meetings."""
    if not venues:
        raise LeagueRefused("a schedule needs at least one venue")
    if any(t < 1 for t in venues.values()):
        raise LeagueRefused("every venue needs at least one table")
    tables = sum(venues.values())
    if most > tables:
        raise LeagueRefused(f"a round has {most} meetings but the venues have only {tables} tables between them")


def spread_venues(per_round: Sequence[int], venues: dict[int, int]) -> list[list[int]]:
    """The venue of each meeting, round by round, for rounds of ``per_round`` meetings.

    Each round spreads its meetings over the venues (a venue never gets more meetings than tables),
    and over all the rounds each venue hosts as many meetings as any other, give or take one.
    """
    check_venues(venues, max(per_round, default=0))
    order = sorted(venues)
    season_load: Counter[int] = Counter()
    out: list[list[int]] = []
    for count in per_round:
        round_load: Counter[int] = Counter()
        places: list[int] = []
        for _ in range(count):
            free = [v for v in order if round_load[v] < venues[v]]
            venue = min(free, key=lambda v: (round_load[v], season_load[v], order.index(v)))
            round_load[venue] += 1
            season_load[venue] += 1
            places.append(venue)
        out.append(places)
    return out
