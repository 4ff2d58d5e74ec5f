"""The odds of a bid: how often the maker's call makes, over the deals the maker could have faced.

When a player names trump they know their own six cards and the up card (in the dealer's hand), and
nothing more: a pass says nothing of a hand, since a player may pass holding trump. So the cards
they cannot see are dealt at random to the other three seats, the dealer keeping the up card; each
deal is played out with best play by both sides and every card open (``engine.solve``) and scored
with the melds worth most and the bell its cards hold (every player announces them); the bid is
made in a deal when the makers' total is more than the other team's, set otherwise (a tie sets).

What this says is what the cards allowed, not what the table would have played: best play on
both sides, with every card open, in each deal the maker could have faced. Seeded: the same hand,
number of deals and seed give the same odds. When there are no more ways to give out the unseen
cards than the deals asked for (late in a hand), every way is counted once and the odds are exact.

>>> from engine.hand import Hand
>>> hand = Hand("W").deal(up="JH", hands={"N": "9H AH TS AS KS QS"}).bid("play")  # N plays hearts
>>> odds = odds_of_bid(hand, deals=40, seed=1)
>>> odds == odds_of_bid(hand, deals=40, seed=1), odds.deals, odds.exhaustive
(True, 40, False)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.cards import DECK, POINTS_IN_HAND, CardSet, Suit, bit, card_set, cards_in, count
from engine.hand import Hand
from engine.melds import BELL_POINTS, best_melds, has_bell, meld_winner
from engine.seats import SEATS, TEAMS, Seat, Team, left_of, other, team_of
from engine.solve import Position, Solver

DEALS = 400  # a chance to within about 5 points in a hundred, at 95 %
Z95 = 1.96  # the normal distribution's 95 % two-sided quantile
Hands = tuple[CardSet, CardSet, CardSet, CardSet]  # N E S W


@dataclass(frozen=True)
class Odds:
    """How a bid fared over the deals counted."""

    deals: int  # the deals counted
    made: int  # of them, those in which the makers made it
    exhaustive: bool  # every way the unseen cards could lie, each once: the chance is exact

    @property
    def set(self) -> int:
        """The deals in which the makers were set."""
        return self.deals - self.made

    @property
    def chance(self) -> float:
        """The share of the deals the bid made, 0 to 1."""
        return self.made / self.deals

    @property
    def margin(self) -> float:
        """The chance's 95 % margin of error (the normal approximation); 0 when exact."""
        if self.exhaustive:
            return 0.0
        p = self.chance
        return Z95 * math.sqrt(p * (1 - p) / self.deals)

    def words(self, seat: str) -> str:
        """The odds for people: "made in 71 % of the deals N could have faced (400 deals, ± 4 %)"."""
        said = f"made in {round(100 * self.chance)} % of the deals {seat} could have faced"
        if self.exhaustive:
            return said + f" (all {self.deals}: exact)"
        return said + f" ({self.deals} deals, ± {round(100 * self.margin)} %)"


def ways(fixed: Sequence[CardSet], unseen: CardSet, sizes: Sequence[int]) -> int:
    """How many ways ``unseen`` can be given to the seats so that each holds ``sizes`` cards with the
    ``fixed`` ones it is known to hold."""
    left, total = count(unseen), 1
    for f, size in zip(fixed, sizes, strict=True):
        need = size - count(f)
        total *= math.comb(left, need)
        left -= need
    return total


def deals_of(
    fixed: Sequence[CardSet], unseen: CardSet, sizes: Sequence[int], most: int, rng: random.Random
) -> tuple[list[Hands], bool]:
    """The deals consistent with what is known: every one when there are at most ``most`` (and True),
    else ``most`` drawn at random, each uniformly among them (and False)."""
    needs = [size - count(f) for f, size in zip(fixed, sizes, strict=True)]
    if min(needs) < 0 or sum(needs) != count(unseen) or any(a & b for a, b in combinations(fixed, 2)):
        raise ValueError("the known cards and the hands' sizes do not fit together")
    if ways(fixed, unseen, sizes) <= most:
        return list(_every(list(fixed), list(cards_in(unseen)), needs)), True
    cards = list(cards_in(unseen))
    out = []
    for _ in range(most):
        rng.shuffle(cards)
        hands, at = list(fixed), 0
        for seat, need in enumerate(needs):
            hands[seat] |= card_set(cards[at : at + need])
            at += need
        out.append((hands[0], hands[1], hands[2], hands[3]))
    return out, False


