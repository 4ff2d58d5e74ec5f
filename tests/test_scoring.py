"""Scoring a hand (RULES.md: Scoring a hand, Renege) and its worked examples."""

import pytest

from engine.errors import IllegalEntryError
from engine.seats import N, S, W
from tests.helpers import hand_of, score_of


def quick(dealer, trump, maker, ns, ew, **more):
    return {"dealer": dealer, "trump": trump, "maker": maker, "points": {"NS": ns, "EW": ew}, **more}


# The worked examples of RULES.md.
def test_worked_example_a_tie_sets_the_makers():
    s = score_of(quick("E", "H", "S", 81, 81))
    assert s.score == (0, 81) and s.set and s.marks == ("XX", "")


def test_worked_example_dad_and_bell_make_it():
    s = score_of(quick("E", "H", "S", 70, 92, melds={"N": [["KH", "QH", "JH"]]}))
    assert s.score == (110, 92) and not s.set


def test_worked_example_the_fifty_beats_the_dad_so_only_ew_score_melds():
    s = score_of(quick("W", "C", "N", 90, 72, melds={"N": [["AD", "KD", "QD"]], "E": [["AS", "KS", "QS", "JS"]]}))
    assert s.score == (0, 122) and s.set and s.meld_winner == 1


def test_worked_example_renege_by_table_talk():
    s = score_of(
        quick(
            "S", "D", "W", 50, 112, melds={"N": [["JC", "JD", "JH", "JS"]]}, renege={"by": "EW", "reason": "table talk"}
        )
    )
    assert s.score == (362, 0) and s.next_dealer == W and s.marks == ("", "-")


def test_worked_example_no_card_in_two_melds():
    with pytest.raises(IllegalEntryError, match=r"melds\.N\[1\]: QS is also in melds\.N\[0\]"):
        score_of(quick("E", "H", "S", 70, 92, melds={"N": [["QC", "QD", "QH", "QS"], ["QS", "JS", "TS"]]}))


def test_makers_with_more_points_score_their_total_and_so_do_the_opponents():
    s = score_of(quick("N", "S", "E", 60, 102))
    assert s.score == (60, 102) and not s.set and s.makers == 1


def test_set_makers_score_0_and_the_others_never_receive_the_makers_points():
    s = score_of(quick("N", "S", "E", 100, 62))
    assert s.score == (100, 0) and s.set and s.marks == ("", "XX")


def test_a_team_with_no_trick_scores_only_its_melds_and_bell():
    s = score_of(quick("N", "S", "N", 0, 162, melds={"N": [["JC", "JD", "JH", "JS"]]}))
    assert s.score == (200, 162) and s.totals == (200, 162)


def test_a_team_that_scores_zero_is_marked_with_a_dash():
    s = score_of(quick("N", "S", "N", 162, 0))
    assert s.score == (162, 0) and s.marks == ("", "-")


def test_renege_award_counts_all_announced_melds_without_comparison():
    s = score_of(
        quick(
            "N",
            "S",
            "E",
            80,
            82,
            melds={"N": [["AD", "KD", "QD"]], "E": [["AC", "KC", "QC", "JC"]]},
            renege={"by": "EW", "reason": "exposed a card"},
        )
    )
    assert s.score == (182, 0) and s.melds == (20, 0)


def test_the_check_column_adds_up_to_the_points_in_play():
    s = score_of(quick("E", "H", "S", 70, 92, melds={"N": [["KH", "QH", "JH"]]}))
    assert s.in_play == 162 + 20 + 20
    s = score_of(quick("E", "H", "S", 81, 81))
    assert s.in_play == 81  # set: the other team's total alone


@pytest.mark.parametrize(
    ("points", "why"),
    [
        ({"NS": 81, "EW": 80}, "add up to 162"),
        ({"NS": 1, "EW": 161}, "no card is worth 1 point"),
        ({"NS": 161, "EW": 1}, "no card is worth 1 point"),
        ({"NS": -2, "EW": 164}, "not between 0 and 162"),
    ],
)
def test_trick_points_that_cannot_be_are_refused(points, why):
    with pytest.raises(IllegalEntryError, match=why):
        score_of({"dealer": "N", "trump": "S", "maker": "E", "points": points})


def test_a_misdeal_scores_nothing_and_the_same_dealer_deals_again():
    s = score_of({"dealer": "S", "misdeal": "card exposed while dealing"})
    assert s.misdeal and s.score == (0, 0) and s.next_dealer == S


def test_next_dealer_after_a_scored_hand_is_the_dealers_left():
    assert score_of(quick("W", "S", "E", 60, 102)).next_dealer == N


@pytest.mark.parametrize(("rules", "dealer"), [("evansville", N), ("pagat", 1), ({"pass_out_deal": "next"}, 1)])
def test_next_dealer_after_a_pass_out_follows_the_variant(rules, dealer):
    s = score_of({"rules": rules, "dealer": "N", "bids": ["pass"] * 8})
    assert s.passed_out and s.next_dealer == dealer


def test_quick_pass_out_form():
    assert hand_of({"dealer": "N", "passed_out": True}).passed_out
