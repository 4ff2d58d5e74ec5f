"""Double-dummy solving: what each team takes from a position with every card open and best play.

A position is the cards each seat still holds, the trick in progress and trump. ``solve`` gives the
card points each team takes from there to the end of the hand when both sides play their best (the
cards already in the trick and the last trick's 10 included), and what every card the player to move
may play leads to. What may be played and who wins a trick come from ``engine.play`` alone.

>>> from engine.cards import card_set, parse_card, parse_suit
>>> def cards(text): return card_set(parse_card(c) for c in text.split())
>>> hands = (cards("AS 9H"), cards("TS JH"), cards("KS QH"), cards("AH 9S"))  # N E S W
>>> solution = solve(Position(hands, parse_suit("H"), Seat.N))  # hearts trump, N to lead
>>> solution.points, {card_name(c): v for c, v in solution.cards.items()}
((35, 48), {'9H': (35, 48), 'AS': (25, 58)})

Leading the 9♥ draws E's J♥ (E must beat it) and N's A♠ takes the last trick and its 10; leading
the A♠ first, N has to lead the 9♥ into the J♥ at the last trick.

How it decides: alpha-beta over the cards, each side taking the most it can, four plies a trick, with
- a transposition table at the start of each trick: bounds on what the leading side takes and its
  best lead, keyed by the cards each seat holds (from the leader round);
- bounds from the trumps: a trump above all the other side's takes its trick whatever happens;
- move ordering: a lead the table remembers, else plain Aces, else the lowest card first; a card that
  refuted a trick so far tried first the next time that holding meets that trick;
- after the first lead, each other lead asked only whether it does better (a null window), searched
  in full only if it does;
- of two cards next to each other in strength in one hand, one left unsearched when it is certain
  who takes the trick (see "Higher and lower cards" below);
- the last two tricks read off without a search of their own.
Cards are never merged as equal in the bridge way: no two cards of a suit are worth the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from engine.cards import (
    CARDS,
    LAST_TRICK_BONUS,
    SUIT_WORDS,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    Card,
    CardSet,
    Suit,
    card_name,
    card_names,
    cards_in,
    count,
    strength,
    suit_name,
    suit_of,
)
from engine.errors import IllegalEntryError
from engine.hand import Hand
from engine.play import legal_cards, trick_points, trick_winner
from engine.seats import SEATS, Seat, Team, left_of, seat_name

Pair = tuple[int, int]
_NONE = 24  # "no card" in the tables below: bit 24 is in no holding
_SUIT_BASE = tuple(c - c % 6 for c in CARDS)  # a card's suit's first bit


@dataclass(frozen=True)
class Position:
    """A moment of play: the cards each seat still holds, the trick so far, who led it, and trump."""

    hands: tuple[CardSet, CardSet, CardSet, CardSet]  # by seat N E S W
    trump: Suit
    leader: Seat  # who led the trick in progress, or leads the next one
    trick: tuple[Card, ...] = ()  # the cards of the trick in progress, leader first

    def __post_init__(self) -> None:
        played = len(self.trick)
        held = [count(h) for h in self.hands]
        cards = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3] | sum(1 << c for c in self.trick)
        if count(cards) != sum(held) + played:
            seen = 0
            for c in (*self.trick, *(c for h in self.hands for c in cards_in(h))):
                if seen >> c & 1:
                    raise IllegalEntryError(f"{card_name(c)} is in the position twice")
                seen |= 1 << c
        if played > 3:
            raise IllegalEntryError("a trick in progress has at most 3 cards")
        left = held[(self.leader + played) % 4]
        if left > 6 or (played and not left):
            raise IllegalEntryError(f"the player to move holds {left} cards")
        for i in range(4):
            s, want = (self.leader + i) % 4, left - (i < played)  # those who played to the trick hold one fewer
            if held[s] != want:
                raise IllegalEntryError(f"{seat_name(s)} holds {held[s]} cards, not {want}")

    @property
    def turn(self) -> Seat:
        """The seat to play."""
        return left_of(self.leader, len(self.trick))

    @property
    def trick_number(self) -> int:
        """The trick in progress, or the next to be led: 1 to 6 (7 once the hand is over)."""
        return 7 - max(count(h) for h in self.hands)

    @property
    def over(self) -> bool:
        """Every card has been played."""
        return not self.trick and not any(self.hands)

    def legal(self) -> CardSet:
        """The cards the player to move may play."""
        return legal_cards(self.hands[self.turn], self.trick, self.trump)

    def play(self, c: Card) -> Position:
        """The position after the player to move plays ``c`` (a lawful card of theirs)."""
        if not self.legal() >> c & 1:
            raise IllegalEntryError(f"{seat_name(self.turn)} may not play {card_name(c)} here")
        hands = list(self.hands)
        hands[self.turn] ^= 1 << c
        trick = (*self.trick, c)
        if len(trick) < 4:
            return Position((hands[0], hands[1], hands[2], hands[3]), self.trump, self.leader, trick)
        winner = left_of(self.leader, trick_winner(trick, self.trump))
        return Position((hands[0], hands[1], hands[2], hands[3]), self.trump, winner)

    def __repr__(self) -> str:
        hands = {seat_name(s): " ".join(card_names(self.hands[s])) for s in SEATS}
        trick = [card_name(c) for c in self.trick]
        trump, leader = suit_name(self.trump), seat_name(self.leader)
        return f"Position({hands!r}, trump={trump!r}, leader={leader!r}, trick={trick!r})"


@dataclass(frozen=True)
class Solution:
    """A position solved: the card points each team takes from it with best play by both sides, and
    what each card the player to move may play leads to."""

    position: Position
    points: Pair  # (NS, EW) from here to the end of the hand: the trick in progress and the last trick's 10 included
    cards: dict[Card, Pair]  # each lawful card of the player to move -> (NS, EW) with best play after it

    @property
    def best(self) -> CardSet:
        """The cards that give the player to move's team the most (one or more; none once the hand is over)."""
        team = self.position.turn % 2
        return sum(1 << c for c, v in self.cards.items() if v[team] == self.points[team])

    def cost(self, c: Card) -> int:
        """The points ``c`` gives away to the other team against a best card (0 for a best card)."""
        team = self.position.turn % 2
        return self.points[team] - self.cards[c][team]


