"""Dealing and the Jack draw, with randomness only from the generator passed in."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from engine.cards import CARDS, JACK, Card, parse_card, rank_of
from engine.errors import IllegalEntryError, InvalidRecordError
from engine.hand import Deal
from engine.seats import N, Seat, left_of


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
    """The draw for the first deal: cards dealt face up, one at a time, clockwise from ``start``.

    Once the first Jack falls its holder is the first dealer and gets no more cards; the others are
    dealt on, in turn, until the second Jack falls: its holder is the first dealer's partner."""

    start: Seat
    cards: tuple[Card, ...]  # in the order dealt, up to and including the second Jack

    @cached_property
    def seats(self) -> tuple[Seat, ...]:
        """The seat each card of the draw went to."""
        seats: list[Seat] = []
        seat, first = self.start, None
        for c in self.cards:
            seats.append(seat)
            if first is None and rank_of(c) == JACK:
                first = seat
            seat = left_of(seat)
            if seat == first:
                seat = left_of(seat)
        return tuple(seats)

    def _jack(self, n: int) -> Seat:
        jacks = [s for s, c in zip(self.seats, self.cards, strict=True) if rank_of(c) == JACK]
        if len(jacks) < n:
            raise ValueError(f"the draw has {len(jacks)} Jacks; it stops at the second")
        return jacks[n - 1]

    @property
    def first(self) -> Seat:
        """Got the first Jack: deals first."""
        return self._jack(1)

    @property
    def second(self) -> Seat:
        """Got the second Jack: becomes the first dealer's partner."""
        return self._jack(2)

    def seat_of(self, i: int) -> Seat:
        """The seat the i-th card of the draw went to."""
        return self.seats[i]

    def change(self) -> tuple[Seat, Seat] | None:
        """The two players who change seats so the Jacks sit as partners, or None if they already do."""
        partner = left_of(self.first, 2)
        return None if self.second == partner else (self.second, partner)


def draw_for_dealer(rng: random.Random, start: Seat = N) -> JackDraw:
    """Deals face up until two Jacks have fallen: the first Jack deals, the second is the partner."""
    deck = list(CARDS)
    rng.shuffle(deck)
    jacks = [i for i, c in enumerate(deck) if rank_of(c) == JACK][:2]
    return JackDraw(start, tuple(deck[: jacks[1] + 1]))


def read_draw(cards: object, start: Seat = N) -> JackDraw:
    """A Jack draw from its cards as dealt (``["9S", "JH", ...]``): every card once, dealt until the
    second Jack and no further.

    >>> read_draw(["9S", "JH", "JD"]).change()  # E deals first; S got the second Jack and moves to W
    (S, W)
    >>> read_draw(["JH", "JD", "9S"])
    Traceback (most recent call last):
    ...
    engine.errors.IllegalEntryError: draw[2]: the draw stops at the second Jack
    """
    if not isinstance(cards, Sequence) or isinstance(cards, str):
        raise InvalidRecordError("the draw is a list of cards", "draw")
    dealt: list[Card] = []
    for i, text in enumerate(cards):
        try:
            c = parse_card(text)
        except InvalidRecordError as e:
            raise e.at(f"draw[{i}]") from None
        if c in dealt:
            raise IllegalEntryError("this card was already dealt", f"draw[{i}]")
        if sum(rank_of(d) == JACK for d in dealt) == 2:
            raise IllegalEntryError("the draw stops at the second Jack", f"draw[{i}]")
        dealt.append(c)
    if sum(rank_of(d) == JACK for d in dealt) < 2:
        raise IllegalEntryError("the draw goes on until a second Jack", "draw")
    return JackDraw(start, tuple(dealt))
