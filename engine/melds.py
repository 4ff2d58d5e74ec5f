"""Melds: what makes one, what it is worth, the best melds of a hand, and which team scores.

Sequences use the natural order A K Q J 10 9 in every suit; the bell (King and Queen of
trump) is not a meld of the comparison and may share its cards with one other meld.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.cards import (
    ACE,
    JACK,
    KING,
    NINE,
    QUEEN,
    RANK_WORDS,
    RANKS,
    SUITS,
    TEN,
    CardSet,
    Rank,
    Suit,
    bit,
    card,
    card_symbol,
    cards_in,
    count,
    names,
    rank_mask,
    rank_of,
    suit_of,
)
from engine.errors import IllegalEntryError
from engine.seats import EW, NS, TEAMS, Team

BELL_POINTS = 20
FOUR_JACKS_POINTS = 200
FOUR_POINTS = 100  # four of any other rank
# The order of four of a kind, high to low: Jacks, 9s, As, 10s, Ks, Qs.
FOUR_ORDER = {JACK: 6, NINE: 5, ACE: 4, TEN: 3, KING: 2, QUEEN: 1}
SEQUENCE_POINTS = {3: 20, 4: 50, 5: 100, 6: 100}
SEQUENCE_WORDS = {3: "dad", 4: "fifty", 5: "hundred", 6: "hundred"}


@dataclass(frozen=True)
class Meld:
    """One announced meld: four of a kind, or a sequence of 3 to 6 cards in one suit."""

    cards: CardSet

    @property
    def is_four(self) -> bool:
        """Four cards of one rank."""
        return count(self.cards) == 4 and len({rank_of(c) for c in cards_in(self.cards)}) == 1

    @property
    def length(self) -> int:
        """How many cards it holds."""
        return count(self.cards)

    @property
    def rank(self) -> Rank:
        """Four of a kind: its rank. A sequence: its top card's rank."""
        return max(rank_of(c) for c in cards_in(self.cards))

    @property
    def suit(self) -> Suit | None:
        """A sequence's suit (None for four of a kind)."""
        return None if self.is_four else suit_of(next(cards_in(self.cards)))

    @property
    def points(self) -> int:
        """What the meld is worth."""
        if self.is_four:
            return FOUR_JACKS_POINTS if self.rank == JACK else FOUR_POINTS
        return SEQUENCE_POINTS[self.length]

    def key(self, trump: Suit | None) -> tuple[int, int, int, int]:
        """Its place in the comparison between teams: a higher key beats a lower one."""
        if self.is_four:
            return (1, FOUR_ORDER[self.rank], 0, 0)
        # A sequence of 6 ranks as a sequence of 5 with its top card.
        return (0, min(self.length, 5), self.rank, int(self.suit == trump))

    def describe(self) -> str:
        """The meld for people, a sequence from its top card down: ``fifty A♠–J♠``, ``four Jacks``.

        >>> Meld(0b111110).describe()
        'hundred A♣–10♣'
        """
        if self.is_four:
            return "four Jacks (mules)" if self.rank == JACK else f"four {RANK_WORDS[self.rank]}s"
        ranks = sorted(rank_of(c) for c in cards_in(self.cards))
        suit = self.suit or 0
        top, bottom = card_symbol(card(ranks[-1], suit)), card_symbol(card(ranks[0], suit))
        return f"{SEQUENCE_WORDS[self.length]} {top}–{bottom}"


def meld_of(cards: CardSet) -> Meld:
    """The meld these cards make, or IllegalEntryError saying why they make none."""
    n = count(cards)
    if n == 4 and any(cards == rank_mask(r) for r in RANKS):
        return Meld(cards)
    suits = {suit_of(c) for c in cards_in(cards)}
    if n > 1 and len({rank_of(c) for c in cards_in(cards)}) == 1:
        raise IllegalEntryError(f"{names(cards)} is not a meld: four of a kind needs all four suits")
    if n < 3 or n > 6:
        raise IllegalEntryError(
            f"{names(cards) or 'no cards'} is not a meld: a meld is four of a kind or 3 to 6 cards in sequence"
        )
    if len(suits) != 1:
        raise IllegalEntryError(f"{names(cards)} is not a meld: a sequence is all of one suit")
    ranks = sorted(rank_of(c) for c in cards_in(cards))
    if ranks[-1] - ranks[0] != n - 1:
        raise IllegalEntryError(f"{names(cards)} is not a meld: a sequence needs cards in a row (A K Q J 10 9)")
    return Meld(cards)


def bell_cards(trump: Suit) -> CardSet:
    """The King and Queen of trump."""
    return bit(card(KING, trump)) | bit(card(QUEEN, trump))


# Every meld there is: six fours of a kind and each run of 3 to 6 cards in each suit.
ALL_MELDS: tuple[CardSet, ...] = tuple(rank_mask(r) for r in RANKS) + tuple(
    sum(bit(card(r, s)) for r in range(lo, hi + 1)) for s in SUITS for lo in range(6) for hi in range(lo + 2, 6)
)


def _candidates(hand: CardSet) -> list[Meld]:
    return [Meld(m) for m in ALL_MELDS if hand & m == m]


def best_melds(hand: CardSet, trump: Suit | None) -> list[Meld]:
    """The melds of a hand worth the most points together, no card in two (bell apart)."""
    best: tuple[int, tuple[int, ...], tuple[Meld, ...]] = (0, (), ())
    found = _candidates(hand)
    for size in range(1, 3):  # six cards hold at most two melds
        for combo in combinations(found, size):
            used = 0
            for m in combo:
                if used & m.cards:
                    break
                used |= m.cards
            else:
                worth = (sum(m.points for m in combo), max(m.key(trump) for m in combo), combo)
                if worth[:2] > best[:2]:
                    best = worth
    return sorted(best[2], key=lambda m: m.key(trump), reverse=True)


def has_bell(hand: CardSet, trump: Suit | None) -> bool:
    """Whether a hand holds the King and Queen of trump."""
    return trump is not None and hand & bell_cards(trump) == bell_cards(trump)


def best_of(melds: Iterable[Meld], trump: Suit | None) -> Meld | None:
    """A team's single best meld for the comparison."""
    return max(melds, key=lambda m: m.key(trump), default=None)


def meld_winner(by_team: Sequence[Sequence[Meld]], trump: Suit | None) -> Team | None:
    """The team that scores melds, or None (no melds, or a push of equal plain sequences)."""
    best = [best_of(by_team[t], trump) for t in TEAMS]
    if best[0] is None and best[1] is None:
        return None
    if best[1] is None:
        return NS
    if best[0] is None:
        return EW
    k0, k1 = best[0].key(trump), best[1].key(trump)
    if k0 == k1:
        return None  # equal non-trump sequences: neither team scores melds
    return NS if k0 > k1 else EW
