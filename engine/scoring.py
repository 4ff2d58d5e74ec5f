"""Scoring a hand: trick points, melds and bell, the set, reneges, and who deals next."""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import POINTS_IN_HAND
from engine.hand import Hand, Renege
from engine.melds import BELL_POINTS, FOUR_JACKS_POINTS, FOUR_POINTS, Meld, meld_winner
from engine.rules import Rules
from engine.seats import EW, NS, TEAMS, Seat, Team, left_of, other, team_of

Pair = tuple[int, int]

# The most one team can score in a hand: every card point, the bell, and the melds of both its seats.
# Six cards hold at most one four of a kind (or a sequence, worth less); only one seat's can be jacks.
MOST_IN_A_HAND = POINTS_IN_HAND + BELL_POINTS + FOUR_JACKS_POINTS + FOUR_POINTS


@dataclass(frozen=True)
class HandScore:
    """What a finished hand puts on the sheet, and why."""

    next_dealer: Seat
    makers: Team | None = None
    tricks: Pair = (0, 0)  # card points in tricks, last trick included
    melds: Pair = (0, 0)  # melds that scored, bell apart
    bell: Pair = (0, 0)
    totals: Pair = (0, 0)  # before the set rule
    score: Pair = (0, 0)  # what goes on the sheet
    set: bool = False
    meld_winner: Team | None = None
    renege: Renege | None = None  # the first renege
    void: bool = False  # both teams reneged: nothing scored, the same dealer deals again
    passed_out: bool = False
    misdeal: bool = False

    @property
    def marks(self) -> tuple[str, str]:
        """``XX`` for set makers, ``-`` for a team that scored 0 otherwise, else empty."""
        if self.passed_out or self.void or self.misdeal:
            return ("", "")
        ns, ew = ("XX" if self.set and t == self.makers else "-" if self.score[t] == 0 else "" for t in TEAMS)
        return ns, ew

    @property
    def in_play(self) -> int:
        """The check column: what the two scores must add up to."""
        return self.score[0] + self.score[1]


def _pair(values: dict[Team, int]) -> Pair:
    return (values.get(NS, 0), values.get(EW, 0))


def next_dealer(dealer: Seat, rules: Rules, *, passed_out: bool = False, redeal: bool = False) -> Seat:
    """Who deals the next hand: the same dealer after a misdeal or void hand, the variant's
    choice after a pass-out, else the player to the dealer's left."""
    if redeal or (passed_out and rules.pass_out_deal == "same"):
        return dealer
    return left_of(dealer)


def score_hand(hand: Hand, rules: Rules) -> HandScore:
    """The score of a finished hand (check ``hand.status()`` first).

    A tie sets the makers: their opponents score their own points, the makers nothing.

    >>> from engine.hand import Hand
    >>> from engine.rules import Rules
    >>> s = score_hand(Hand("N").name_trump("S", "E").trick_points(80, 82), Rules())
    >>> s.score, s.set, s.marks
    ((80, 82), False, ('', ''))
    """
    if hand.misdeal is not None or hand.passed_out:
        redeal = hand.misdeal is not None
        return HandScore(
            next_dealer(hand.dealer, rules, passed_out=hand.passed_out, redeal=redeal),
            passed_out=hand.passed_out,
            misdeal=redeal,
        )
    tricks = hand.trick_points_by_team()
    reneges = hand.reneges()
    if reneges:
        bell, by_team = _melds_and_bell(hand)
        first = reneges[0]
        if len({r.team for r in reneges}) == 2:
            redo = next_dealer(hand.dealer, rules, redeal=True)
            return HandScore(redo, hand.makers, tricks, renege=first, void=True)
        # One team reneged: the other scores 162 plus all it announced, bell included.
        winner = other(first.team)
        melds = _pair({winner: sum(m.points for m in by_team[winner])})
        bell = _pair({winner: bell[winner]})
        totals = _pair({winner: POINTS_IN_HAND + melds[winner] + bell[winner]})
        return HandScore(
            next_dealer(hand.dealer, rules),
            hand.makers,
            tricks,
            melds,
            bell,
            totals,
            totals,
            meld_winner=winner if melds[winner] else None,
            renege=first,
        )
    return score_tricks(hand, tricks, rules)


def score_tricks(hand: Hand, tricks: Pair, rules: Rules) -> HandScore:
    """The score of a hand whose tricks came to ``tricks`` (card points, last trick included), with its
    melds and bell and no renege: a hand played out, or the same hand played another way (hindsight's
    best play)."""
    bell, by_team = _melds_and_bell(hand)
    scorer = meld_winner(by_team, hand.trump)
    melds = _pair({scorer: sum(m.points for m in by_team[scorer])} if scorer is not None else {})
    totals = (tricks[0] + melds[0] + bell[0], tricks[1] + melds[1] + bell[1])
    makers = hand.makers
    assert makers is not None, "a hand is scored once trump is named (its status() is empty)"
    is_set = totals[makers] <= totals[other(makers)]  # a tie sets the makers
    score = _pair({other(makers): totals[other(makers)]}) if is_set else totals
    return HandScore(
        next_dealer(hand.dealer, rules), makers, tricks, melds, bell, totals, score, is_set, meld_winner=scorer
    )


def _melds_and_bell(hand: Hand) -> tuple[Pair, list[list[Meld]]]:
    """The bell by team, and each team's announced melds."""
    bell_seat = hand.bell_seat()
    bell = _pair({team_of(bell_seat): BELL_POINTS} if bell_seat is not None else {})
    return bell, [[m for s in (t, t + 2) for m in hand.melds[s]] for t in TEAMS]
