"""Records shared by the tests: one deal and the plays of two hands played from it."""

from __future__ import annotations


def tricks(*cards: str) -> list[str]:
    """The plays of a hand written a trick a line: ``tricks("AH KH AD JH", ...)``."""
    return [c for trick in cards for c in trick.split()]


# Dealer N, up card 9H (in N's hand); E said play in round 1, so hearts are trump.
DEAL = {
    "N": ["JH", "9H", "AS", "KS", "QS", "9C"],
    "E": ["AH", "TH", "AC", "TC", "KC", "9D"],
    "S": ["KH", "QH", "JS", "TS", "9S", "QC"],
    "W": ["JC", "AD", "TD", "KD", "QD", "JD"],
}

# A lawful hand from DEAL, card by card.
LAWFUL = tricks(
    "AH KH AD JH",
    "AS TH JS KD",
    "9D QH QD 9H",
    "KS AC TS JD",
    "9S TD QS KC",
    "9C TC QC JC",
)

# The same deal, where E throws AC on a spade lead while holding 10 of trump: a renege.
RENEGE = tricks(
    "AH KH AD JH",
    "AS AC JS KD",
    "KS TH TS QD",
    "9D QH JD 9H",
    "QS KC 9S TD",
    "9C TC QC JC",
)

# Hindsight's worked examples (docs/engine.md quotes them): three hands played card by card, read
# with every card open. Each is a hand record's fields; the numbers are checked in tests/test_solve.py
# against an exhaustive minimax.

# Dealer W, up card 10♣; N passed and E said play: clubs trump, EW the makers. Every card played
# was a best card, and best play leaves EW 74 to NS's 88: the set was in the cards.
SET_IN_THE_CARDS = {
    "dealer": "W",
    "up": "TC",
    "bids": ["pass", "play"],
    "hands": {
        "N": ["KD", "QD", "TH", "9H", "JS", "9S"],
        "E": ["AC", "KC", "AD", "JD", "TD", "KH"],
        "S": ["QC", "JC", "9C", "9D", "QH", "TS"],
        "W": ["TC", "AH", "JH", "AS", "KS", "QS"],
    },
    "plays": tricks(
        "QD AD 9D TC",
        "AH 9H KH QH",
        "AS 9S AC TS",
        "KC 9C JH KD",
        "JC QS TH TD",
        "QC KS JS JD",
    ),
}

# Dealer W, up card 10♦; N passed and E said play: diamonds trump, EW the makers. Best play makes
# it (EW 87, NS 75), but in trick 2 W drops the 10♦ under S's J♦ where the Q♦ would do: 7 points
# to NS, and EW are set 80 to 82. Every other card was a best card.
SET_BY_ONE_CARD = {
    "dealer": "W",
    "up": "TD",
    "bids": ["pass", "play"],
    "hands": {
        "N": ["KC", "TC", "KH", "JH", "KS", "QS"],
        "E": ["KD", "AH", "TH", "9H", "AS", "JS"],
        "S": ["AC", "JC", "9C", "JD", "9D", "QH"],
        "W": ["QC", "AD", "QD", "TD", "TS", "9S"],
    },
    "plays": tricks(
        "KS JS 9D 9S",
        "JD TD TC KD",
        "AC QC KC 9H",
        "9C QD JH TH",
        "AD KH AH JC",
        "TS QS AS QH",
    ),
}

# Dealer E, up card J♣; S said play: clubs trump, NS the makers, and S holds the bell (K♣ Q♣).
# Played as best play plays it: NS take 75 in tricks to EW's 87, and the bell's 20 makes it, 95 to 87.
BELL_DECIDES = {
    "dealer": "E",
    "up": "JC",
    "bids": ["play"],
    "hands": {
        "N": ["TC", "AD", "KD", "TH", "KS", "TS"],
        "E": ["JC", "JD", "9D", "QH", "JH", "9S"],
        "S": ["KC", "QC", "QD", "AH", "KH", "QS"],
        "W": ["AC", "9C", "TD", "9H", "AS", "JS"],
    },
    "plays": tricks(
        "QC 9C TC JC",
        "9D QD TD AD",
        "TH JH AH 9H",
        "KH AC KD QH",
        "AS KS 9S QS",
        "JS TS JD KC",
    ),
}
