"""The playoffs of a division: a single-elimination bracket seeded from the standings.

Pure: teams are ids; the store keeps what this returns. The bracket is the usual one: its size is the
next power of two, seeds placed so that 1 meets N, 2 meets N-1, and so on in the first round, and the
two best seeds can meet only in the final (1 and 2 in different halves, 1 to 4 in different quarters).
When N is not a power of two the top seeds have byes: their first-round opponent would be a seed
beyond N, so they go straight into the second round. N teams play N-1 matches.

Who wins a match: the team that won more of the meeting's games (a tie counting half); level on that,
the team with more game points in the meeting's counted games; level on that too, the higher seed.
A forfeited meeting goes to the other team. A match is decided once the meeting has all its games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from league.organiser.season import LeagueRefused
from league.organiser.standings import TIE, A, Result

FEWEST_TEAMS, MOST_TEAMS = 2, 32


def bracket_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) from top to bottom; neighbours meet first.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for seed in order for x in (seed, n + 1 - seed)]  # each seed meets its mirror
    return order


@dataclass(frozen=True)
class Side:
    """Who plays on one side of a match: a seed from the start (round 1, or after a bye), or the winner of
    an earlier match (its index in ``Bracket.matches``)."""

    seed: int | None = None
    winner_of: int | None = None


@dataclass(frozen=True)
class Match:
    round: int  # 1 = the first round; the last round is the final
    slot: int  # top of the bracket first, 0-based within the round
    a: Side
    b: Side
    next: int | None  # the match the winner goes on to (its index); None for the final
    next_side: str | None  # "a" or "b" there


@dataclass(frozen=True)
class Bracket:
    teams: tuple[int, ...]  # seeded: teams[0] is seed 1
    matches: tuple[Match, ...]  # round by round, each round from the top of the bracket

    @property
    def rounds(self) -> int:
        return self.matches[-1].round

    def byes(self) -> tuple[int, ...]:
        """The seeds who go straight into the second round, best first."""
        return tuple(sorted(s.seed for m in self.matches if m.round == 2 for s in (m.a, m.b) if s.seed is not None))

    def entrants(self, match: int, winners: Mapping[int, int]) -> tuple[int | None, int | None]:
        """The teams of a match, given the winners decided so far (match index to team); None: not known yet."""
        m = self.matches[match]
        return self._team(m.a, winners), self._team(m.b, winners)

    def _team(self, side: Side, winners: Mapping[int, int]) -> int | None:
        if side.seed is not None:
            return self.teams[side.seed - 1]
        assert side.winner_of is not None
        return winners.get(side.winner_of)

    def seed_of(self, team: int) -> int:
        return self.teams.index(team) + 1


def check_teams(teams: int) -> None:
    """Refuses a number of teams no bracket is made for."""
    if isinstance(teams, bool) or not isinstance(teams, int) or not FEWEST_TEAMS <= teams <= MOST_TEAMS:
        raise LeagueRefused(f"playoffs: from {FEWEST_TEAMS} to {MOST_TEAMS} teams, not {teams!r}")


def make_bracket(seeded: Sequence[int], teams: int) -> Bracket:
    """The bracket of the first ``teams`` of ``seeded`` (team ids in standings order)."""
    check_teams(teams)
    if len(set(seeded)) != len(seeded):
        raise LeagueRefused("playoffs: a team is seeded twice")
    if teams > len(seeded):
        raise LeagueRefused(f"playoffs: the division has {len(seeded)} teams, so at most {len(seeded)} can play")
    size = 1
    while size < teams:
        size *= 2
    order = bracket_order(size)
    matches: list[Match] = []
    # The first round's pairs: a seed beyond ``teams`` is nobody, and its opponent has a bye.
    field: list[Side] = []
    for i in range(0, size, 2):
        top, bottom = order[i], order[i + 1]
        if bottom > teams:
            field.append(Side(seed=top))
        else:
            field.append(Side(winner_of=len(matches)))
            matches.append(Match(1, len(matches), Side(seed=top), Side(seed=bottom), None, None))
    goes_to: dict[int, tuple[int, str]] = {}  # a match's index: where its winner plays next
    round_ = 2
    while len(field) > 1:
        paired: list[Side] = []
        for slot in range(len(field) // 2):
            index = len(matches)
            a, b = field[2 * slot], field[2 * slot + 1]
            matches.append(Match(round_, slot, a, b, None, None))
            for feeder, name in ((a, "a"), (b, "b")):
                if feeder.winner_of is not None:
                    goes_to[feeder.winner_of] = (index, name)
            paired.append(Side(winner_of=index))
        field = paired
        round_ += 1
    for i, (to, name) in goes_to.items():
        matches[i] = replace(matches[i], next=to, next_side=name)
    return Bracket(tuple(seeded[:teams]), tuple(matches))


def round_name(round_: int, rounds: int) -> str:
    """What players call a round: the final, the semi-finals, the quarter-finals, else its number."""
    from_last = rounds - round_
    return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(from_last, f"Round {round_}")


def match_label(round_: int, rounds: int, slot: int) -> str:
    """A match's name on the bracket: "Final", "Semi-final 2", "Quarter-final 1", "Round 1, match 3"."""
    name = round_name(round_, rounds)
    if name == "Final":
        return name
    if name.endswith("-finals"):
        return f"{name.removesuffix('s')} {slot + 1}"
    return f"{name}, match {slot + 1}"


def meeting_winner(
    a: int,
    b: int,
    games: Sequence[Result],
    games_per_meeting: int,
    seeds: Mapping[int, int],
    forfeited_by: int | None = None,
) -> int | None:
    """The team that goes through from a playoff meeting, or None while it has games still to play.

    More games won (a tie half each; an abandoned game counts for nobody), then more game points in the
    counted games, then the higher seed (the smaller number in ``seeds``).
    """
    if forfeited_by is not None:
        return b if forfeited_by == a else a
    if len(games) < games_per_meeting:
        return None
    wins = {a: Fraction(0), b: Fraction(0)}
    points = {a: 0, b: 0}
    for g in games:
        if g.outcome is None:
            continue
        points[a] += g.points_a
        points[b] += g.points_b
        if g.outcome == TIE:
            wins[a] += Fraction(1, 2)
            wins[b] += Fraction(1, 2)
        else:
            wins[a if g.outcome == A else b] += 1
    return min((a, b), key=lambda t: (-wins[t], -points[t], seeds[t]))
