"""The odds of a bid: the deals a maker could have faced, counted exhaustively where they are few
(checked against the tests' own enumeration and exhaustive minimax), sampled uniformly and by seed
where they are many, and scored as the hand would be."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK, bit, card_set, cards_in, count
from engine.deal import deal
from engine.hand import Hand
from engine.odds import bid_deals, counted, deals_of, made_with_melds, odds_of_bid, ways
from engine.seats import SEATS, left_of, other, team_of
from engine.simulate import random_bids
from tests.test_solve import Exhaustive, random_position

rngs = st.randoms(use_true_random=False)


def every_way(fixed, unseen, sizes):
    """Each way to give the unseen cards out, from every seat label a card could take."""
    cards = list(cards_in(unseen))
    needs = [size - count(f) for f, size in zip(fixed, sizes, strict=True)]
    out = set()
    for labels in product(range(4), repeat=len(cards)):
        if [labels.count(s) for s in range(4)] != needs:
            continue
        hands = list(fixed)
        for c, s in zip(cards, labels, strict=True):
            hands[s] |= bit(c)
        out.add(tuple(hands))
    return out


def an_ending(rng: random.Random):
    """The last two tricks of a random deal, seen from one seat: its own cards and nobody else's."""
    p = random_position(rng, 16)
    viewer = rng.choice(SEATS)
    fixed = [p.hands[s] if s == viewer else 0 for s in SEATS]
    unseen = card_set(c for s in SEATS if s != viewer for c in cards_in(p.hands[s]))
    return p, viewer, fixed, unseen, [count(h) for h in p.hands]


def takes_more(p, team):
    """Whether ``team`` takes more than the other side from an ending, by exhaustive minimax."""

    def decide(hands) -> bool:
        pts = Exhaustive(p.trump).points(hands, p.leader, ())
        return pts[team] > pts[other(team)]

    return decide


@settings(max_examples=30, deadline=None)
@given(rngs)
def test_the_odds_of_an_ending_count_every_way_the_unseen_cards_lie_once(rng):
    p, viewer, fixed, unseen, sizes = an_ending(rng)
    deals, exact = deals_of(fixed, unseen, sizes, 1000, random.Random(0))
    expected = every_way(fixed, unseen, sizes)
    assert exact and len(deals) == len(set(deals)) == ways(fixed, unseen, sizes) == len(expected) == 90
    assert set(deals) == expected
    odds = counted(deals, exact, takes_more(p, team_of(viewer)))
    brute = sum(takes_more(p, team_of(viewer))(d) for d in expected)
    assert (odds.made, odds.deals, odds.margin) == (brute, 90, 0.0)


def test_sampled_odds_of_endings_fall_within_their_margin_of_the_exact_ones():
    """Forty deals drawn from ninety, for twenty endings: each sampled chance within four standard
    errors of the exact one (seeded, so the same every run; a sampler that favoured some deals or
    seats would leave it)."""
    misses = []
    for i in range(20):
        p, viewer, fixed, unseen, sizes = an_ending(random.Random(i))
        decide = takes_more(p, team_of(viewer))
        exact = counted(*deals_of(fixed, unseen, sizes, 1000, random.Random(0)), decide)
        deals, whole = deals_of(fixed, unseen, sizes, 40, random.Random(i))
        sampled = counted(deals, whole, decide)
        assert not whole and sampled.deals == 40
        q = exact.chance
        if abs(sampled.chance - q) > 4 * (q * (1 - q) / 40) ** 0.5 + 1 / 40:
            misses.append((i, sampled.chance, q))
    assert not misses


def a_bid(rng: random.Random) -> Hand:
    while True:
        dealer = rng.choice(SEATS)
        hand = random_bids(rng, Hand(dealer).apply(deal(rng, dealer)))
        if not hand.passed_out:
            return hand


