"""Random but lawful hands: for tests, benchmarks and sample records."""

from __future__ import annotations

import random

from engine.bidding import Call
from engine.cards import SUITS, cards_in, suit_mask, suit_of
from engine.deal import deal
from engine.hand import Announce, Bid, Hand, Play
from engine.melds import best_melds
from engine.seats import SEATS, N, Seat


def random_bids(rng: random.Random, hand: Hand, eagerness: float = 0.4) -> Hand:
    """Lawful bidding: a player says play only holding a trump, now and then."""
    up_suit = suit_of(hand.up) if hand.up is not None else 0
    while not hand.finished and hand.trump is None:
        seat = hand.bidding.turn if hand.bidding else hand.turn
        assert seat is not None  # a hand still bidding has a seat to call
        held = hand.located[seat]
        rnd = hand.bidding.round if hand.bidding else 1
        call = Call(False)
        if rng.random() < eagerness:
            if rnd == 1 and held & suit_mask(up_suit):
                call = Call(True)
            elif rnd == 2:
                suits = [s for s in SUITS if s != up_suit and held & suit_mask(s)]
                if suits:
                    call = Call(True, rng.choice(suits))
        hand = hand.apply(Bid(call))
    return hand


def random_hand(rng: random.Random, dealer: Seat = N, *, melds: bool = True) -> Hand:
    """A whole hand: a shuffled deal, lawful bidding, each seat's best melds, random lawful play."""
    hand = random_bids(rng, Hand(dealer).apply(deal(rng, dealer)))
    if hand.passed_out:
        return hand
    if melds:
        for s in SEATS:
            for m in best_melds(hand.located[s], hand.trump):  # the deal is known: located is all six
                hand = hand.apply(Announce(s, m.cards))
    while len(hand.plays) < 24:
        hand = hand.apply(Play(rng.choice(list(cards_in(hand.legal())))))
    return hand
