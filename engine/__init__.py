"""The rules of Clabber: pure values and functions, no I/O.

A hand is built from events, by name or by record, and scored under the rules of a game:

>>> import engine
>>> hand = engine.Hand("E").name_trump("H", "S").announce("N", "KH QH JH").trick_points(70, 92)
>>> hand
Hand('E', trump='H', maker='S', melds={'N': [['KH', 'QH', 'JH']]}, points={'NS': 70, 'EW': 92})
>>> score = engine.score_hand(hand, engine.Rules())
>>> score.score, score.makers, score.next_dealer
((110, 92), NS, S)

A record reads the same way, and a renege is proven from the cards played alone:

>>> plays = "AH KH AD JH AS AC JS KD KS TH TS QD 9D QH JD 9H QS KC 9S TD 9C TC QC JC".split()
>>> record = engine.read_hand({"format": "clabber-hand/1", "dealer": "N", "up": "9H", "bids": ["play"],
...                            "plays": plays})
>>> renege = record.hand.reneges()[0]
>>> renege.seat, renege.trick, engine.card_name(renege.card), renege.reason
(E, 2, 'AC', 'must trump, holding 10♥')

The modules, from the ground up: ``cards`` and ``seats`` (names and order), ``rules`` (the
variants), ``play`` (what may be played, who wins a trick), ``melds``, ``bidding``, ``hand``
(a hand as events), ``scoring``, ``game`` (the sheet), ``record`` (the JSON records) and
``output`` (what ``clabber score`` and ``clabber sheet`` print).
"""

from engine.cards import SUITS, Card, CardSet, Suit, card_name, card_names, card_symbol, parse_card, parse_suit
from engine.deal import JackDraw, deal, draw_for_dealer, read_draw
from engine.errors import EntryError, IllegalEntryError, InvalidRecordError, Problem
from engine.game import Outcome, Row, Sheet, sheet
from engine.hand import (
    Announce,
    Bid,
    CallRenege,
    Deal,
    Event,
    Hand,
    Misdeal,
    NameTrump,
    PassOut,
    Play,
    Renege,
    ShowBell,
    Trick,
    TrickPoints,
)
from engine.record import GameRecord, HandRecord, game_to_json, hand_from, hand_to_json, loads, read_game, read_hand
from engine.rules import PRESETS, Rules, parse_rules
from engine.scoring import HandScore, score_hand
from engine.seats import SEATS, TEAMS, Seat, Team, parse_seat, parse_team, team_of

__all__ = [
    "PRESETS",
    "SEATS",
    "SUITS",
    "TEAMS",
    "Announce",
    "Bid",
    "CallRenege",
    "Card",
    "CardSet",
    "Deal",
    "EntryError",
    "Event",
    "GameRecord",
    "Hand",
    "HandRecord",
    "HandScore",
    "IllegalEntryError",
    "InvalidRecordError",
    "JackDraw",
    "Misdeal",
    "NameTrump",
    "Outcome",
    "PassOut",
    "Play",
    "Problem",
    "Renege",
    "Row",
    "Rules",
    "Seat",
    "Sheet",
    "ShowBell",
    "Suit",
    "Team",
    "Trick",
    "TrickPoints",
    "card_name",
    "card_names",
    "card_symbol",
    "deal",
    "draw_for_dealer",
    "game_to_json",
    "hand_from",
    "hand_to_json",
    "loads",
    "parse_card",
    "parse_rules",
    "parse_seat",
    "parse_suit",
    "parse_team",
    "read_draw",
    "read_game",
    "read_hand",
    "score_hand",
    "sheet",
    "team_of",
]
