"""Properties of the engine over random deals and random lawful play (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import JACK, POINTS_IN_HAND, card_names, cards_in, count, rank_of
from engine.deal import deal, draw_for_dealer
from engine.errors import EntryError
from engine.hand import Hand, Play
from engine.melds import best_melds
from engine.record import hand_to_json, read_hand
from engine.rules import Rules
from engine.scoring import score_hand
from engine.seats import SEATS
from engine.simulate import random_bids, random_hand

# Hypothesis draws the randomness itself, so a failure shrinks to a small, plain hand.
rngs = st.randoms(use_true_random=False)
dealers = st.sampled_from(SEATS)
RULES = Rules()


def rotated(record: dict) -> dict:
    """The same hand with every seat moved one place clockwise: the teams swap."""
    turn = {"N": "E", "E": "S", "S": "W", "W": "N"}
    out = dict(record)
    out["dealer"] = turn[record["dealer"]]
    for key in ("hands", "melds"):
        if key in record:
            out[key] = {turn[s]: v for s, v in record[key].items()}
    if "maker" in record:
        out["maker"] = turn[record["maker"]]
    return out


@given(rngs, dealers)
def test_every_hand_holds_162_and_24_cards_are_played(rng, dealer):
    hand = random_hand(rng, dealer)
    if not hand.passed_out:
        assert len(hand.plays) == 24 and sorted(hand.plays) == list(range(24))
        assert sum(hand.won) == POINTS_IN_HAND


@given(rngs, dealers)
def test_the_legal_set_is_never_empty_and_lawful_play_has_no_renege(rng, dealer):
    hand = random_bids(rng, Hand(dealer).apply(deal(rng, dealer)))
    if hand.passed_out:
        return
    while len(hand.plays) < 24:
        legal = hand.legal()
        assert legal and legal & ~hand.holding(hand.turn) == 0
        hand = hand.apply(Play(rng.choice(list(cards_in(legal)))))
    assert hand.reneges() == []


@given(rngs, dealers)
def test_replay_from_events_gives_an_identical_hand_and_score(rng, dealer):
    hand = random_hand(rng, dealer)
    again = Hand.replay(hand.dealer, hand.events)
    assert again.events == hand.events and again.tricks() == hand.tricks()
    assert score_hand(again, RULES) == score_hand(hand, RULES)


@given(rngs, dealers)
def test_records_round_trip(rng, dealer):
    hand = random_hand(rng, dealer)
    record = hand_to_json(hand, RULES)
    back = read_hand(json.loads(json.dumps(record)))
    assert hand_to_json(back.hand, back.rules) == record
    assert score_hand(back.hand, back.rules) == score_hand(hand, RULES)


@given(rngs, dealers)
def test_swapping_the_teams_mirrors_the_score(rng, dealer):
    hand = random_hand(rng, dealer)
    record = hand_to_json(hand, RULES)
    a = score_hand(hand, RULES)
    b = score_hand(read_hand(rotated(record)).hand, RULES)
    assert b.score == a.score[::-1] and b.totals == a.totals[::-1] and b.set == a.set


@given(rngs, st.integers(min_value=0, max_value=23))
def test_a_renege_is_proven_from_the_plays_alone(rng, at):
    """Play one unlawful card where there is one; the engine finds it with or without the hands."""
    hand = random_bids(rng, Hand(0).apply(deal(rng, 0)))
    if hand.passed_out:
        return
    injected = None
    while len(hand.plays) < 24:
        legal = hand.legal()
        unlawful = hand.holding(hand.next_player) & ~legal
        if injected is None and len(hand.plays) >= at and unlawful:
            injected = len(hand.plays)
            choice = rng.choice(list(cards_in(unlawful)))
        else:
            choice = rng.choice(list(cards_in(legal)))
        hand = hand.apply(Play(choice))
    record = hand_to_json(hand, RULES)
    del record["hands"]
    blind = read_hand(record).hand
    found = [r.play for r in blind.reneges() if r.play is not None]
    assert found == [r.play for r in hand.reneges() if r.play is not None]
    assert (injected is None) == (found == []) and (injected is None or found[0] == injected)


@given(rngs, st.integers(min_value=0, max_value=162), st.sampled_from("NESW"), st.sampled_from("CDHS"))
def test_quick_entries_score_consistently(rng, ns, maker, trump):
    """Random quick entries with each seat's best melds: the check column and the set rule hold."""
    d = deal(rng, 0)
    melds = {"NESW"[s]: [card_names(m.cards) for m in best_melds(d.hands[s], "CDHS".index(trump))] for s in range(4)}
    record = {
        "format": "clabber-hand/1",
        "dealer": "N",
        "trump": trump,
        "maker": maker,
        "points": {"NS": ns, "EW": 162 - ns},
        "melds": {k: v for k, v in melds.items() if v},
    }
    try:
        rec = read_hand(record)
    except EntryError as e:
        assert ns in (1, 161), e
        return
    s = score_hand(rec.hand, rec.rules)
    makers = ["NS", "EW"].index("NS" if maker in "NS" else "EW")
    if s.renege is not None:  # the melds showed the maker's whole hand, with no trump in it
        assert s.renege.reason.startswith("said play holding no") and s.score[makers] == 0
        assert s.score[1 - makers] == 162 + s.melds[1 - makers] + s.bell[1 - makers]
        return
    assert s.totals[0] + s.totals[1] == 162 + sum(s.melds) + sum(s.bell)
    assert s.set == (s.totals[makers] <= s.totals[1 - makers])
    assert s.score == ((0, s.totals[1]) if s.set and makers == 0 else (s.totals[0], 0) if s.set else s.totals)


@given(rngs, dealers)
def test_the_jack_draw_gives_the_seats_of_the_first_two_jacks(rng, start):
    draw = draw_for_dealer(rng, start)
    jacks = [i for i, c in enumerate(draw.cards) if rank_of(c) == JACK]
    assert len(jacks) == 2 and jacks[1] == len(draw.cards) - 1
    assert (draw.first, draw.second) == (draw.seat_of(jacks[0]), draw.seat_of(jacks[1]))


@given(rngs, dealers)
def test_after_the_first_jack_only_the_other_three_are_dealt_to(rng, start):
    draw = draw_for_dealer(rng, start)
    first = draw.cards.index(next(c for c in draw.cards if rank_of(c) == JACK))
    assert draw.second != draw.first
    assert draw.first not in draw.seats[first + 1 :]
    # Clockwise from the start, one card each, skipping only the first dealer once they are out.
    seat = start
    for i, s in enumerate(draw.seats):
        assert s == seat, f"card {i} went to {s}, not {seat}"
        seat = (seat + 1) % 4
        if i >= first and seat == draw.first:
            seat = (seat + 1) % 4


@given(rngs, dealers)
def test_a_deal_gives_six_cards_each_and_the_up_card_is_the_dealers(rng, dealer):
    d = deal(rng, dealer)
    assert [count(h) for h in d.hands] == [6] * 4 and d.hands[dealer] >> d.up & 1