@settings(max_examples=50, deadline=None)
@given(rngs, st.integers(0, 10**6))
def test_every_deal_a_maker_could_have_faced_keeps_what_the_maker_saw(rng, seed):
    hand = a_bid(rng)
    found = bid_deals(hand, 30, seed)
    assert found is not None
    deals, exact = found
    assert not exact and len(deals) == 30
    for d in deals:
        assert [count(h) for h in d] == [6, 6, 6, 6]
        assert d[0] | d[1] | d[2] | d[3] == DECK  # every card once: four hands of six
        assert d[hand.maker] == hand.located[hand.maker]  # the maker's own cards
        assert d[hand.dealer] & bit(hand.up)  # the up card stays with the dealer
    assert bid_deals(hand, 30, seed) == found  # the same hand and seed: the same deals


def test_another_seed_draws_other_deals_and_the_same_seed_the_same_odds():
    hand = a_bid(random.Random(7))
    assert bid_deals(hand, 20, 1) != bid_deals(hand, 20, 2)
    assert odds_of_bid(hand, 20, 1) == odds_of_bid(hand, 20, 1)


def test_a_deal_is_scored_as_the_hand_would_be():
    """The bid's deals scored with melds and bell: the actual deal of a random hand, played with best
    play, scored by the engine's own hand scoring gives the same made or set."""
    from engine.hindsight import hindsight
    from engine.rules import Rules
    from engine.simulate import random_hand

    checked = 0
    for i in range(30):
        hand = random_hand(random.Random(i))  # every seat announces its best melds
        if hand.passed_out or hand.reneges():
            continue
        seen = hindsight(hand, Rules())
        assert seen is not None
        dealt = tuple(hand.located[s] for s in SEATS)
        made = made_with_melds(dealt, hand.trump, hand.makers, left_of(hand.dealer))
        assert made == (not seen.best_play.set), i
        checked += 1
    assert checked >= 20


def test_no_odds_without_a_bid_or_the_makers_cards():
    assert odds_of_bid(Hand("W").deal(up="JH")) is None  # nothing bid
    unknown = Hand("W").deal(up="JH").bid("play")  # N played, N's cards not entered
    assert odds_of_bid(unknown) is None
    with pytest.raises(ValueError, match="at least 1"):
        odds_of_bid(Hand("W").deal(up="JH", hands={"N": "9H AH TS AS KS QS"}).bid("play"), deals=0)


def test_the_odds_say_their_sample_and_margin():
    hand = Hand("W").deal(up="JH", hands={"N": "9H AH TS AS KS QS"}).bid("play")
    odds = odds_of_bid(hand, deals=50, seed=3)
    assert odds is not None and odds.made + odds.set == 50
    said = odds.words("N")
    assert said.startswith(f"made in {round(100 * odds.chance)} % of the deals N could have faced (50 deals, ± ")


def test_clabber_solve_odds_says_the_odds_and_refuses_a_record_without_the_makers_cards(tmp_path):
    import json

    from click.testing import CliRunner

    from shared.cli import cli

    record = {"format": "clabber-hand/1", "dealer": "W", "up": "JH", "bids": ["play"]}
    (tmp_path / "bid.json").write_text(json.dumps({**record, "hands": {"N": ["9H", "AH", "TS", "AS", "KS", "QS"]}}))
    (tmp_path / "blind.json").write_text(json.dumps(record))
    hand = Hand("W").deal(up="JH", hands={"N": "9H AH TS AS KS QS"}).bid("play")
    expected = odds_of_bid(hand, 60, 5)
    assert expected is not None
    said = CliRunner().invoke(cli, ["solve", str(tmp_path / "bid.json"), "--odds", "--deals", "60", "--seed", "5"])
    assert said.exit_code == 0 and said.stdout.startswith(f"N's play on ♥: {expected.words('N')}; set in the others")
    as_json = CliRunner().invoke(
        cli, ["solve", str(tmp_path / "bid.json"), "--odds", "--deals", "60", "--seed", "5", "--json"]
    )
    out = json.loads(as_json.stdout)
    assert (out["maker"], out["trump"], out["deals"], out["made"], out["set"]) == (
        "N",
        "H",
        60,
        expected.made,
        expected.set,
    )
    refused = CliRunner().invoke(cli, ["solve", str(tmp_path / "blind.json"), "--odds"])
    assert refused.exit_code == 2 and "the maker's six cards" in refused.stderr and not refused.stdout
