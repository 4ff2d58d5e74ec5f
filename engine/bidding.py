"""Naming trump: round 1 on the up card's suit, round 2 on any other suit, or a pass-out."""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import SUIT_WORDS, Suit, parse_suit, suit_name
from engine.errors import IllegalEntryError, InvalidRecordError
from engine.seats import Seat, left_of, seat_name

PASS = "pass"
PLAY = "play"


@dataclass(frozen=True)
class Call:
    """One call: pass, or play (with the suit named in round 2)."""

    play: bool
    suit: Suit | None = None

    def __str__(self) -> str:
        if not self.play:
            return PASS
        return PLAY if self.suit is None else f"{PLAY} {suit_name(self.suit)}"


def parse_call(text: object) -> Call:
    """Reads ``"pass"``, ``"play"`` or ``"play X"``."""
    if isinstance(text, str):
        words = text.strip().lower().split()
        if words == [PASS]:
            return Call(False)
        if words == [PLAY]:
            return Call(True)
        if len(words) == 2 and words[0] == PLAY:
            return Call(True, parse_suit(words[1]))
    raise InvalidRecordError(f'{text!r} is not a call ("pass", "play" or "play X" with X a suit)')


@dataclass(frozen=True)
class Bidding:
    """The calls so far, starting at the dealer's left."""

    dealer: Seat
    up_suit: Suit | None = None
    calls: tuple[Call, ...] = ()

    @property
    def round(self) -> int:
        """1 while the up card is on offer, then 2."""
        return 1 if len(self.calls) < 4 else 2

    @property
    def turn(self) -> Seat:
        """The seat to call next."""
        return left_of(self.dealer, 1 + len(self.calls))

    @property
    def over(self) -> bool:
        """Someone said play, or all passed twice."""
        return self.passed_out or (bool(self.calls) and self.calls[-1].play)

    @property
    def passed_out(self) -> bool:
        """All four passed in both rounds: the hand is not played."""
        return len(self.calls) == 8 and not self.calls[-1].play

    @property
    def maker(self) -> Seat | None:
        """The seat that said play."""
        if self.calls and self.calls[-1].play:
            return left_of(self.dealer, len(self.calls))
        return None

    @property
    def trump(self) -> Suit | None:
        """The trump named, once someone said play."""
        if not (self.calls and self.calls[-1].play):
            return None
        return self.calls[-1].suit if len(self.calls) > 4 else self.up_suit

    def call(self, c: Call) -> Bidding:
        """The bidding after one more call; IllegalEntryError if it cannot be made now."""
        if self.over:
            raise IllegalEntryError("the bidding is over: no more calls")
        who = seat_name(self.turn)
        up_suit = self.up_suit
        if self.round == 1 and c.play and c.suit is not None:
            # Round 1's only play is the up card's suit: naming it is accepted, and where the up
            # card is not given it says which suit was turned up.
            if up_suit is None:
                up_suit = c.suit
            elif c.suit != up_suit:
                raise IllegalEntryError(
                    f'{who}: in round 1 the only play is the up card\'s suit ({SUIT_WORDS[up_suit]}); say "play"'
                )
            c = Call(True)
        if self.round == 2 and c.play and c.suit is None:
            raise IllegalEntryError(f'{who}: in round 2 a play names its suit, e.g. "play S"')
        return Bidding(self.dealer, up_suit, (*self.calls, c))

    def named_passed_suit(self) -> bool:
        """Round 2's trump is the suit turned down in round 1: a renege by the maker."""
        return len(self.calls) > 4 and self.calls[-1].play and self.calls[-1].suit == self.up_suit


def passed_suit_reason(suit: Suit) -> str:
    """The renege of naming, in round 2, the suit passed in round 1."""
    return f"named {SUIT_WORDS[suit]} in round 2, the suit passed in round 1"
