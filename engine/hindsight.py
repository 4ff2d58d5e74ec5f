"""Hindsight: a hand played card by card, looked at afterwards with every card open.

What the hand was worth with best play by both sides from the first lead (made or set, melds and bell
scored as ``score_hand`` scores them), what each card played cost its team against the best card its
player held at that moment, and for a hand a renege ended, what best play would have given from just
before the renege card. Solved by ``engine.solve``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card, CardSet, cards_in, strength, suit_of
from engine.hand import Hand
from engine.rules import Rules
from engine.scoring import HandScore, score_tricks
from engine.seats import SEATS, Seat, Team, team_of
from engine.solve import Pair, Solution, Solver, position_of


@dataclass(frozen=True)
class CardCost:
    """One card played, and what it cost its team against the best card its player held then."""

    play: int  # index into the hand's plays
    seat: Seat
    card: Card
    best: CardSet  # the cards that were best (the card played among them when it cost nothing)
    cost: int  # card points the card gave the other team, with best play after it (0 for a best card)
    # A best card to name: the card played when it was one, else the strongest best card of its suit,
    # else the strongest best card.
    instead: Card

    @property
    def trick(self) -> int:
        """The trick the card was played to, 1 to 6."""
        return self.play // 4 + 1

    @property
    def team(self) -> Team:
        """The team of the seat that played it."""
        return team_of(self.seat)


@dataclass(frozen=True)
class Hindsight:
    """A hand looked at with every card open."""

    best_play: HandScore  # the hand's score had both sides played their best from the first lead
    costs: tuple[CardCost, ...]  # every card played before any renege card, in play order
    # A hand a renege card ended: its score had play gone on with best play from just before that card
    # (the tricks already taken kept, no renege). None when no card reneged.
    without_renege: HandScore | None = None

    @property
    def makers_most(self) -> int:
        """The most card points (last trick included) the makers could take against the best defence."""
        makers = self.best_play.makers
        assert makers is not None  # hindsight is only given for a hand with makers
        return self.best_play.tricks[makers]

    def first_costly(self, team: Team) -> CardCost | None:
        """The first card of a team that cost it points, if any."""
        return next((c for c in self.costs if c.team == team and c.cost), None)


def hindsight(hand: Hand, rules: Rules) -> Hindsight | None:
    """The hindsight of a hand entered card by card, or None for a hand with no plays, no trump or
    makers, or a seat whose six cards are not all known."""
    trump = hand.trump
    if trump is None or hand.makers is None or not hand.plays or hand.misdeal is not None:
        return None
    if not all(hand.knows_hand(s) for s in SEATS):
        return None
    solver = Solver(trump)  # one for the whole hand: each position reuses what the ones before found
    reneged = [r.play for r in hand.reneges() if r.play is not None]
    stop = min(reneged) if reneged else len(hand.plays)
    # The position before each card played up to the first renege card, and before that card too.
    solutions = [solver.solve(position_of(hand, i)) for i in range(stop + 1 if reneged else stop)]
    costs = tuple(_cost(i, hand.players[i], hand.plays[i], solutions[i]) for i in range(stop))
    best_play = score_tricks(hand, solutions[0].points, rules)
    without = None
    if reneged:
        taken, after = _taken(hand, stop), solutions[stop].points
        without = score_tricks(hand, (taken[0] + after[0], taken[1] + after[1]), rules)
    return Hindsight(best_play, costs, without)


def _cost(play: int, seat: Seat, c: Card, solution: Solution) -> CardCost:
    best = solution.best
    trump = solution.position.trump
    if best >> c & 1:
        instead = c
    else:
        same_suit = [b for b in cards_in(best) if suit_of(b) == suit_of(c)]
        instead = max(same_suit or list(cards_in(best)), key=lambda b: (strength(b, trump), -b))
    return CardCost(play, seat, c, best, solution.cost(c), instead)


def _taken(hand: Hand, before: int) -> Pair:
    """The card points each team took in the tricks completed before play ``before``."""
    taken = [0, 0]
    for trick in hand.tricks()[: before // 4]:
        assert trick.winner is not None  # every trick before the one in progress is complete
        taken[team_of(trick.winner)] += trick.points
    return (taken[0], taken[1])
