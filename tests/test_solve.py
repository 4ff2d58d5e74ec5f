"""The double-dummy solver and hindsight (engine/solve.py, engine/hindsight.py): checked against an
exhaustive minimax written here, against itself card by card, and on hands worked through by hand."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import LAST_TRICK_BONUS, SUITS, Card, CardSet, card_set, cards_in, parse_card, points
from engine.deal import deal
from engine.errors import IllegalEntryError
from engine.hand import Hand
from engine.hindsight import hindsight
from engine.play import highest_trump, legal_cards, trick_points, trick_winner
from engine.rules import Rules
from engine.scoring import score_hand
from engine.seats import EW, NS, SEATS, E, N, W, left_of
from engine.solve import Pair, Position, Solver, position_of, solve
from tests.helpers import card_list, cards, hand_of
from tests.records import BELL_DECIDES, DEAL, LAWFUL, RENEGE, SET_BY_ONE_CARD, SET_IN_THE_CARDS

RULES = Rules()
rngs = st.randoms(use_true_random=False)


def remaining(hands: tuple[CardSet, ...], trick: tuple[Card, ...], trump: int) -> int:
    """Everything still to take from a position: its card points and the last trick's 10."""
    cards = list(trick) + [c for h in hands for c in cards_in(h)]
    return sum(points(c, trump) for c in cards) + (LAST_TRICK_BONUS if cards else 0)


class Exhaustive:
    """Best play found by trying every lawful card at every turn and keeping the best for the side to
    move: no bound ever cuts a card off. Each position at the start of a trick is worked out once; one
    instance serves the positions of one deal (told apart by the cards left and who leads)."""

    def __init__(self, trump: int) -> None:
        self.trump = trump
        self.known: dict[int, int] = {}
        self.legal: dict[tuple[CardSet, tuple[Card, ...]], tuple[Card, ...]] = {}
        self.tricks: dict[tuple[Card, ...], tuple[int, int]] = {}

    def cards(self, hands: tuple[CardSet, ...], leader: int, trick: tuple[Card, ...]) -> dict[Card, Pair]:
        """(NS, EW) from a position once the player to move plays each lawful card, best play after it."""
        total = remaining(hands, trick, self.trump)
        seat = (leader + len(trick)) % 4
        out = {}
        for c in self._lawful(hands[seat], trick):
            held = list(hands)
            held[seat] &= ~(1 << c)
            ns = self._rest_of_trick(held, leader, (*trick, c))
            out[c] = (ns, total - ns)
        return out

    def points(self, hands: tuple[CardSet, ...], leader: int, trick: tuple[Card, ...]) -> Pair:
        """(NS, EW) from a position: the trick in progress and every later trick."""
        team = (leader + len(trick)) % 2
        return max(self.cards(hands, leader, trick).values(), key=lambda v: v[team])

    def _rest_of_trick(self, hands: list[CardSet], leader: int, trick: tuple[Card, ...]) -> int:
        """NS's points once ``trick`` is played so far (``hands`` without its cards)."""
        if len(trick) == 4:
            return self._after(hands, leader, trick)
        seat = (leader + len(trick)) % 4
        holding, values = hands[seat], []
        for c in self._lawful(holding, trick):
            hands[seat] = holding & ~(1 << c)
            values.append(self._rest_of_trick(hands, leader, (*trick, c)))
        hands[seat] = holding
        return max(values) if seat % 2 == 0 else min(values)

    def _from(self, hands: list[CardSet], leader: int) -> int:
        """NS's points from the start of a trick: its four turns as four loops, each over every lawful card."""
        key = hands[0] | hands[1] | hands[2] | hands[3] | leader << 24
        if key in self.known:
            return self.known[key]
        a, b, c, d = ((leader + i) % 4 for i in range(4))
        ha, hb, hc, hd = hands[a], hands[b], hands[c], hands[d]
        pick, other = (max, min) if leader % 2 == 0 else (min, max)  # a and c play for the leader's side
        lawful, after = self._lawful, self._after
        firsts = []
        for c0 in lawful(ha, ()):
            hands[a] = ha & ~(1 << c0)
            seconds = []
            for c1 in lawful(hb, (c0,)):
                hands[b] = hb & ~(1 << c1)
                thirds = []
                for c2 in lawful(hc, (c0, c1)):
                    hands[c] = hc & ~(1 << c2)
                    fourths = []
                    for c3 in lawful(hd, (c0, c1, c2)):
                        hands[d] = hd & ~(1 << c3)
                        fourths.append(after(hands, leader, (c0, c1, c2, c3)))
                    hands[d] = hd
                    thirds.append(other(fourths))
                hands[c] = hc
                seconds.append(pick(thirds))
            hands[b] = hb
            firsts.append(other(seconds))
        hands[a] = ha
        self.known[key] = best = pick(firsts)
        return best

    def _after(self, hands: list[CardSet], leader: int, trick: tuple[Card, ...]) -> int:
        """NS's points from a complete trick on (``hands`` without its cards)."""
        known = self.tricks.get(trick)
        if known is None:
            known = self.tricks[trick] = (trick_winner(trick, self.trump), trick_points(trick, self.trump))
        won, gain = known
        winner = (leader + won) % 4
        if any(hands):
            rest = self._from(hands, winner)
        else:
            rest, gain = 0, gain + LAST_TRICK_BONUS
        return rest + gain if winner % 2 == 0 else rest

    def _lawful(self, holding: CardSet, trick: tuple[Card, ...]) -> tuple[Card, ...]:
        found = self.legal.get((holding, trick))
        if found is None:
            found = self.legal[(holding, trick)] = tuple(cards_in(legal_cards(holding, trick, self.trump)))
        return found


