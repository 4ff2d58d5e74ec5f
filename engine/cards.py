"""Cards, suits and their order and points.

A card is an int from 0 to 23: ``suit * 6 + rank``, with ranks in the natural order
9 10 J Q K A. A set of cards is a 24-bit int (bit ``card`` set), so a hand is one int,
like a bitboard in chess.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engine.errors import InvalidRecordError
from engine.named import Named

Card = int
Rank = int
CardSet = int


class Suit(Named):
    """A suit: an int (0 to 3, the order of the card numbers) that prints as its letter."""

    C = 0
    D = 1
    H = 2
    S = 3


SUITS: tuple[Suit, ...] = tuple(Suit)
SUIT_NAMES = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
CLUBS, DIAMONDS, HEARTS, SPADES = SUITS

RANKS: tuple[Rank, ...] = (0, 1, 2, 3, 4, 5)
RANK_NAMES = "9TJQKA"
NINE, TEN, JACK, QUEEN, KING, ACE = RANKS
RANK_WORDS = ("Nine", "Ten", "Jack", "Queen", "King", "Ace")

CARDS: tuple[Card, ...] = tuple(range(24))
DECK: CardSet = (1 << 24) - 1

# Points and strength by rank (index: 9 T J Q K A).
PLAIN_POINTS = (0, 10, 2, 3, 4, 11)
TRUMP_POINTS = (14, 10, 20, 3, 4, 11)
PLAIN_STRENGTH = (0, 4, 1, 2, 3, 5)  # A 10 K Q J 9
TRUMP_STRENGTH = (4, 2, 5, 0, 1, 3)  # J 9 A 10 K Q

CARD_POINTS_IN_HAND = 152
LAST_TRICK_BONUS = 10
POINTS_IN_HAND = CARD_POINTS_IN_HAND + LAST_TRICK_BONUS


def card(rank: Rank, suit: int) -> Card:
    """The card of a rank and suit."""
    return suit * 6 + rank


def suit_of(c: Card) -> Suit:
    """The suit of a card."""
    return SUITS[c // 6]


def rank_of(c: Card) -> Rank:
    """The rank of a card."""
    return c % 6


def bit(c: Card) -> CardSet:
    """The set holding one card."""
    return 1 << c


def suit_mask(suit: int) -> CardSet:
    """All six cards of a suit."""
    return 0b111111 << (suit * 6)


def rank_mask(rank: Rank) -> CardSet:
    """The four cards of a rank."""
    return sum(1 << card(rank, s) for s in SUITS)


def card_set(cards: Iterable[Card]) -> CardSet:
    """The set of the given cards."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_in(mask: CardSet) -> Iterator[Card]:
    """The cards of a set, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: CardSet) -> int:
    """How many cards a set holds."""
    return mask.bit_count()


def points(c: Card, trump: Suit | None) -> int:
    """Card points of a card, trump or plain."""
    table = TRUMP_POINTS if suit_of(c) == trump else PLAIN_POINTS
    return table[rank_of(c)]


def strength(c: Card, trump: Suit | None) -> int:
    """Order within a suit: higher beats lower (trump order for the trump suit)."""
    table = TRUMP_STRENGTH if suit_of(c) == trump else PLAIN_STRENGTH
    return table[rank_of(c)]


def card_name(c: Card) -> str:
    """The canonical name of a card: ``"TS"``, ``"9H"``."""
    return RANK_NAMES[rank_of(c)] + SUIT_NAMES[suit_of(c)]


def card_symbol(c: Card) -> str:
    """A card for people: ``10♠``, ``J♥``."""
    r = rank_of(c)
    return ("10" if r == TEN else RANK_NAMES[r]) + SUIT_SYMBOLS[suit_of(c)]


def suit_name(suit: int) -> str:
    """The canonical letter of a suit."""
    return SUIT_NAMES[suit]


def parse_suit(text: object) -> Suit:
    """Reads a suit letter (any case) or symbol."""
    if isinstance(text, str):
        t = text.strip().upper()
        if len(t) == 1 and t in SUIT_NAMES:
            return SUITS[SUIT_NAMES.index(t)]
        if len(t) == 1 and t in SUIT_SYMBOLS:
            return SUITS[SUIT_SYMBOLS.index(t)]
    raise InvalidRecordError(f"{text!r} is not a suit (C, D, H or S)")


def parse_card(text: object) -> Card:
    """Reads a card: rank then suit, ``"TS"``, ``"10s"``, ``"9♥"``.

    >>> card_name(parse_card("10s")), card_symbol(parse_card("jh"))
    ('TS', 'J♥')
    """
    if isinstance(text, str):
        t = text.strip().upper()
        if t[:2] == "10":
            t = "T" + t[2:]
        if len(t) == 2 and t[0] in RANK_NAMES:
            try:
                return card(RANK_NAMES.index(t[0]), parse_suit(t[1]))
            except InvalidRecordError:
                pass
    raise InvalidRecordError(f'{text!r} is not a card (rank 9 T J Q K A, then suit C D H S, e.g. "TS")')


def names(mask: CardSet, trump: Suit | None = None) -> str:
    """A set of cards for people, trump first, each suit high to low: ``J♥ 9♥ A♠ 10♠``."""

    def order(c: Card) -> tuple[bool, int, int]:
        return (suit_of(c) != trump, -suit_of(c), -strength(c, trump))

    return " ".join(card_symbol(c) for c in sorted(cards_in(mask), key=order))


def card_names(mask: CardSet) -> list[str]:
    """A set of cards in canonical record form, by suit (C D H S), each high to low."""
    return [card_name(c) for c in sorted(cards_in(mask), key=lambda c: (suit_of(c), -rank_of(c)))]
