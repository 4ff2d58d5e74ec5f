"""Play (RULES.md: Play): following, trumping, overtrumping, and who wins a trick."""

import pytest

from engine.cards import names
from engine.play import breach, legal_cards, trick_points, trick_winner
from tests.helpers import card_list, cards, suit

# (holding, trick so far, trump, legal cards)
LEGAL = [
    pytest.param("AS 9S KH", "", "H", "AS 9S KH", id="leader-may-lead-anything"),
    pytest.param("AS 9S KH", "TS", "H", "AS 9S", id="follow-suit"),
    pytest.param("9S KH", "TS", "H", "9S", id="follow-suit-need-not-beat"),
    pytest.param("9S QH AD", "KS JH", "H", "9S", id="follow-suit-even-when-trumped"),
    pytest.param("AH QH 9S", "TH", "H", "AH", id="trump-led-must-beat-highest-trump"),
    pytest.param("AH QH 9S", "TH JH", "H", "AH QH", id="trump-led-cannot-beat-must-still-play-trump"),
    pytest.param("AH 9S", "QH 9H KH", "H", "AH", id="trump-led-beat-highest-not-last"),
    pytest.param("9S AD", "TH", "H", "9S AD", id="trump-led-no-trump-any-card"),
    pytest.param("KH AD", "TS", "H", "KH", id="void-must-trump"),
    pytest.param("KH JH AD", "TS AH", "H", "JH", id="trumped-must-overtrump"),
    pytest.param("KH QH AD", "TS AH", "H", "KH QH", id="cannot-overtrump-must-undertrump"),
    pytest.param("AD KC", "TS AH", "H", "AD KC", id="no-suit-no-trump-any-card"),
    pytest.param("9H 9C", "TS QS AS", "H", "9H", id="no-partner-exception-must-trump-partners-ace"),
    pytest.param("JH QH", "9H KH", "H", "JH", id="no-partner-exception-overtrump-partner"),
]


@pytest.mark.parametrize(("holding", "trick", "trump", "legal"), LEGAL)
def test_legal_cards(holding, trick, trump, legal):
    assert names(legal_cards(cards(holding), card_list(trick), suit(trump))) == names(cards(legal))


@pytest.mark.parametrize(
    ("holding", "trick", "played", "why"),
    [
        ("KH 9S", "TS", "KH", "must follow suit (spades), holding 9♠"),
        ("KH AD", "TS", "AD", "must trump, holding K♥"),
        ("KH JH AD", "TS AH", "KH", "must overtrump, holding J♥"),
        ("KH JH AD", "TS AH", "AD", "must overtrump, holding J♥"),
        ("KH AD", "TS AH", "AD", "must trump, holding K♥"),
        ("QH AD", "TH", "AD", "must play a trump, holding Q♥"),
        ("AH QH", "TH", "QH", "must overtrump, holding A♥"),
    ],
)
def test_an_illegal_card_says_why_in_a_players_words(holding, trick, played, why):
    b = breach(cards(holding), card_list(trick), suit("H"), card_list(played)[0])
    assert b is not None and b.why == why


def test_a_legal_card_is_no_breach():
    assert breach(cards("AS 9S KH"), card_list("TS"), suit("H"), card_list("9S")[0]) is None


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        ("TS AS 9S KS", "H", 1),  # highest of the suit led
        ("TS AH 9S KS", "D", 0),  # another plain suit never wins
        ("TS 9H JH AS", "H", 2),  # highest trump
        ("QH KH 9H AH", "H", 2),  # 9 is the second trump
        ("9C 9D 9S JS", "H", 0),  # no trump, no follow: leader wins
    ],
)
def test_trick_won_by_highest_trump_else_highest_of_suit_led(trick, trump, winner):
    assert trick_winner(card_list(trick), suit(trump)) == winner


def test_trick_points_count_trump_values():
    assert trick_points(card_list("JH 9H AS 9S"), suit("H")) == 20 + 14 + 11 + 0
