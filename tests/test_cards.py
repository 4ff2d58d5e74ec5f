"""Cards, order and points (RULES.md: Cards, order, points)."""

import pytest

from engine.cards import (
    CARD_POINTS_IN_HAND,
    CARDS,
    POINTS_IN_HAND,
    card_name,
    card_symbol,
    parse_card,
    points,
    strength,
)
from engine.errors import InvalidRecordError
from tests.helpers import card_list, suit


def test_deck_has_24_cards_a_to_9_in_four_suits():
    assert len(CARDS) == 24
    assert sorted(card_name(c) for c in CARDS)[:6] == ["9C", "9D", "9H", "9S", "AC", "AD"]


def test_trump_order_is_j_9_a_10_k_q():
    hearts = card_list("JH 9H AH TH KH QH")
    assert [strength(c, suit("H")) for c in hearts] == sorted((strength(c, suit("H")) for c in hearts), reverse=True)


def test_plain_order_is_a_10_k_q_j_9():
    spades = card_list("AS TS KS QS JS 9S")
    assert [strength(c, suit("H")) for c in spades] == sorted((strength(c, suit("H")) for c in spades), reverse=True)


@pytest.mark.parametrize(
    ("name", "trump", "worth"),
    [
        ("JH", "H", 20),
        ("9H", "H", 14),
        ("AH", "H", 11),
        ("TH", "H", 10),
        ("KH", "H", 4),
        ("QH", "H", 3),
        ("AS", "H", 11),
        ("TS", "H", 10),
        ("KS", "H", 4),
        ("QS", "H", 3),
        ("JS", "H", 2),
        ("9S", "H", 0),
    ],
)
def test_card_points_trump_and_plain(name, trump, worth):
    assert points(parse_card(name), suit(trump)) == worth


@pytest.mark.parametrize("trump", "CDHS")
def test_card_points_total_152_and_162_with_last_trick(trump):
    assert sum(points(c, suit(trump)) for c in CARDS) == CARD_POINTS_IN_HAND == 152
    assert POINTS_IN_HAND == 162


@pytest.mark.parametrize(
    ("text", "canonical"), [("10S", "TS"), ("ts", "TS"), ("9h", "9H"), ("A♠", "AS"), (" qd ", "QD")]
)
def test_readers_accept_10_and_lower_case_writers_emit_canonical(text, canonical):
    assert card_name(parse_card(text)) == canonical


@pytest.mark.parametrize("bad", ["1S", "TX", "", "AS1", 7, None, "8H", ["AS"]])
def test_bad_card_names_are_refused_with_the_reason(bad):
    with pytest.raises(InvalidRecordError, match="is not a card"):
        parse_card(bad)


def test_suit_symbols_for_people():
    assert [card_symbol(c) for c in card_list("TS JH 9D AC")] == ["10♠", "J♥", "9♦", "A♣"]
