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