def position_of(hand: Hand, before: int | None = None) -> Position:
    """The position of a hand before its play ``before`` (default: after every card played so far).

    Each seat's six cards must be known: dealt, or all played."""
    trump = hand.trump
    if trump is None:
        raise ValueError("no trump was named")
    unknown = [seat_name(s) for s in SEATS if not hand.knows_hand(s)]
    if unknown:
        raise ValueError(f"the cards of {', '.join(unknown)} are not all known")
    n = len(hand.plays) if before is None else before
    if not 0 <= n <= len(hand.plays):
        raise ValueError(f"the hand has {len(hand.plays)} plays, not {n}")
    tricks = hand.tricks()
    leader = tricks[n // 4].leader if n // 4 < len(tricks) else hand.leader
    held = tuple(hand.holding(s, n) for s in SEATS)
    return Position((held[0], held[1], held[2], held[3]), trump, leader, hand.plays[n - n % 4 : n])


def solve(position: Position, solver: Solver | None = None) -> Solution:
    """Solves a position; pass one ``Solver`` for many positions of the same deal to reuse its work."""
    return (solver or Solver(position.trump)).solve(position)


# ---- tables by trump -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    """What the search looks up for one trump suit, computed once."""

    points: tuple[int, ...]  # card points by card
    order: tuple[int, ...]  # strength, trumps above plain cards: which card to try first
    lead_order: tuple[int, ...]  # the same for a lead, plain Aces first
    above: tuple[tuple[int, ...], ...]  # [card][live cards of its suit]: the next stronger live card, or _NONE
    below: tuple[tuple[int, ...], ...]  # the same, next weaker
    sure: tuple[int, ...]  # [ours << 6 | theirs] (trump bits): points of our trumps above all of theirs
    top: tuple[tuple[int, ...], ...]  # [highest trump + 1 or 0][card]: the highest trump + 1 once card is played


@cache
def _sure_points() -> tuple[int, ...]:
    """[ours << 6 | theirs], both sets of trump ranks: the points of our trumps above all of theirs."""
    # above[s + 1][ours]: the points of our trumps stronger than strength s (s = -1: no trump of theirs)
    above = [
        [sum(TRUMP_POINTS[r] for r in range(6) if ours >> r & 1 and TRUMP_STRENGTH[r] > s) for ours in range(64)]
        for s in range(-1, 6)
    ]
    best = [max((TRUMP_STRENGTH[r] + 1 for r in range(6) if theirs >> r & 1), default=0) for theirs in range(64)]
    return tuple(above[best[theirs]][ours] for ours in range(64) for theirs in range(64))


@cache
def _tables(trump: Suit) -> _Tables:
    order = tuple(strength(c, trump) + (6 if suit_of(c) == trump else 0) for c in CARDS)

    def next_live(c: Card, step: int) -> tuple[int, ...]:
        """For each set of live cards of c's suit, the next one above (step 1) or below (-1), or _NONE."""
        ranked = sorted(range(c - c % 6, c - c % 6 + 6), key=lambda o: order[o] * step)
        later = ranked[ranked.index(c) + 1 :]
        return tuple(next((o for o in later if live >> (o % 6) & 1), _NONE) for live in range(64))

    def top(t: int, c: Card) -> int:
        beats = suit_of(c) == trump and (t == 0 or strength(c, trump) > strength(t - 1, trump))
        return c + 1 if beats else t

    return _Tables(
        tuple(trick_points((c,), trump) for c in CARDS),
        order,
        tuple(-1 if o == 5 else o for o in order),
        tuple(next_live(c, 1) for c in CARDS),
        tuple(next_live(c, -1) for c in CARDS),
        _sure_points(),
        tuple(tuple(top(t, c) for c in CARDS) for t in range(25)),
    )


# ---- higher and lower cards ----------------------------------------------------------------
# Take two cards of one suit in one player's hand with no card still in play (in any hand or in the
# trick) ranking between them. Whichever is played now, the other does later exactly what this one
# would have done: the same cards may be played to every trick and the same seats take them. Only
# the two cards' points land in different tricks. So when it is certain which side takes this trick,
# whatever the players after this one do:
# - taken by the player's side: the higher card (it has more points) now is never worse;
# - taken by the other side: the lower card now is never worse;
# and the other card need not be searched. The last player to a trick always knows; the others look
# at every lawful answer of the players still to play (``taken_by`` keeps what they found).


# ---- the search ------------------------------------------------------------------------------

_Search = Callable[[list[int], int, int, int, int], int]


class Solver:
    """Solves positions with one trump suit, keeping what it learnt (bounds of positions at the start
    of a trick, lawful cards, tricks) for the next position: use one for the positions of one hand."""

    def __init__(self, trump: Suit) -> None:
        self.trump = trump
        self._count = [0]
        # Ints rather than tuples in the tables: nothing for the garbage collector to walk.
        self._table: dict[int, int] = {}  # hands -> lower bound | upper bound << 8 | (best lead + 1) << 16
        self._legal: dict[int, tuple[Card, ...]] = {}  # holding, suit led, highest trump -> cards in order
        self._tricks: dict[int, int] = {}  # four cards -> points << 3 | 4 | who takes it (0 = the leader)
        self._search = self._searcher()

    @property
    def nodes(self) -> int:
        """Positions at the start of a trick searched so far (a measure of the work done)."""
        return self._count[0]

    def points(self, position: Position) -> Pair:
        """The card points (NS, EW) each team takes from a position with best play by both sides."""
        self._check(position)
        hands = list(position.hands)
        total = _remaining(position)
        lead = self._value(hands, position.leader, position.trick, total, -1, total + 1)
        return _by_team(position.leader, lead, total)

    def reaches(self, position: Position, team: Team, points: int) -> bool:
        """Whether ``team`` takes at least ``points`` card points from a position with best play by both
        sides: one search with a null window at the mark, cheaper than finding the points themselves."""
        self._check(position)
        total = _remaining(position)
        if points <= 0 or points > total:
            return points <= 0
        leading = position.leader % 2 == team
        # The leader's team must take at least `points`, or (the other team asking) at most total - points.
        mark = points if leading else total - points + 1
        lead = self._value(list(position.hands), position.leader, position.trick, total, mark - 1, mark)
        return lead >= mark if leading else lead < mark

    def solve(self, position: Position) -> Solution:
        """The points each team takes with best play, and after each lawful card of the player to move."""
        self._check(position)
        total = _remaining(position)
        if position.over:
            return Solution(position, (0, 0), {})
        hands = list(position.hands)
        leader, trick, seat = position.leader, position.trick, position.turn
        cards: dict[Card, Pair] = {}
        for c in cards_in(position.legal()):
            hands[seat] ^= 1 << c
            lead = self._value(hands, leader, (*trick, c), total, -1, total + 1)
            hands[seat] ^= 1 << c
            cards[c] = _by_team(leader, lead, total)
        team = seat % 2
        best = max(cards.values(), key=lambda v: v[team])
        return Solution(position, best, cards)

    def _check(self, position: Position) -> None:
        if position.trump != self.trump:
            raise ValueError(f"this solver plays {SUIT_WORDS[self.trump]} as trump, not {SUIT_WORDS[position.trump]}")

    def _value(self, hands: list[int], leader: int, trick: tuple[Card, ...], total: int, alpha: int, beta: int) -> int:
        """What the leader's team takes from here, the cards already in the trick included (fail-soft
        alpha-beta over the rest of the trick, then the search from the start of the next)."""
        if not trick:
            return self._search(hands, leader, total, alpha, beta) if hands[leader] else 0
        n = len(trick)
        trump = self.trump
        seat = (leader + n) & 3
        ours = n % 2 == 0
        if n == 4:
            w = trick_winner(trick, trump)
            gain = trick_points(trick, trump)
            rest = total - gain
            if not any(hands):
                return 0 if w & 1 else total
            after = (leader + w) & 3
            if w & 1:
                return rest - self._search(hands, after, rest, rest - beta, rest - alpha)
            return gain + self._search(hands, after, rest, alpha - gain, beta - gain)
        best = -1 if ours else total + 1
        for c in cards_in(legal_cards(hands[seat], trick, trump)):
            hands[seat] ^= 1 << c
            v = self._value(hands, leader, (*trick, c), total, alpha, beta)
            hands[seat] ^= 1 << c
            if ours and v > best:
                best = v
                alpha = max(alpha, v)
            elif not ours and v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def _searcher(self) -> _Search:
        """The search from the start of a trick: one function, each trick's four plies as nested loops
        (a call a trick, not a card), every value the leader's team's points."""
        trump = self.trump
        t = _tables(trump)
        pts, order, lead_order, above, below, sure, top = (
            t.points,
            t.order,
            t.lead_order,
            t.above,
            t.below,
            t.sure,
            t.top,
        )
        trumps, base = trump * 6, _SUIT_BASE
        table, legal, tricks, count = self._table, self._legal, self._tricks, self._count
        table_get, legal_get, tricks_get = table.get, legal.get, tricks.get
        listed: dict[int, tuple[Card, ...]] = {}  # lawful cards -> in the order tried, following
        listed_lead: dict[int, tuple[Card, ...]] = {}  # the same, leading
        # The first cards of a trick and the hands still to play -> the sides that can take it
        # whatever those play: bit 1 the leader's, bit 2 the other.
        taken_by: dict[int, int] = {}

        def lawful(key: int, trick: tuple[Card, ...]) -> tuple[Card, ...]:
            # legal_cards reads a trick only for the suit led and its highest trump (RULES.md: Play), so
            # its answer is kept for the holding and those two; tests/test_solve.py holds it to that.
            mask = legal_cards(key & 0xFFFFFF, trick, trump)
            ranked = listed if trick else listed_lead
            out = ranked.get(mask)
            if out is None:
                rank = order if trick else lead_order
                out = ranked[mask] = tuple(sorted(cards_in(mask), key=rank.__getitem__))
            legal[key] = out
            return out

        def outcome(code: int) -> int:
            # Who takes a trick and its points (its cards', RULES.md), packed as in _tricks: never 0.
            a, b, c, d = (code & 31) - 1, (code >> 5 & 31) - 1, (code >> 10 & 31) - 1, (code >> 15) - 1
            out = tricks[code] = (pts[a] + pts[b] + pts[c] + pts[d]) << 3 | 4 | trick_winner((a, b, c, d), trump)
            return out

        def first(cards: tuple[Card, ...], c: Card) -> tuple[Card, ...]:
            return (c, *(x for x in cards if x != c))

        def search(hands: list[int], leader: int, total: int, alpha: int, beta: int) -> int:
            # What the leader's team takes from the start of a trick (``total`` is everything still to
            # take); a value at or below alpha is an upper bound, at or above beta a lower bound.
            count[0] += 1
            s1, s2, s3 = (leader + 1) & 3, (leader + 2) & 3, (leader + 3) & 3
            ha, hb, hc, hd = hands[leader], hands[s1], hands[s2], hands[s3]
            if not ha & (ha - 1):  # the last trick: every card is forced
                code = ha.bit_length() | hb.bit_length() << 5 | hc.bit_length() << 10 | hd.bit_length() << 15
                return 0 if (tricks_get(code) or outcome(code)) & 1 else total
            # Hands from the leader's seat round: what the leading side takes does not depend on who leads.
            key = ha | hb << 24 | hc << 48 | hd << 72
            entry = table_get(key)
            if entry is None:  # our trumps above all of theirs win their tricks, whatever happens
                ours, theirs = (ha | hc) >> trumps & 63, (hb | hd) >> trumps & 63
                lo, hi, best_lead = sure[ours << 6 | theirs], total - sure[theirs << 6 | ours], -1
            else:
                lo, hi, best_lead = entry & 255, entry >> 8 & 255, (entry >> 16) - 1
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            alpha0, beta0 = alpha, beta
            live = ha | hb | hc | hd
            last_but_one = ha.bit_count() == 2
            leads = legal_get(ha) or lawful(ha, ())
            if best_lead >= 0 and leads[0] != best_lead:
                leads = first(leads, best_lead)
            best0, lead_card = -1, -1
            for c0 in leads:
                m = live >> base[c0] & 63
                k1 = c0 + 1
                led = (c0 // 6 + 1) << 24
                top1 = top[0][c0]
                key1 = hb | led | top1 << 27
                cards1 = legal_get(key1) or lawful(key1, (c0,))
                lower, higher = ha >> below[c0][m] & 1, ha >> above[c0][m] & 1
                if lower or higher:  # see higher and lower cards above
                    skey = k1 | hb << 20 | hc << 44 | hd << 68
                    side = taken_by.get(skey)
                    if side is None:
                        side = 0
                        for x1 in cards1:
                            k2x, top2x = k1 | (x1 + 1) << 5, top[top1][x1]
                            key2x = hc | led | top2x << 27
                            for x2 in legal_get(key2x) or lawful(key2x, (c0, x1)):
                                k3x = k2x | (x2 + 1) << 10
                                key3x = hd | led | top[top2x][x2] << 27
                                for x3 in legal_get(key3x) or lawful(key3x, (c0, x1, x2)):
                                    code = k3x | (x3 + 1) << 15
                                    side |= 1 << ((tricks_get(code) or outcome(code)) & 1)
                                if side == 3:
                                    break
                            if side == 3:
                                break
                        taken_by[skey] = side
                    if (higher and side == 1) or (lower and side == 2):
                        continue
                hands[leader] = ha ^ 1 << c0
                # after the first lead, a null window asks only whether a lead does better; searched again if so
                scout = lead_card >= 0 and alpha + 1 < beta
                while True:
                    best1, beta1 = 1000, alpha + 1 if scout else beta
                    for c1 in cards1:
                        m = live >> base[c1] & 63
                        k2 = k1 | (c1 + 1) << 5
                        top2 = top[top1][c1]
                        key2 = hc | led | top2 << 27
                        cards2 = legal_get(key2) or lawful(key2, (c0, c1))
                        lower, higher = hb >> below[c1][m] & 1, hb >> above[c1][m] & 1
                        if lower or higher:
                            skey = k2 | hc << 20 | hd << 44
                            side = taken_by.get(skey)
                            if side is None:
                                side = 0
                                for x2 in cards2:
                                    k3x = k2 | (x2 + 1) << 10
                                    key3x = hd | led | top[top2][x2] << 27
                                    for x3 in legal_get(key3x) or lawful(key3x, (c0, c1, x2)):
                                        code = k3x | (x3 + 1) << 15
                                        side |= 1 << ((tricks_get(code) or outcome(code)) & 1)
                                    if side == 3:
                                        break
                                taken_by[skey] = side
                            if (lower and side == 1) or (higher and side == 2):
                                continue
                        hands[s1] = hb ^ 1 << c1
                        best2, alpha2 = -1, alpha
                        for c2 in cards2:
                            m = live >> base[c2] & 63
                            k3 = k2 | (c2 + 1) << 10
                            key3 = hd | led | top[top2][c2] << 27
                            cards3 = legal_get(key3) or lawful(key3, (c0, c1, c2))
                            lower, higher = hc >> below[c2][m] & 1, hc >> above[c2][m] & 1
                            if lower or higher:  # who takes it, whatever the last player does
                                side = 0
                                for c3 in cards3:
                                    code = k3 | (c3 + 1) << 15
                                    side |= 1 << ((tricks_get(code) or outcome(code)) & 1)
                                if (higher and side == 1) or (lower and side == 2):
                                    continue
                            hands[s2] = hc ^ 1 << c2
                            best3, beta3 = 1000, beta1
                            for c3 in cards3:
                                code = k3 | (c3 + 1) << 15
                                known = tricks_get(code) or outcome(code)
                                w, gain = known & 3, known >> 3
                                m = live >> base[c3] & 63
                                if hd >> (above[c3][m] if w & 1 else below[c3][m]) & 1:
                                    continue  # see higher and lower cards
                                hands[s3] = hd ^ 1 << c3
                                rest = total - gain
                                after = (leader + w) & 3
                                if last_but_one:  # the last trick follows: read it off
                                    code = (
                                        hands[after].bit_length()
                                        | hands[(after + 1) & 3].bit_length() << 5
                                        | hands[(after + 2) & 3].bit_length() << 10
                                        | hands[(after + 3) & 3].bit_length() << 15
                                    )
                                    w6 = tricks_get(code) or outcome(code)
                                    v = (0 if w & 1 else gain) + (0 if (w + w6) & 1 else rest)
                                elif w & 1:
                                    v = rest - search(hands, after, rest, rest - beta3, rest - alpha2)
                                else:
                                    v = gain + search(hands, after, rest, alpha2 - gain, beta3 - gain)
                                if v < best3:
                                    best3 = v
                                    if v < beta3:
                                        beta3 = v
                                        if v <= alpha2:
                                            if c3 != cards3[0]:
                                                legal[key3] = first(cards3, c3)
                                            break
                            hands[s3] = hd
                            if best3 > best2:
                                best2 = best3
                                if best3 > alpha2:
                                    alpha2 = best3
                                    if best3 >= beta1:
                                        if c2 != cards2[0]:
                                            legal[key2] = first(cards2, c2)
                                        break
                        hands[s2] = hc
                        if best2 < best1:
                            best1 = best2
                            if best2 < beta1:
                                beta1 = best2
                                if best2 <= alpha:
                                    if c1 != cards1[0]:
                                        legal[key1] = first(cards1, c1)
                                    break
                    if scout and alpha < best1 < beta:
                        scout = False
                        continue
                    break
                hands[s1] = hb
                if best1 > best0:
                    best0, lead_card = best1, c0
                    if best1 > alpha:
                        alpha = best1
                        if best1 >= beta:
                            break
            hands[leader] = ha
            if best_lead < 0 and lead_card != leads[0]:
                legal[ha] = first(leads, lead_card)  # the same hand may lead the same way elsewhere
            if best0 <= alpha0:
                hi = best0
            elif best0 >= beta0:
                lo = best0
            else:
                lo = hi = best0
            table[key] = lo | hi << 8 | (lead_card + 1) << 16
            return best0

        return search


def _remaining(position: Position) -> int:
    """Everything still to take: the card points in the hands and the trick, and the last trick's 10."""
    cards = sum(position.hands) + sum(1 << c for c in position.trick)
    worth = _tables(position.trump).points
    return sum(worth[c] for c in cards_in(cards)) + (LAST_TRICK_BONUS if cards else 0)


def _by_team(leader: int, lead: int, total: int) -> Pair:
    """(NS, EW) from the leader's team's points and everything still to take."""
    return (lead, total - lead) if leader % 2 == 0 else (total - lead, lead)
