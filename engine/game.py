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
    over, winner = outcome(totals, score, rules)
    return Sheet((*s.rows, row), totals, over, winner, None if over else score.next_dealer)


def sheet(hands: Sequence[Hand], rules: Rules, first_dealer: Seat | None = None) -> Sheet:
    """The sheet of a game's finished hands, in order; a hand after the end is refused."""
    s = Sheet((), (0, 0), False, None, first_dealer)
    for i, hand in enumerate(hands):
        s = add_hand(s, hand, rules, f"hands[{i}]")
    return s
