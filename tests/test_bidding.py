"""Bidding (RULES.md: Bidding): two rounds, pass-out, and the bidding reneges."""

import pytest

from engine.bidding import Bidding, Call, parse_call
from engine.errors import EntryError, IllegalEntryError
from engine.seats import E, N, S, W
from tests.helpers import hand_of, score_of, suit
from tests.records import DEAL


def calls(*texts: str) -> Bidding:
    b = Bidding(N, suit("H"))
    for t in texts:
        b = b.call(parse_call(t))
    return b


def test_round_1_starts_at_dealers_left_and_play_takes_the_up_suit():
    b = calls("pass", "play")
    assert b.over and b.maker == S and b.trump == suit("H") and b.round == 1


def test_first_play_ends_the_bidding():
    with pytest.raises(IllegalEntryError, match="bidding is over"):
        calls("play", "pass")


def test_round_2_after_four_passes_names_another_suit():
    b = calls("pass", "pass", "pass", "pass", "pass", "play S")
    assert b.round == 2 and b.maker == S and b.trump == suit("S")


def test_round_2_play_must_name_a_suit():
    with pytest.raises(IllegalEntryError, match="names its suit"):
        calls("pass", "pass", "pass", "pass", "play")


def test_round_1_play_cannot_name_another_suit():
    with pytest.raises(IllegalEntryError, match="only play is the up card's suit"):
        calls("play S")


def test_eight_passes_is_a_pass_out_with_nothing_scored():
    b = calls(*["pass"] * 8)
    assert b.passed_out and b.trump is None
    s = score_of({"dealer": "N", "bids": ["pass"] * 8})
    assert s.passed_out and s.score == (0, 0)


def test_no_ninth_call():
    with pytest.raises(IllegalEntryError):
        calls(*["pass"] * 9)


@pytest.mark.parametrize("bad", ["bid", "play X", "", 3, "pass pass"])
def test_unknown_calls_are_refused(bad):
    with pytest.raises(EntryError):
        parse_call(bad)


def test_renege_naming_the_suit_passed_in_round_1():
    hand = hand_of({"dealer": "N", "up": "9C", "hands": DEAL, "bids": ["pass"] * 5 + ["play C"]})
    (r,) = hand.reneges()
    assert r.seat == S and "passed in round 1" in r.reason
    s = score_of({"dealer": "N", "up": "9C", "hands": DEAL, "bids": ["pass"] * 5 + ["play C"]})
    assert s.score == (0, 162) and s.renege.team == 0


def test_renege_playing_with_no_trump_in_hand():
    # W holds no hearts but says play in round 1 with the 9H up.
    record = {"dealer": "N", "up": "9H", "hands": DEAL, "bids": ["pass", "pass", "play"]}
    (r,) = hand_of(record).reneges()
    assert r.seat == W and r.reason == "said play holding no hearts"
    assert score_of(record).score == (162 + 20, 0)  # S's bell (K and Q of hearts) scores with the 162


def test_playing_holding_a_trump_is_no_renege():
    hand = hand_of({"dealer": "N", "up": "9H", "hands": DEAL, "bids": ["play"], "points": {"NS": 80, "EW": 82}})
    assert hand.maker == E and not hand.reneges()


def test_quick_entry_round_2_trump_cannot_be_the_up_suit():
    with pytest.raises(IllegalEntryError, match="turned down in round 1"):
        hand_of({"dealer": "N", "up": "9H", "trump": "H", "maker": "E", "round": 2, "points": {"NS": 80, "EW": 82}})


def test_quick_entry_round_is_inferred_from_the_up_card():
    hand = hand_of({"dealer": "N", "up": "9H", "trump": "S", "maker": "E", "points": {"NS": 80, "EW": 82}})
    assert hand.round == 2


def test_calls_go_clockwise():
    assert [calls(*["pass"] * i).turn for i in range(5)] == [E, S, W, N, E]


def test_str_of_a_call_is_its_record_form():
    assert [str(c) for c in (Call(False), Call(True), Call(True, suit("S")))] == ["pass", "play", "play S"]