def random_position(rng: random.Random, plays: int) -> Position:
    """A shuffled deal, a trump suit drawn at random, and ``plays`` lawful random cards from the first lead."""
    dealer = rng.choice(SEATS)
    hands = list(deal(rng, dealer).hands)
    trump = rng.choice(SUITS)
    leader, trick = left_of(dealer), ()
    for _ in range(plays):
        seat = left_of(leader, len(trick))
        c = rng.choice(list(cards_in(legal_cards(hands[seat], trick, trump))))
        hands[seat] &= ~(1 << c)
        trick = (*trick, c)
        if len(trick) == 4:
            leader, trick = left_of(leader, trick_winner(trick, trump)), ()
    return Position((hands[0], hands[1], hands[2], hands[3]), trump, leader, trick)


def every_position(hands: tuple[CardSet, ...], leader: int, trick: tuple[Card, ...], trump: int) -> Iterator[Position]:
    """Every position lawful play can reach from this one (this one first), the hand's end left out."""
    if not trick and not any(hands):
        return
    yield Position((hands[0], hands[1], hands[2], hands[3]), trump, SEATS[leader], trick)
    seat = (leader + len(trick)) % 4
    for c in cards_in(legal_cards(hands[seat], trick, trump)):
        held = tuple(h & ~(1 << c) if s == seat else h for s, h in enumerate(hands))
        played = (*trick, c)
        if len(played) == 4:
            yield from every_position(held, (leader + trick_winner(played, trump)) % 4, (), trump)
        else:
            yield from every_position(held, leader, played, trump)


def agree(solver: Solver, exhaustive: Exhaustive, p: Position) -> None:
    """The solver's points and card values at a position are the exhaustive minimax's."""
    got, want = solver.solve(p), exhaustive.cards(p.hands, p.leader, p.trick)
    assert got.cards == want, p
    assert got.points == max(want.values(), key=lambda v: v[p.turn % 2]), p


def test_the_solver_agrees_with_exhaustive_minimax_along_lines_of_play_of_200_endings():
    rng = random.Random(200)
    for _ in range(200):
        p = random_position(rng, plays=12)
        solver, exhaustive = Solver(p.trump), Exhaustive(p.trump)
        while not p.over:
            agree(solver, exhaustive, p)
            p = p.play(rng.choice(list(cards_in(p.legal()))))


