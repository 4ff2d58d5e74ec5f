"""Play to a trick: the cards a player may play, why a card may not, who wins the trick."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import (
    CARDS,
    SUIT_WORDS,
    SUITS,
    Card,
    CardSet,
    Suit,
    bit,
    names,
    points,
    strength,
    suit_mask,
    suit_of,
)

# _STRONGER[trump][c]: the trumps that beat trump card c.
_STRONGER: tuple[tuple[CardSet, ...], ...] = tuple(
    tuple(sum(bit(o) for o in CARDS if suit_of(o) == trump and strength(o, trump) > strength(c, trump)) for c in CARDS)
    for trump in SUITS
)


@dataclass(frozen=True)
class Breach:
    """Why a card could not be played: the duty broken, in words, and the cards that were legal."""

    duty: str  # "follow suit", "trump", "overtrump", "play a trump"
    why: str  # "must overtrump, holding 9♠"
    legal: CardSet


def highest_trump(trick: Sequence[Card], trump: Suit) -> Card | None:
    """The highest trump played to a trick so far, if any."""
    best = None
    for c in trick:
        if suit_of(c) == trump and (best is None or strength(c, trump) > strength(best, trump)):
            best = c
    return best


def legal_cards(holding: CardSet, trick: Sequence[Card], trump: Suit) -> CardSet:
    """The cards of ``holding`` that may be played to ``trick`` (cards so far, leader first)."""
    if not trick:
        return holding
    trumps = holding & suit_mask(trump)
    led = suit_of(trick[0])
    if led != trump:
        follow = holding & suit_mask(led)
        if follow:
            return follow  # following a plain suit need not beat it
    if not trumps:
        return holding
    top = highest_trump(trick, trump)
    if top is None:
        return trumps
    return (trumps & _STRONGER[trump][top]) or trumps


def breach(holding: CardSet, trick: Sequence[Card], trump: Suit, c: Card) -> Breach | None:
    """Why playing ``c`` from ``holding`` (which includes it) to ``trick`` is a renege, or None."""
    legal = legal_cards(holding | bit(c), trick, trump)
    if legal & bit(c):
        return None
    led = suit_of(trick[0])
    if led != trump and legal & suit_mask(led):
        duty = "follow suit"
    elif suit_of(c) == trump:
        duty = "overtrump"
    elif led == trump or highest_trump(trick, trump) is None:
        duty = "trump" if led != trump else "play a trump"
    else:
        top = highest_trump(trick, trump)
        assert top is not None  # the branch above took the tricks without a trump
        duty = "overtrump" if legal & _STRONGER[trump][top] else "trump"
    if duty == "follow suit":
        why = f"must follow suit ({SUIT_WORDS[led]}), holding {names(legal, trump)}"
    else:
        why = f"must {duty}, holding {names(legal, trump)}"
    return Breach(duty, why, legal)


def trick_winner(trick: Sequence[Card], trump: Suit) -> int:
    """The position in the trick (0 = leader) of the card that wins it."""
    led = suit_of(trick[0])
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        cs, bs = suit_of(c), suit_of(b)
        if cs == bs:
            if strength(c, trump) > strength(b, trump):
                best = i
        elif cs == trump or (bs != trump and cs == led and bs != led):
            best = i
    return best


def trick_points(trick: Sequence[Card], trump: Suit) -> int:
    """The card points in a trick."""
    return sum(points(c, trump) for c in trick)
