"""Dealing and the Jack draw, with randomness only from the generator passed in."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import CARDS, JACK, Card, rank_of
from engine.hand import Deal
from engine.seats import Seat, left_of


def deal(rng: random.Random, dealer: Seat) -> Deal:
    """A shuffled deal: one card at a time from the dealer's left; the dealer's last is the up card."""
    deck = list(CARDS)
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for i, c in enumerate(deck):
        hands[left_of(dealer, 1 + i)] |= 1 << c
    return Deal(up=deck[-1], hands=tuple(hands))


@dataclass(frozen=True)
class JackDraw:
    """The draw for the first deal: cards dealt face up clockwise from ``start``."""

    start: Seat
    cards: tuple[Card, ...]  # in the order dealt, up to and including the second Jack
    first: Seat  # got the first Jack: deals first
    second: Seat  # got the second Jack: becomes the first one's partner

    def seat_of(self, i: int) -> Seat:
        """The seat the i-th card of the draw went to."""
        return left_of(self.start, i)


def draw_for_dealer(rng: random.Random, start: Seat = 0) -> JackDraw:
    """Deals face up until two Jacks have fallen: the first Jack deals, the second is the partner."""
    deck = list(CARDS)
    rng.shuffle(deck)
    jacks = [i for i, c in enumerate(deck) if rank_of(c) == JACK][:2]
    return JackDraw(start, tuple(deck[: jacks[1] + 1]), left_of(start, jacks[0]), left_of(start, jacks[1]))