# The 2,000 endings and the 500 deals in ten parts each, so that parallel workers share them.
PARTS = 10


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_the_solver_agrees_with_exhaustive_minimax_at_every_position_of_2000_endings(part):
    rng = random.Random(2000 + part)
    checked = 0
    for _ in range(2000 // PARTS):
        ending = random_position(rng, plays=12)
        solver, exhaustive = Solver(ending.trump), Exhaustive(ending.trump)
        for p in every_position(ending.hands, ending.leader, ending.trick, ending.trump):
            agree(solver, exhaustive, p)
            checked += 1
    assert checked > 2000 // PARTS * 100  # every position of each ending, not only its first


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_the_solver_agrees_with_exhaustive_minimax_on_500_whole_deals(part):
    rng = random.Random(500 + part)
    for _ in range(500 // PARTS):
        p = random_position(rng, plays=0)
        agree(Solver(p.trump), Exhaustive(p.trump), p)


def gives(p: Position, c: Card) -> Pair:
    """(NS, EW) from a position once the player to move plays ``c``, the solver's best play after it."""
    after = solve(p.play(c))
    trick = (*p.trick, c)
    if len(trick) < 4:
        return after.points
    winner = left_of(p.leader, trick_winner(trick, p.trump))
    gain = trick_points(trick, p.trump) + (0 if any(after.position.hands) else LAST_TRICK_BONUS)
    return (after.points[0] + gain, after.points[1]) if winner % 2 == 0 else (after.points[0], after.points[1] + gain)


@given(rngs, st.integers(0, 23))
def test_a_position_is_worth_the_best_of_its_lawful_cards(rng, plays):
    p = random_position(rng, plays)
    solution = solve(p)
    team = p.turn % 2
    each = {c: gives(p, c) for c in cards_in(p.legal())}
    assert all(solution.points[team] >= v[team] for v in each.values())
    assert solution.points[team] == max(v[team] for v in each.values())
    assert solution.cards == each
    assert sum(solution.points) == remaining(p.hands, p.trick, p.trump)
    assert solution.best == card_set(c for c, v in each.items() if v[team] == solution.points[team])


@given(rngs, st.integers(0, 23), st.sampled_from((NS, EW)), st.integers(-5, 170))
def test_whether_a_team_reaches_a_mark_is_what_its_points_say(rng, plays, team, mark):
    """The null-window question the odds of a bid ask, at any mark, against the points themselves;
    the same solver asked again at other marks (its table then holds bounds from other windows)."""
    p = random_position(rng, plays)
    points = Solver(p.trump).points(p)
    solver = Solver(p.trump)
    for m in (mark, points[team], points[team] + 1, mark // 2):
        assert solver.reaches(p, team, m) == (points[team] >= m), m


@given(rngs)
def test_lawful_cards_depend_on_a_trick_only_through_its_suit_led_and_highest_trump(rng):
    # The solver keeps legal_cards' answer for a holding, the suit led and the highest trump.
    cards = list(range(24))
    rng.shuffle(cards)
    trump = rng.choice(SUITS)
    trick = tuple(cards[: rng.randint(1, 3)])
    holding = card_set(cards[4 : 4 + rng.randint(1, 6)])
    top = highest_trump(trick, trump)
    alike = (trick[0], *([top] if top is not None and top != trick[0] else []))
    assert legal_cards(holding, trick, trump) == legal_cards(holding, alike, trump)


def test_a_position_refuses_cards_that_cannot_be():
    held = (cards("9C TC"), cards("JC QC"), cards("KC AC"), cards("9D TD"))
    with pytest.raises(IllegalEntryError, match="9C is in the position twice"):
        Position(held, SUITS[0], N, card_list("9C"))
    with pytest.raises(IllegalEntryError, match="N holds 2 cards"):
        Position(held, SUITS[0], N, card_list("JD"))  # N led the trick and still holds two, as E does
    with pytest.raises(IllegalEntryError, match="N may not play JC"):
        Position(held, SUITS[0], N).play(parse_card("JC"))  # E's card
    with pytest.raises(ValueError, match="this solver plays diamonds as trump, not clubs"):
        Solver(SUITS[1]).points(Position(held, SUITS[0], N))


def test_the_position_of_a_hand_before_a_play():
    hand = hand_of({"dealer": "N", "up": "9H", "bids": ["play"], "hands": DEAL, "plays": LAWFUL})
    p = position_of(hand, 5)
    assert p.leader == N  # N took the first trick, A♥ K♥ A♦ J♥, with the highest trump
    assert p.trick == (parse_card("AS"),) and p.turn == E
    assert p.hands == (cards("9H KS QS 9C"), cards("TH AC TC KC 9D"), cards("QH JS TS 9S QC"), cards("JC TD KD QD JD"))
    assert position_of(hand).over and position_of(hand, 0).hands == tuple(cards(" ".join(DEAL[s])) for s in "NESW")


# ---- hindsight on hands worked through by hand ---------------------------------------------------


def reference_costs(hand: Hand) -> list[tuple[int, CardSet]]:
    """For each card played, by the exhaustive minimax: what it cost its team, and the best cards then."""
    assert hand.trump is not None
    exhaustive = Exhaustive(hand.trump)
    out = []
    for i, c in enumerate(hand.plays):
        p = position_of(hand, i)
        team = p.turn % 2
        each = {x: v[team] for x, v in exhaustive.cards(p.hands, p.leader, p.trick).items()}
        top = max(each.values())
        out.append((top - each[c], card_set(x for x, v in each.items() if v == top)))
    return out


def best_from_the_first_lead(hand: Hand) -> Pair:
    p = position_of(hand, 0)
    return Exhaustive(p.trump).points(p.hands, p.leader, p.trick)


def test_a_set_that_was_in_the_cards():
    hand = hand_of(SET_IN_THE_CARDS)
    seen = hindsight(hand, RULES)
    assert seen is not None
    assert score_hand(hand, RULES).set  # EW said play and took 74 to NS's 88
    assert seen.best_play.tricks == best_from_the_first_lead(hand) == (88, 74)
    assert seen.best_play.set and seen.best_play.makers == EW and seen.makers_most == 74
    assert [(c.cost, c.best) for c in seen.costs] == reference_costs(hand)
    assert [c.cost for c in seen.costs] == [0] * 24
    assert seen.first_costly(NS) is None and seen.first_costly(EW) is None
    assert seen.without_renege is None


def test_a_set_that_one_card_caused():
    hand = hand_of(SET_BY_ONE_CARD)
    seen = hindsight(hand, RULES)
    assert seen is not None
    played = score_hand(hand, RULES)
    assert played.set and played.tricks == (82, 80)  # EW, the makers, set by 2
    assert seen.best_play.tricks == best_from_the_first_lead(hand) == (75, 87)
    assert not seen.best_play.set  # with best play EW make it
    assert [(c.cost, c.best) for c in seen.costs] == reference_costs(hand)
    costly = [(c.trick, c.seat, c.card, c.instead, c.cost) for c in seen.costs if c.cost]
    assert costly == [(2, W, parse_card("TD"), parse_card("QD"), 7)]  # 10♦ where the Q♦ would do
    assert seen.first_costly(EW) == seen.costs[5] and seen.first_costly(NS) is None


def test_a_hand_the_bells_20_decides():
    hand = hand_of(BELL_DECIDES)
    seen = hindsight(hand, RULES)
    assert seen is not None
    assert seen.best_play.tricks == best_from_the_first_lead(hand) == (75, 87)
    assert seen.best_play.makers == NS and seen.best_play.bell == (20, 0)  # S holds K♣ Q♣
    assert seen.best_play.totals == (95, 87) and not seen.best_play.set  # 75 alone would be set
    assert [(c.cost, c.best) for c in seen.costs] == reference_costs(hand)
    assert all(c.cost == 0 for c in seen.costs)


def test_hindsight_of_a_renege_hand_solves_from_just_before_the_renege_card():
    hand = hand_of({"dealer": "N", "up": "9H", "bids": ["play"], "hands": DEAL, "plays": RENEGE})
    renege = hand.reneges()[0]
    assert renege.play == 5 and renege.seat == E  # E's A♣ on a spade lead, holding 10♥
    seen = hindsight(hand, RULES)
    assert seen is not None and seen.without_renege is not None
    assert len(seen.costs) == 5  # the cards before the renege card
    before = position_of(hand, 5)
    rest = Exhaustive(before.trump).points(before.hands, before.leader, before.trick)
    first = hand.tricks()[0]  # A♥ K♥ A♦ J♥: N takes 11 + 4 + 11 + 20
    assert first.winner == N and first.points == 46
    assert seen.without_renege.tricks == (rest[0] + 46, rest[1])
    assert seen.without_renege.renege is None and score_hand(hand, RULES).renege is not None


def test_no_hindsight_without_plays_or_known_hands():
    assert (
        hindsight(hand_of({"dealer": "N", "trump": "S", "maker": "E", "points": {"NS": 80, "EW": 82}}), RULES) is None
    )
    half = hand_of({"dealer": "N", "up": "9H", "bids": ["play"], "plays": LAWFUL[:8]}, complete=False)
    assert hindsight(half, RULES) is None  # only the cards played so far are known
