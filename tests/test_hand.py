"""A hand as events (RULES.md: Deal, Play, Renege): whose turn, what may be played, replay, proof."""

import pytest

from engine.cards import card_name, names
from engine.errors import IllegalEntryError
from engine.hand import CallRenege, Hand, Play
from engine.seats import E, N, S, W
from tests.helpers import card_list, cards, hand_of, score_of
from tests.records import DEAL, LAWFUL, RENEGE

# E throws AC on trick 2 while holding the 10 of trump, and plays it in trick 3.
BIDDING = {"dealer": "N", "up": "9H", "bids": ["play"]}


def test_first_trick_is_led_by_the_dealers_left_whoever_the_makers_are():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL})
    assert hand.tricks()[0].leader == E and hand.maker == E


def test_winner_of_a_trick_leads_the_next():
    tricks = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL}).tricks()
    assert [t.leader for t in tricks[1:]] == [t.winner for t in tricks[:-1]]
    assert [t.winner for t in tricks] == [N, E, N, S, N, E]


def test_last_trick_adds_10_and_the_hand_holds_162():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL})
    assert hand.tricks()[-1].points == 25 and sum(hand.won) == 162 and hand.won == (110, 52)


def test_whose_turn_and_what_may_be_played_now():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL[:4]}, complete=False)
    assert hand.turn == N  # N won trick 1
    hand = hand.apply(Play(card_list("AS")[0]))
    assert hand.turn == E and names(hand.legal()) == names(cards("TH"))  # void in spades: must trump


def test_an_illegal_card_is_recorded_as_a_renege_and_ends_the_hand():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL[:5]}, complete=False)
    assert hand.check_play(card_list("AC")[0]).why == "must trump, holding 10♥"
    hand = hand.apply(Play(card_list("AC")[0]))
    (r,) = hand.reneges()
    assert (r.seat, r.trick, card_name(r.card)) == (E, 2, "AC") and hand.finished and hand.turn is None


def test_renege_proven_from_the_plays_alone():
    # No hands given: each player's hand is the six cards they played.
    (r,) = hand_of({**BIDDING, "plays": RENEGE}).reneges()
    assert (r.seat, r.trick, card_name(r.card)) == (E, 2, "AC")
    assert r.reason == "must trump, holding 10♥" and names(r.legal) == names(cards("TH"))


def test_lawful_plays_clear_every_player():
    assert hand_of({**BIDDING, "plays": LAWFUL}).reneges() == []


def test_play_renege_scores_0_against_162_plus_melds():
    s = score_of({**BIDDING, "plays": RENEGE, "melds": {"N": [["AS", "KS", "QS"]]}})
    assert s.score == (162 + 20 + 20, 0)  # N's dad and S's bell (K and Q of trump, seen in the plays)
    assert s.next_dealer == E


def test_both_teams_renege_nothing_scored_same_dealer():
    s = score_of({**BIDDING, "plays": RENEGE, "renege": {"by": "NS", "reason": "advised partner"}})
    assert s.void and s.score == (0, 0) and s.next_dealer == N and s.marks == ("", "")


def test_renege_may_end_the_plays_early_when_the_hands_are_known():
    s = score_of({**BIDDING, "hands": DEAL, "plays": RENEGE[:6]})
    assert s.renege.trick == 2 and s.score == (162 + 20, 0)


def test_plays_that_stop_with_no_renege_are_incomplete():
    with pytest.raises(IllegalEntryError, match="stops after 6 cards"):
        hand_of({**BIDDING, "plays": LAWFUL[:6]})


def test_a_card_not_in_the_players_hand_is_refused():
    with pytest.raises(IllegalEntryError, match=r"plays\[0\]: E does not hold JC"):
        hand_of({**BIDDING, "hands": DEAL, "plays": ["JC"]}, complete=False)


def test_replaying_the_events_gives_the_identical_hand():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL, "melds": {"N": [["AS", "KS", "QS"]]}})
    again = Hand.replay(hand.dealer, hand.events)
    assert again.events == hand.events and again.won == hand.won and again.tricks() == hand.tricks()


def test_applying_an_event_leaves_the_earlier_hand_unchanged():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL[:4]}, complete=False)
    hand.apply(Play(card_list("AS")[0]))
    assert len(hand.plays) == 4


def test_table_renege_needs_a_reason():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL[:4]}, complete=False)
    with pytest.raises(IllegalEntryError, match="say why"):
        hand.apply(CallRenege(1, "  "))


def test_seats_play_in_turn_clockwise_from_the_leader():
    hand = hand_of({**BIDDING, "hands": DEAL, "plays": LAWFUL})
    assert hand.players[:8] == (E, S, W, N, N, E, S, W)
