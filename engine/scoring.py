"""Scoring a hand: trick points, melds and bell, the set, reneges, and who deals next."""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import POINTS_IN_HAND
from engine.hand import Hand, Renege
from engine.melds import BELL_POINTS, meld_winner
from engine.rules import Rules
from engine.seats import TEAMS, Seat, Team, left_of, other, team_of

Pair = tuple[int, int]


@dataclass(frozen=True)
class HandScore:
    """What a finished hand puts on the sheet, and why."""

    passed_out: bool
    misdeal: bool
    makers: Team | None
    tricks: Pair  # card points in tricks, last trick included
    melds: Pair  # melds that scored, bell apart
    bell: Pair
    totals: Pair  # before the set rule
    score: Pair  # what goes on the sheet
    set: bool
    meld_winner: Team | None
    renege: Renege | None  # the first renege
    void: bool  # both teams reneged: nothing scored, the same dealer deals again
    next_dealer: Seat

    @property
    def marks(self) -> tuple[str, str]:
        """``XX`` for set makers, ``-`` for a team that scored 0 otherwise, else empty."""
        if self.passed_out or self.void or self.misdeal:
            return ("", "")
        return tuple(  # type: ignore[return-value]
            "XX" if self.set and t == self.makers else "-" if self.score[t] == 0 else "" for t in TEAMS
        )

    @property
    def in_play(self) -> int:
        """The check column: what the two scores must add up to."""
        return self.score[0] + self.score[1]


def _pair(values: dict[Team, int]) -> Pair:
    return (values.get(0, 0), values.get(1, 0))


def next_dealer(dealer: Seat, rules: Rules, *, passed_out: bool = False, redeal: bool = False) -> Seat:
    """Who deals the next hand: the same dealer after a misdeal or void hand, the variant's
    choice after a pass-out, else the player to the dealer's left."""
    if redeal or (passed_out and rules.pass_out_deal == "same"):
        return dealer
    return left_of(dealer)


def score_hand(hand: Hand, rules: Rules) -> HandScore:
    """The score of a finished hand (check ``hand.status()`` first)."""
    zero = (0, 0)
    if hand.misdeal is not None or hand.passed_out:
        return HandScore(
            hand.passed_out,
            hand.misdeal is not None,
            None,
            zero,
            zero,
            zero,
            zero,
            zero,
            False,
            None,
            None,
            False,
            next_dealer(hand.dealer, rules, passed_out=hand.passed_out, redeal=hand.misdeal is not None),
        )
    trump = hand.trump
    bell_seat = hand.bell_seat()
    bell = _pair({team_of(bell_seat): BELL_POINTS} if bell_seat is not None else {})
    by_team = [[m for s in (t, t + 2) for m in hand.melds[s]] for t in TEAMS]
    tricks = hand.trick_points_by_team()
    reneges = hand.reneges()
    if reneges:
        first = reneges[0]
        if len({r.team for r in reneges}) == 2:
            return HandScore(
                False,
                False,
                hand.makers,
                tricks,
                zero,
                zero,
                zero,
                zero,
                False,
                None,
                first,
                True,
                next_dealer(hand.dealer, rules, redeal=True),
            )
        # One team reneged: the other scores 162 plus all it announced, bell included.
        winner = other(first.team)
        melds = _pair({winner: sum(m.points for m in by_team[winner])})
        bell = _pair({winner: bell[winner]})
        totals = _pair({winner: POINTS_IN_HAND + melds[winner] + bell[winner]})
        return HandScore(
            False,
            False,
            hand.makers,
            tricks,
            melds,
            bell,
            totals,
            totals,
            False,
            winner if melds[winner] else None,
            first,
            False,
            next_dealer(hand.dealer, rules),
        )
    winner = meld_winner(by_team, trump)
    melds = _pair({winner: sum(m.points for m in by_team[winner])} if winner is not None else {})
    totals = (tricks[0] + melds[0] + bell[0], tricks[1] + melds[1] + bell[1])
    makers = hand.makers
    assert makers is not None
    is_set = totals[makers] <= totals[other(makers)]  # a tie sets the makers
    score = _pair({other(makers): totals[other(makers)]}) if is_set else totals
    return HandScore(
        False,
        False,
        makers,
        tricks,
        melds,
        bell,
        totals,
        score,
        is_set,
        winner,
        None,
        False,
        next_dealer(hand.dealer, rules),
    )
