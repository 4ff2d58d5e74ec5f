"""Melds (RULES.md: Melds): what they are worth, the best of a hand, and which team scores."""

import pytest

from engine.errors import IllegalEntryError
from engine.melds import Meld, best_melds, has_bell, meld_of, meld_winner
from tests.helpers import cards, score_of, suit


@pytest.mark.parametrize(
    ("meld", "worth"),
    [
        ("JC JD JH JS", 200),  # mules
        ("9C 9D 9H 9S", 100),
        ("AC AD AH AS", 100),
        ("TC TD TH TS", 100),
        ("KC KD KH KS", 100),
        ("QC QD QH QS", 100),
        ("AS KS QS JS TS 9S", 100),  # a sixth card adds nothing
        ("KS QS JS TS 9S", 100),
        ("AS KS QS JS", 50),
        ("QS JS TS", 20),
    ],
)
def test_meld_values(meld, worth):
    assert meld_of(cards(meld)).points == worth


@pytest.mark.parametrize(
    ("not_a_meld", "why"),
    [
        ("AS KS", "3 to 6 cards in sequence"),
        ("AS KS JS", "cards in a row"),
        ("AS KS QH", "all of one suit"),
        ("JC JD JH", "four of a kind needs all four suits"),
        ("JC JD JH QS", "all of one suit"),
    ],
)
def test_cards_that_make_no_meld_are_refused_with_the_reason(not_a_meld, why):
    with pytest.raises(IllegalEntryError, match=why):
        meld_of(cards(not_a_meld))


@pytest.mark.parametrize(
    ("hand", "trump", "best", "total"),
    [
        ("QC QD QH QS JS TS", "H", ["QC QD QH QS"], 100),  # no card in two melds: the four Queens only
        ("AS KS QS AH KH QH", "C", ["AS KS QS", "AH KH QH"], 40),  # two dads
        ("AS KS QS JS TS 9S", "C", ["AS KS QS JS TS 9S"], 100),
        ("JC JD JH JS 9S TS", "C", ["JC JD JH JS"], 200),
        ("AC KD QH JS TS 9H", "C", [], 0),
        ("AH KH QH JH 9C 9D", "S", ["AH KH QH JH"], 50),
    ],
)
def test_best_melds_of_a_six_card_hand(hand, trump, best, total):
    found = best_melds(cards(hand), suit(trump))
    assert sorted(m.cards for m in found) == sorted(cards(b) for b in best)
    assert sum(m.points for m in found) == total


def test_bell_is_the_king_and_queen_of_trump():
    assert has_bell(cards("KH QH 9S"), suit("H"))
    assert not has_bell(cards("KH QH 9S"), suit("S"))


def m(text: str) -> Meld:
    return meld_of(cards(text))


# (NS melds, EW melds, trump, winner) — each side's melds as " | "-separated card lists
COMPARISONS = [
    pytest.param("JC JD JH JS", "9C 9D 9H 9S", "H", "NS", id="four-jacks-beat-four-nines"),
    pytest.param("AC AD AH AS", "9C 9D 9H 9S", "H", "EW", id="four-nines-beat-four-aces"),
    pytest.param("AC AD AH AS", "TC TD TH TS", "H", "NS", id="four-aces-beat-four-tens"),
    pytest.param("KC KD KH KS", "TC TD TH TS", "H", "EW", id="four-tens-beat-four-kings"),
    pytest.param("KC KD KH KS", "QC QD QH QS", "H", "NS", id="four-kings-beat-four-queens"),
    pytest.param("QC QD QH QS", "AS KS QS JS TS 9S", "H", "NS", id="four-of-a-kind-beats-any-sequence"),
    pytest.param("KS QS JS TS 9S", "AC KC QC JC", "H", "NS", id="sequence-of-5-beats-4"),
    pytest.param("AS KS QS JS", "AC KC QC", "H", "NS", id="sequence-of-4-beats-3"),
    pytest.param("AS KS QS", "KC QC JC", "H", "NS", id="same-length-higher-top-card"),
    pytest.param("AS KS QS", "AC KC QC", "C", "EW", id="same-top-trump-beats-plain"),
    pytest.param("AS KS QS", "AC KC QC", "H", None, id="equal-plain-sequences-push"),
    pytest.param("AS KS QS JS TS 9S", "AC KC QC JC TC", "D", None, id="six-ranks-as-five-with-its-top"),
    pytest.param("AS KS QS JS TS 9S", "AC KC QC JC TC", "C", "EW", id="six-and-five-same-top-trump-wins"),
    pytest.param("AS KS QS | 9H TH JH", "AC KC QC JC", "D", "EW", id="only-best-single-meld-counts"),
    pytest.param("QS JS TS", "", "D", "NS", id="one-team-only"),
    pytest.param("", "", "D", None, id="no-melds"),
]


@pytest.mark.parametrize(("ns", "ew", "trump", "winner"), COMPARISONS)
def test_meld_comparison_between_teams(ns, ew, trump, winner):
    teams = [[m(x) for x in side.split(" | ") if x] for side in (ns, ew)]
    assert meld_winner(teams, suit(trump)) == ({"NS": 0, "EW": 1}.get(winner) if winner else None)


def scored(trump: str, melds: dict, bell: str | None = None):
    """A quick entry by E (EW 100, NS 62) with these melds."""
    record = {"dealer": "N", "trump": trump, "maker": "E", "points": {"NS": 62, "EW": 100}, "melds": melds}
    return score_of({**record, "bell": bell} if bell else record)


def test_team_with_best_meld_scores_all_melds_of_both_players():
    s = scored("C", {"N": [["AS", "KS", "QS", "JS"]], "S": [["QD", "JD", "TD"]], "E": [["AH", "KH", "QH"]]})
    assert s.melds == (70, 0) and s.meld_winner == 0


def test_bell_scores_for_its_holder_whoever_wins_the_melds():
    s = scored("H", {"N": [["AS", "KS", "QS", "JS"]]}, bell="E")
    assert s.melds == (50, 0) and s.bell == (0, 20)


def test_bell_in_a_beaten_sequence_still_scores_20():
    s = scored("H", {"N": [["AS", "KS", "QS", "JS"]], "E": [["KH", "QH", "JH"]]})
    assert s.melds == (50, 0) and s.bell == (0, 20) and s.totals == (112, 120)


def test_dad_and_bell_is_40():
    s = scored("H", {"E": [["AH", "KH", "QH"]]})
    assert s.melds[1] + s.bell[1] == 40


def test_equal_plain_sequences_neither_team_scores_melds_but_bell_still_does():
    s = scored("H", {"N": [["AS", "KS", "QS"]], "E": [["AC", "KC", "QC"]]}, bell="W")
    assert s.meld_winner is None and s.melds == (0, 0) and s.bell == (0, 20)
