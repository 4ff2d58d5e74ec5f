"""A game: the score sheet, its running totals, the end at the target, and the next dealer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalEntryError
from engine.hand import Hand
from engine.rules import Rules
from engine.scoring import HandScore, score_hand
from engine.seats import EW, NS, Seat, Team, team_name

TIE = "tie"


@dataclass(frozen=True)
class Outcome:
    """How a game stands: still in play, won by a team, or tied at the target.

    >>> Outcome(over=True, winner=Team.EW)
    Outcome('EW won')
    >>> Outcome(over=True).tie
    True
    """

    over: bool = False
    winner: Team | None = None  # None while in play, or when tied

    @property
    def tie(self) -> bool:
        """Over with equal totals and no winner."""
        return self.over and self.winner is None

    def to_json(self) -> str | None:
        """The record's ``winner``: the team's name, ``"tie"``, or None while in play."""
        if not self.over:
            return None
        return TIE if self.winner is None else team_name(self.winner)

    def __str__(self) -> str:
        return "in play" if not self.over else "a tie" if self.winner is None else f"{team_name(self.winner)} won"

    def __repr__(self) -> str:
        return f"Outcome({str(self)!r})"


IN_PLAY = Outcome()


@dataclass(frozen=True)
class Row:
    """One line of the sheet."""

    number: int  # 1-based
    dealer: Seat
    rules_dealer: Seat | None  # who the rules said should deal (None for the first hand)
    score: HandScore
    totals: tuple[int, int]  # running totals after this hand


@dataclass(frozen=True)
class Sheet:
    """The score sheet of a game so far."""

    rows: tuple[Row, ...]
    totals: tuple[int, int]
    outcome: Outcome
    next_dealer: Seat | None

    @property
    def over(self) -> bool:
        """The game has ended: won or tied."""
        return self.outcome.over

    @property
    def winner(self) -> Team | None:
        """The team that won, or None (in play, or a tie)."""
        return self.outcome.winner


def outcome(totals: tuple[int, int], makers: Team | None, rules: Rules) -> Outcome:
    """How the game stands after a hand with these running totals, made by ``makers`` (None: nobody
    named trump)."""
    reached = [t >= rules.target for t in totals]
    if not any(reached):
        return IN_PLAY
    if all(reached) and rules.both_reach_target == "makers_first" and makers is not None:
        return Outcome(True, makers)
    if totals[0] == totals[1]:
        return Outcome(True) if rules.tie_at_target == "tie" else IN_PLAY
    return Outcome(True, NS if totals[0] > totals[1] else EW)


def winners_at(totals: tuple[int, int], rules: Rules) -> set[Team | None]:
    """Who can have won a game that ended at these totals (None: tied), whichever team made its last
    hand: what a result written by hand may say.

    >>> winners_at((512, 300), Rules()), winners_at((300, 512), Rules()), winners_at((512, 512), Rules())
    ({NS}, {EW}, {None})
    >>> sorted(winners_at((506, 512), Rules(both_reach_target="makers_first")))
    [NS, EW]
    """
    return {o.winner for makers in (None, NS, EW) if (o := outcome(totals, makers, rules)).over}


def add_hand(s: Sheet, hand: Hand, rules: Rules, where: str = "") -> Sheet:
    """The sheet with one more finished hand; a hand after the end is refused."""
    if s.over:
        raise IllegalEntryError(f"the game was over after hand {len(s.rows)}", where)
    problems = hand.status()
    if problems:
        raise IllegalEntryError(problems).at(where)
    score = score_hand(hand, rules)
    totals = (s.totals[0] + score.score[0], s.totals[1] + score.score[1])
    row = Row(len(s.rows) + 1, hand.dealer, s.next_dealer, score, totals)
    result = outcome(totals, score.makers, rules)
    return Sheet((*s.rows, row), totals, result, None if result.over else score.next_dealer)


def sheet(hands: Sequence[Hand], rules: Rules, first_dealer: Seat | None = None) -> Sheet:
    """The sheet of a game's finished hands, in order; a hand after the end is refused.

    >>> from engine.hand import Hand
    >>> hands = [Hand("N").name_trump("S", "E").announce("E", "AS KS QS").trick_points(0, 162)] * 3
    >>> s = sheet(hands, Rules(), first_dealer=Seat.N)
    >>> s.totals, s.outcome
    ((0, 606), Outcome('EW won'))
    """
    s = Sheet((), (0, 0), IN_PLAY, first_dealer)
    for i, hand in enumerate(hands):
        s = add_hand(s, hand, rules, f"hands[{i}]")
    return s