def _every(hands: list[CardSet], cards: list[int], needs: list[int], seat: int = 0) -> Iterator[Hands]:
    if seat == len(needs):
        yield (hands[0], hands[1], hands[2], hands[3])
        return
    for chosen in combinations(cards, needs[seat]):
        rest = [c for c in cards if c not in chosen]
        given = [*hands[:seat], hands[seat] | card_set(chosen), *hands[seat + 1 :]]
        yield from _every(given, rest, needs, seat + 1)


def counted(deals: list[Hands], exhaustive: bool, made: Callable[[Hands], bool]) -> Odds:
    """The odds over these deals of a bid that ``made`` tells made or not in each."""
    return Odds(len(deals), sum(made(d) for d in deals), exhaustive)


def made_with_melds(hands: Hands, trump: Suit, makers: Team, leader: Seat) -> bool:
    """Whether the makers make it in a whole deal played from the first lead with best play, the
    melds worth most and the bell scored for whoever holds them."""
    by_team = [[m for s in (t, t + 2) for m in best_melds(hands[s], trump)] for t in TEAMS]
    scorer = meld_winner(by_team, trump)
    extra = [0, 0]  # melds and bell, by team
    if scorer is not None:
        extra[scorer] += sum(m.points for m in by_team[scorer])
    for s in SEATS:
        if has_bell(hands[s], trump):
            extra[team_of(s)] += BELL_POINTS
    # Made when the makers' total is more than the other team's: their card points t must have
    # t + extra[makers] > (162 - t) + extra[other], the card points being shared out of 162.
    need = (POINTS_IN_HAND + extra[other(makers)] - extra[makers]) // 2 + 1
    return Solver(trump).reaches(Position(hands, trump, leader), makers, need)  # a fresh solver: another deal


def bid_deals(hand: Hand, deals: int = DEALS, seed: int = 0) -> tuple[list[Hands], bool] | None:
    """The deals the hand's maker could have faced, as ``deals_of`` gives them (``deals`` of them at
    random, or every one and True); None for a hand with no trump named (a pass-out, a misdeal) or
    whose maker's six cards are not known."""
    maker = hand.maker
    if hand.trump is None or maker is None or hand.misdeal is not None or not hand.knows_hand(maker):
        return None
    if deals < 1:
        raise ValueError(f"deals: at least 1, not {deals}")
    own = hand.located[maker]
    fixed = [0, 0, 0, 0]
    fixed[maker] = own
    seen = own
    if hand.up is not None and not own & bit(hand.up):
        fixed[hand.dealer] |= bit(hand.up)  # the dealer's last card, dealt face up
        seen |= bit(hand.up)
    # The same hand, deals and seed give the same deals: the seed is mixed with what the maker saw.
    rng = random.Random(f"{seed}:{maker}:{own}:{hand.up}")
    return deals_of(fixed, DECK & ~seen, (6, 6, 6, 6), deals, rng)


def odds_of_bid(hand: Hand, deals: int = DEALS, seed: int = 0) -> Odds | None:
    """The odds of the hand's bid from what its maker knew when naming trump; None as for
    ``bid_deals``."""
    found = bid_deals(hand, deals, seed)
    trump, maker = hand.trump, hand.maker
    if found is None or trump is None or maker is None:
        return None
    makers, leader = team_of(maker), left_of(hand.dealer)
    return counted(*found, lambda d: made_with_melds(d, trump, makers, leader))
