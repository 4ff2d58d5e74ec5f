"""A game: the score sheet, its running totals, the end at the target, and the next dealer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalEntryError
from engine.hand import Hand
from engine.rules import Rules
from engine.scoring import HandScore, score_hand
from engine.seats import Seat, Team

TIE = "tie"


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
    over: bool
    winner: Team | str | None  # a team, TIE, or None while the game goes on
    next_dealer: Seat | None


def outcome(totals: tuple[int, int], last: HandScore, rules: Rules) -> tuple[bool, Team | str | None]:
    """Whether the game is over after a hand with these running totals, and who won."""
    reached = [t >= rules.target for t in totals]
    if not any(reached):
        return False, None
    if all(reached) and rules.both_reach_target == "makers_first" and last.makers is not None:
        return True, last.makers
    if totals[0] == totals[1]:
        return (True, TIE) if rules.tie_at_target == "tie" else (False, None)
    return True, 0 if totals[0] > totals[1] else 1


def sheet(hands: Sequence[Hand], rules: Rules, first_dealer: Seat | None = None) -> Sheet:
    """The sheet of a game's finished hands, in order; a hand after the end is refused."""
    rows: list[Row] = []
    totals = (0, 0)
    over, winner = False, None
    expected = first_dealer
    for i, hand in enumerate(hands):
        if over:
            raise IllegalEntryError(f"the game was over after hand {i}", f"hands[{i}]")
        problems = hand.status()
        if problems:
            raise IllegalEntryError(problems).at(f"hands[{i}]")
        s = score_hand(hand, rules)
        totals = (totals[0] + s.score[0], totals[1] + s.score[1])
        rows.append(Row(i + 1, hand.dealer, expected, s, totals))
        over, winner = outcome(totals, s, rules)
        expected = s.next_dealer
    return Sheet(tuple(rows), totals, over, winner, None if over else expected)
