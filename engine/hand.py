"""A hand of Clabber as a value built by applying events.

``Hand(dealer).apply(event)`` returns the hand after the event, or raises an
``EntryError`` saying where and why. The same events always give the same hand, so a hand
is stored as its events and replayed. The cards each seat held are known from what was
dealt, announced or played; with the plays alone each player's hand is the six cards they
played, which is enough to prove or clear every renege.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.bidding import Bidding, Call, parse_call, passed_suit_reason
from engine.cards import (
    DECK,
    LAST_TRICK_BONUS,
    POINTS_IN_HAND,
    SUIT_WORDS,
    Card,
    CardSet,
    Suit,
    bit,
    card_name,
    card_names,
    card_set,
    cards_in,
    count,
    parse_card,
    parse_suit,
    suit_mask,
    suit_name,
    suit_of,
)
from engine.errors import IllegalEntryError, InvalidRecordError, Problem
from engine.melds import Meld, bell_cards, meld_of
from engine.play import Breach, breach, legal_cards, trick_points, trick_winner
from engine.seats import SEAT_NAMES, SEATS, Seat, Team, left_of, parse_seat, parse_team, seat_name, team_name, team_of

HAND_FIELDS = (  # a hand record's fields, in the order written
    "format",
    "rules",
    "dealer",
    "up",
    "hands",
    "bids",
    "trump",
    "maker",
    "round",
    "passed_out",
    "melds",
    "bell",
    "plays",
    "renege",
    "points",
    "misdeal",
)

# ---- events -------------------------------------------------------------------------------
# Each event takes cards, seats, suits and teams as ints or by name, and prints with names:
# ``Play("AH") == Play(parse_card("AH"))``.


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)  # a frozen dataclass reading names in __post_init__


def _cards_of(value: object) -> CardSet:
    """A set of cards from an int set, ``"AS KS QS"`` or a list of names."""
    if isinstance(value, int):
        return value
    names = value.split() if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)):
        raise InvalidRecordError(f"{value!r} is not a list of cards")
    return card_set(parse_card(n) for n in names)


def _named(cards: CardSet) -> str:
    return " ".join(card_names(cards))


@dataclass(frozen=True)
class Deal:
    """The deal: the dealer's face-up card and, where known, every seat's six cards."""

    up: Card | None = None
    hands: tuple[CardSet | None, ...] | None = None  # by seat N E S W; None where unknown

    def __post_init__(self) -> None:
        if isinstance(self.up, str):
            _set(self, "up", parse_card(self.up))
        if self.hands is not None and not all(h is None or isinstance(h, int) for h in self.hands):
            _set(self, "hands", tuple(None if h is None else _cards_of(h) for h in self.hands))

    def __repr__(self) -> str:
        fields = [] if self.up is None else [f"up={card_name(self.up)!r}"]
        if self.hands is not None:
            fields.append(f"hands={[None if h is None else _named(h) for h in self.hands]!r}")
        return f"Deal({', '.join(fields)})"


@dataclass(frozen=True)
class Bid:
    """One call in the bidding, in turn from the dealer's left."""

    call: Call

    def __post_init__(self) -> None:
        if isinstance(self.call, str):
            _set(self, "call", parse_call(self.call))

    def __repr__(self) -> str:
        return f"Bid({str(self.call)!r})"


@dataclass(frozen=True)
class NameTrump:
    """A quick entry of the bidding's outcome: trump, the seat that said play, and the round.

    Beside the bids either may be left out (None): the bids say it, and what is given must agree."""

    trump: Suit | None
    maker: Seat | None
    round: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.trump, str):
            _set(self, "trump", parse_suit(self.trump))
        if isinstance(self.maker, str):
            _set(self, "maker", parse_seat(self.maker))

    def __repr__(self) -> str:
        trump = None if self.trump is None else suit_name(self.trump)
        maker = None if self.maker is None else seat_name(self.maker)
        return f"NameTrump({trump!r}, {maker!r}" + ("" if self.round is None else f", round={self.round}") + ")"


@dataclass(frozen=True)
class PassOut:
    """A quick entry of a hand all four passed twice."""


@dataclass(frozen=True)
class Announce:
    """A meld a seat announced, as its cards."""

    seat: Seat
    cards: CardSet

    def __post_init__(self) -> None:
        if isinstance(self.seat, str):
            _set(self, "seat", parse_seat(self.seat))
        if not isinstance(self.cards, int):
            _set(self, "cards", _cards_of(self.cards))

    def __repr__(self) -> str:
        return f"Announce({seat_name(self.seat)!r}, {_named(self.cards)!r})"


@dataclass(frozen=True)
class ShowBell:
    """A quick entry of the seat that held the King and Queen of trump."""

    seat: Seat

    def __post_init__(self) -> None:
        if isinstance(self.seat, str):
            _set(self, "seat", parse_seat(self.seat))

    def __repr__(self) -> str:
        return f"ShowBell({seat_name(self.seat)!r})"


@dataclass(frozen=True)
class Play:
    """The next card played, by whoever's turn it is.

    >>> Play("AH")
    Play('AH')
    """

    card: Card

    def __post_init__(self) -> None:
        if isinstance(self.card, str):
            _set(self, "card", parse_card(self.card))

    def __repr__(self) -> str:
        return f"Play({card_name(self.card)!r})"


@dataclass(frozen=True)
class CallRenege:
    """A renege called at the table that the cards cannot show (table talk, exposed card...)."""

    team: Team
    reason: str
    seat: Seat | None = None

    def __post_init__(self) -> None:
        if isinstance(self.team, str):
            _set(self, "team", parse_team(self.team))
        if isinstance(self.seat, str):
            _set(self, "seat", parse_seat(self.seat))

    def __repr__(self) -> str:
        seat = "" if self.seat is None else f", seat={seat_name(self.seat)!r}"
        return f"CallRenege({team_name(self.team)!r}, {self.reason!r}{seat})"


@dataclass(frozen=True)
class TrickPoints:
    """A quick entry of each team's card points in tricks, last trick included."""

    points: tuple[int, int]


@dataclass(frozen=True)
class Misdeal:
    """The deal went wrong (a card exposed, a deal out of turn): the same dealer deals again."""

    reason: str = ""


Event = Deal | Bid | NameTrump | PassOut | Announce | ShowBell | Play | CallRenege | TrickPoints | Misdeal

# ---- what a hand reports --------------------------------------------------------------------


@dataclass(frozen=True)
class Renege:
    """A renege: by which team (and seat), where in the play, and why."""

    team: Team
    reason: str
    seat: Seat | None = None
    trick: int | None = None  # 1 to 6
    card: Card | None = None
    legal: CardSet | None = None  # the cards that could have been played
    play: int | None = None  # index into the plays
    called: bool = False  # called at the table rather than proven from the cards


@dataclass(frozen=True)
class Trick:
    """A trick: who led, the cards in play order, and (once complete) who won and its points."""

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None
    points: int

    def seat_of(self, i: int) -> Seat:
        """The seat that played the i-th card of the trick."""
        return left_of(self.leader, i)


# What a passed-out hand cannot have, field by field.
_PASSED_OUT_NO = {
    "trump": "no trump was named",
    "maker": "nobody said play",
    "bell": "no trump was named, so nobody holds a bell",
    "melds": "no melds are scored",
    "plays": "no cards are played",
    "renege": "no cards were played, so nobody reneged",
    "points": "no tricks were taken",
}


def impossible_points(points: int) -> str | None:
    """Why a team's trick points cannot be, or None."""
    if not 0 <= points <= POINTS_IN_HAND:
        return f"{points} is not between 0 and {POINTS_IN_HAND}"
    if points in (1, POINTS_IN_HAND - 1):
        return f"{points} cannot be: no card is worth 1 point, so no team ends with 1 or {POINTS_IN_HAND - 1}"
    return None


class Hand:
    """One hand: the deal, bidding, melds, plays and any renege, as far as they are known."""

    __slots__ = (
        "_reneges",
        "_sources",
        "bidding",
        "called",
        "dealer",
        "dealt",
        "events",
        "leader",
        "located",
        "maker",
        "melds",
        "misdeal",
        "passed_out",
        "played",
        "players",
        "plays",
        "points",
        "round",
        "trump",
        "up",
        "won",
    )

    def __init__(self, dealer: Seat | str) -> None:
        """A hand dealt by ``dealer``, nothing known of it yet (``record.hand_from`` starts one from
        a record's fields)."""
        if isinstance(dealer, str):
            dealer = parse_seat(dealer)
        self.dealer = dealer
        self.events: tuple[Event, ...] = ()
        self.up: Card | None = None
        self.dealt: tuple[CardSet | None, ...] = (None,) * 4
        self.bidding: Bidding | None = None
        self.trump: Suit | None = None
        self.maker: Seat | None = None
        self.round: int | None = None
        self.passed_out = False
        self.melds: tuple[tuple[Meld, ...], ...] = ((),) * 4
        self.plays: tuple[Card, ...] = ()
        self.players: tuple[Seat, ...] = ()  # who played each card
        self.played: tuple[CardSet, ...] = (0,) * 4
        self.leader: Seat = left_of(dealer)  # of the trick in progress
        self.won: tuple[int, int] = (0, 0)  # card points in tricks, last trick included
        self.called: tuple[Renege, ...] = ()
        self.points: tuple[int, int] | None = None  # entered, not counted from plays
        self.misdeal: str | None = None
        self.located: tuple[CardSet, ...] = (0,) * 4  # cards known to be in each seat's hand
        self._sources: tuple[tuple[Seat, CardSet, str], ...] = ()  # where each was learnt
        self._reneges: list[Renege] | None = None

    def __repr__(self) -> str:
        fields = self.fields()
        dealer = fields.pop("dealer")
        return "Hand(" + ", ".join([repr(dealer), *(f"{k}={v!r}" for k, v in fields.items())]) + ")"

    def fields(self) -> dict[str, Any]:
        """The hand as a game's hand record has it (``record.hand_to_json`` adds the format and
        rules of a hand on its own)."""
        out: dict[str, Any] = {"dealer": seat_name(self.dealer)}
        melds: dict[str, list[list[str]]] = {}
        reneges: list[dict[str, Any]] = []
        for e in self.events:
            if isinstance(e, Deal):
                if e.up is not None:
                    out["up"] = card_name(e.up)
                if e.hands is not None:
                    out["hands"] = {seat_name(s): card_names(m) for s, m in enumerate(e.hands) if m is not None}
            elif isinstance(e, Bid):
                out.setdefault("bids", []).append(str(e.call))
            elif isinstance(e, NameTrump):
                if e.trump is not None:
                    out["trump"] = suit_name(e.trump)
                if e.maker is not None:
                    out["maker"] = seat_name(e.maker)
                if e.round is not None:
                    out["round"] = e.round
            elif isinstance(e, PassOut):
                out["passed_out"] = True
            elif isinstance(e, ShowBell):
                out["bell"] = seat_name(e.seat)
            elif isinstance(e, Announce):
                melds.setdefault(seat_name(e.seat), []).append(card_names(e.cards))
            elif isinstance(e, Play):
                out.setdefault("plays", []).append(card_name(e.card))
            elif isinstance(e, CallRenege):
                r = {"by": team_name(e.team), "reason": e.reason}
                if e.seat is not None:
                    r["seat"] = seat_name(e.seat)
                reneges.append(r)
            elif isinstance(e, TrickPoints):
                out["points"] = {"NS": e.points[0], "EW": e.points[1]}
            elif isinstance(e, Misdeal):
                out["misdeal"] = e.reason or True
        if melds:
            out["melds"] = {s: melds[s] for s in SEAT_NAMES if s in melds}
        if reneges:
            out["renege"] = reneges[0] if len(reneges) == 1 else reneges
        order = {k: i for i, k in enumerate(HAND_FIELDS)}
        return dict(sorted(out.items(), key=lambda kv: order[kv[0]]))

    # ---- shortcuts: one event each, by name -----------------------------------------------------

    def deal(self, up: str | None = None, hands: dict[str, str] | None = None) -> Hand:
        """The hand after the deal: the up card and, where known, each seat's cards (``{"N": "9C TD ..."}``)."""
        by_seat = None if hands is None else tuple(_cards_of(hands[n]) if n in hands else None for n in SEAT_NAMES)
        return self.apply(Deal(None if up is None else parse_card(up), by_seat))

    def bid(self, call: str) -> Hand:
        """The hand after one call: ``"pass"``, ``"play"`` or ``"play S"``."""
        return self.apply(Bid(parse_call(call)))

    def name_trump(self, trump: str, maker: str) -> Hand:
        """The hand after a quick entry of trump and the seat that said play."""
        return self.apply(NameTrump(parse_suit(trump), parse_seat(maker)))

    def announce(self, seat: str, cards: str) -> Hand:
        """The hand after a seat announced a meld: ``hand.announce("N", "AS KS QS")``."""
        return self.apply(Announce(parse_seat(seat), _cards_of(cards)))

    def play(self, card: str) -> Hand:
        """The hand after the next card is played by whoever's turn it is.

        >>> Hand("N").name_trump("H", "E").play("AH").plays == (Play("AH").card,)
        True
        """
        return self.apply(Play(parse_card(card)))

    def call_renege(self, team: str, reason: str, seat: str | None = None) -> Hand:
        """The hand after a renege called at the table."""
        return self.apply(CallRenege(parse_team(team), reason, None if seat is None else parse_seat(seat)))

    def trick_points(self, ns: int, ew: int) -> Hand:
        """The hand after a quick entry of each team's card points in tricks."""
        return self.apply(TrickPoints((ns, ew)))

    @classmethod
    def replay(cls, dealer: Seat, events: tuple[Event, ...] | list[Event]) -> Hand:
        """The hand the events give, applied in order."""
        hand = cls(dealer)
        for e in events:
            hand = hand.apply(e)
        return hand

    # ---- applying events ---------------------------------------------------------------------

    def apply(self, event: Event) -> Hand:
        """The hand after ``event``; raises EntryError (with the record path) if it cannot be."""
        new = object.__new__(Hand)
        for name in Hand.__slots__:
            setattr(new, name, getattr(self, name))
        new._reneges = None
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise IllegalEntryError(f"{type(event).__name__} is not an event of a hand")
        if self.misdeal is not None:
            raise IllegalEntryError("the hand was a misdeal: nothing more happens in it", "misdeal")
        handler(new, event)
        new.events = (*self.events, event)
        return new

    def _deal(self, e: Deal) -> None:
        if self.events:
            raise IllegalEntryError("the deal comes first", "hands")
        hands = e.hands or (None,) * 4
        self.dealt = tuple(hands)
        for s in SEATS:
            m = hands[s]
            if m is None:
                continue
            if count(m) != 6:
                raise IllegalEntryError(
                    f"{seat_name(s)} has {count(m)} cards; each seat is dealt 6", f"hands.{seat_name(s)}"
                )
            self._locate(s, m, f"hands.{seat_name(s)}")
        if e.up is not None:
            self.up = e.up
            dealers = self.dealt[self.dealer]
            if dealers is not None and not dealers & bit(e.up):
                raise IllegalEntryError(
                    f"{card_name(e.up)} is the dealer's last card, but is not in hands.{seat_name(self.dealer)}", "up"
                )
            self._locate(self.dealer, bit(e.up), "up")

    def _bid(self, e: Bid) -> None:
        where = f"bids[{len(self.bidding.calls) if self.bidding else 0}]"
        if self.bidding is None:
            if self.trump is not None or self.passed_out:
                raise IllegalEntryError("the bidding was already entered", where)
            self.bidding = Bidding(self.dealer, suit_of(self.up) if self.up is not None else None)
        try:
            self.bidding = self.bidding.call(e.call)
        except IllegalEntryError as err:
            raise err.at(where) from None
        if self.bidding.passed_out:
            self.passed_out = True
        elif self.bidding.over:
            self.maker = self.bidding.maker
            self.round = self.bidding.round
            self.trump = self.bidding.trump

    def _name_trump(self, e: NameTrump) -> None:
        given = [w for w, v in (("trump", e.trump), ("maker", e.maker)) if v is not None]
        if self.passed_out:
            raise IllegalEntryError(
                [Problem(w, f"the hand was passed out: {_PASSED_OUT_NO[w]}") for w in given or ["trump"]]
            )
        if self.bidding is not None:
            if not self.bidding.over:
                raise IllegalEntryError("the bids do not end with a play", "bids")
            problems = []
            if e.trump is not None and self.trump is not None and self.trump != e.trump:
                problems.append(Problem("trump", f"the bids name {SUIT_WORDS[self.trump]}"))
            if e.maker is not None and self.maker is not None and self.maker != e.maker:
                problems.append(Problem("maker", f"the bids say {seat_name(self.maker)} said play"))
            if problems:
                raise IllegalEntryError(problems)
        elif self.trump is not None:
            raise IllegalEntryError("trump was already named", "trump")
        elif e.trump is None or e.maker is None:
            missing = "maker" if e.maker is None else "trump"
            raise IllegalEntryError(
                "missing: a quick entry gives both trump and maker (the seat that said play)", missing
            )
        trump = e.trump if e.trump is not None else self.trump
        if trump is None:  # bids with an unknown up card, and no trump given: nothing more to check
            return
        up_suit = suit_of(self.up) if self.up is not None else None
        rnd = e.round or self.round
        if rnd is None and up_suit is not None:
            rnd = 1 if trump == up_suit else 2
        if rnd not in (None, 1, 2):
            raise IllegalEntryError(f"{rnd!r} is not a round of bidding (1 or 2)", "round")
        if up_suit is not None and rnd == 1 and trump != up_suit:
            raise IllegalEntryError(
                f"in round 1 trump is the up card's suit ({SUIT_WORDS[up_suit]}), not {SUIT_WORDS[trump]}", "trump"
            )
        if up_suit is not None and rnd == 2 and trump == up_suit and self.bidding is None:
            raise IllegalEntryError(
                f"{SUIT_WORDS[trump]} was the up card's suit, turned down in round 1: round 2 names another suit"
                " (if a player named it, enter the bids so the engine records the renege)",
                "trump",
            )
        self.trump, self.maker, self.round = trump, e.maker if e.maker is not None else self.maker, rnd

    def _pass_out(self, e: PassOut) -> None:
        if self.trump is not None or self.bidding is not None:
            raise IllegalEntryError("the bidding was already entered", "passed_out")
        self.passed_out = True

    def _announce(self, e: Announce) -> None:
        s = seat_name(e.seat)
        where = f"melds.{s}[{len(self.melds[e.seat])}]"
        if self.passed_out:
            raise IllegalEntryError(f"the hand was passed out: {_PASSED_OUT_NO['melds']}", where)
        try:
            meld = meld_of(e.cards)
        except IllegalEntryError as err:
            raise err.at(where) from None
        for j, earlier in enumerate(self.melds[e.seat]):
            shared = earlier.cards & e.cards
            if shared:
                raise IllegalEntryError(
                    f"{card_name(next(cards_in(shared)))} is also in melds.{s}[{j}]; no card may be used in two melds",
                    where,
                )
        self._locate(e.seat, e.cards, where)
        melds = list(self.melds)
        melds[e.seat] = melds[e.seat] + (meld,)
        self.melds = tuple(melds)

    def _show_bell(self, e: ShowBell) -> None:
        if self.passed_out:
            raise IllegalEntryError(f"the hand was passed out: {_PASSED_OUT_NO['bell']}", "bell")
        if self.trump is None:
            raise IllegalEntryError("a bell is the King and Queen of trump, and no trump was named", "bell")
        self._locate(e.seat, bell_cards(self.trump), "bell")

    def _play(self, e: Play) -> None:
        i = len(self.plays)
        where = f"plays[{i}]"
        if self.passed_out:
            raise IllegalEntryError(f"the hand was passed out: {_PASSED_OUT_NO['plays']}", where)
        if self.trump is None or self.maker is None:
            raise IllegalEntryError("no trump has been named yet: enter the bidding first", where)
        if i == 24:
            raise IllegalEntryError("all 24 cards have been played", where)
        c = e.card
        for j, earlier in enumerate(self.plays):
            if earlier == c:
                raise IllegalEntryError(f"{card_name(c)} was already played at plays[{j}]", where)
        seat = left_of(self.leader, i % 4)
        self._locate(seat, bit(c), where)
        self.plays = (*self.plays, c)
        self.players = (*self.players, seat)
        played = list(self.played)
        played[seat] |= bit(c)
        self.played = tuple(played)
        if i % 4 == 3:
            trick = self.plays[i - 3 :]
            winner = left_of(self.leader, trick_winner(trick, self.trump))
            gained = trick_points(trick, self.trump) + (LAST_TRICK_BONUS if i == 23 else 0)
            won = list(self.won)
            won[team_of(winner)] += gained
            self.won = (won[0], won[1])
            self.leader = winner

    def _call_renege(self, e: CallRenege) -> None:
        if self.passed_out:
            raise IllegalEntryError(f"the hand was passed out: {_PASSED_OUT_NO['renege']}", "renege")
        if not e.reason.strip():
            raise IllegalEntryError("say why (table talk, exposed card, ...)", "renege.reason")
        self.called = (*self.called, Renege(e.team, e.reason.strip(), e.seat, called=True))

    def _trick_points(self, e: TrickPoints) -> None:
        problems = []
        for t, name in ((0, "NS"), (1, "EW")):
            why = impossible_points(e.points[t])
            if why:
                problems.append(Problem(f"points.{name}", why))
        if problems:
            raise IllegalEntryError(problems)
        if sum(e.points) != POINTS_IN_HAND:
            raise IllegalEntryError(
                f"{e.points[0]} + {e.points[1]} = {sum(e.points)}; the teams' trick points add up to {POINTS_IN_HAND}"
                f" (NS {e.points[0]} means EW {POINTS_IN_HAND - e.points[0]})",
                "points",
            )
        if self.passed_out:
            raise IllegalEntryError(f"the hand was passed out: {_PASSED_OUT_NO['points']}", "points")
        if len(self.plays) == 24 and e.points != self.won:
            raise IllegalEntryError(f"the plays give NS {self.won[0]}, EW {self.won[1]}", "points")
        self.points = e.points

    def _misdeal(self, e: Misdeal) -> None:
        if self.plays or self.points is not None:
            raise IllegalEntryError("a misdeal is caught before play", "misdeal")
        self.misdeal = e.reason.strip() or "misdeal"

    def _locate(self, seat: Seat, cards: CardSet, where: str) -> None:
        """Records that ``seat`` held ``cards``; refuses a card already known to be elsewhere."""
        dealt = self.dealt[seat]
        if dealt is not None and cards & ~dealt:
            c = next(cards_in(cards & ~dealt))
            raise IllegalEntryError(
                f"{seat_name(seat)} does not hold {card_name(c)}: it is in {self._source_of(c)}", where
            )
        problems = []
        for s in SEATS:
            clash = self.located[s] & cards if s != seat else 0
            for c in cards_in(clash):
                problems.append(Problem(where, f"{card_name(c)} is also in {self._source_of(c)}"))
        if problems:
            raise IllegalEntryError(problems)
        held = self.located[seat] | cards
        if count(held) > 6:
            raise IllegalEntryError(f"{seat_name(seat)} would hold {count(held)} cards; a hand is 6", where)
        located = list(self.located)
        located[seat] = held
        self.located = tuple(located)
        if not where.startswith("plays"):
            self._sources = (*self._sources, (seat, cards, where))

    def _source_of(self, c: Card) -> str:
        for i, p in enumerate(self.plays):
            if p == c:
                return f"plays[{i}] (played by {seat_name(self.players[i])})"
        for _seat, cards, where in self._sources:
            if cards & bit(c):
                return where
        return "another hand"

    # ---- what the hand is now ------------------------------------------------------------------

    @property
    def makers(self) -> Team | None:
        """The team that named trump."""
        return None if self.maker is None else team_of(self.maker)

    @property
    def finished(self) -> bool:
        """Nothing more is to be entered: scored, passed out, a misdeal, or ended by a renege."""
        return (
            self.misdeal is not None
            or self.passed_out
            or len(self.plays) == 24
            or self.points is not None
            or bool(self.reneges())
        )

    @property
    def turn(self) -> Seat | None:
        """Whose call or card is next (None when the hand is finished or bidding was skipped)."""
        if self.finished:
            return None
        if self.trump is None:
            return self.bidding.turn if self.bidding else left_of(self.dealer)
        return self.next_player

    @property
    def next_player(self) -> Seat | None:
        """The seat whose card comes next in play, even after a renege ended the hand
        (a record may go on past one nobody called)."""
        if self.trump is None or self.maker is None or len(self.plays) == 24:
            return None
        return left_of(self.leader, len(self.plays) % 4)

    @property
    def trick(self) -> tuple[Card, ...]:
        """The cards of the trick in progress, leader first."""
        return self.plays[len(self.plays) - len(self.plays) % 4 :]

    def tricks(self) -> list[Trick]:
        """Every trick so far; the last one may be incomplete (winner None)."""
        out: list[Trick] = []
        trump = self.trump
        if trump is None:  # nothing is played before trump is named
            return out
        leader = left_of(self.dealer)
        for start in range(0, len(self.plays), 4):
            cards = self.plays[start : start + 4]
            if len(cards) == 4:
                winner = left_of(leader, trick_winner(cards, trump))
                bonus = LAST_TRICK_BONUS if start == 20 else 0
                out.append(Trick(leader, cards, winner, trick_points(cards, trump) + bonus))
                leader = winner
            else:
                out.append(Trick(leader, cards, None, trick_points(cards, trump)))
        return out

    def knows_hand(self, seat: Seat) -> bool:
        """Whether all six of a seat's cards are known."""
        return count(self.located[seat]) == 6

    def holding(self, seat: Seat, before: int | None = None) -> CardSet:
        """The cards known to be in a seat's hand before play ``before`` (default: now)."""
        n = len(self.plays) if before is None else before
        gone = 0
        for i in range(n):
            if self.players[i] == seat:
                gone |= 1 << self.plays[i]
        return self.located[seat] & ~gone

    def legal(self) -> CardSet:
        """What may be played now: exact when the player's hand is known, else every card
        that is not yet played and not known to be elsewhere."""
        seat = self.next_player
        if seat is None:
            return 0
        if self.knows_hand(seat):
            assert self.trump is not None  # a next player means trump was named
            return legal_cards(self.holding(seat), self.trick, self.trump)
        elsewhere = 0
        for s in SEATS:
            if s != seat:
                elsewhere |= self.located[s]
        return DECK & ~elsewhere & ~self.played_cards

    @property
    def played_cards(self) -> CardSet:
        """Every card played so far."""
        return self.played[0] | self.played[1] | self.played[2] | self.played[3]

    def check_play(self, c: Card) -> Breach | None:
        """Why the next card ``c`` is a renege as far as is known now, or None."""
        seat = self.turn
        if seat is None or self.trump is None:
            return None
        return breach(self.holding(seat) & ~bit(c), self.trick, self.trump, c)

    def bell_seat(self) -> Seat | None:
        """The seat known to hold the King and Queen of trump, if any."""
        if self.trump is None:
            return None
        bell = bell_cards(self.trump)
        for s in SEATS:
            if self.located[s] & bell == bell:
                return s
        return None

    def reneges(self) -> list[Renege]:
        """Every renege: proven from the bids and cards, then those called at the table."""
        if self._reneges is None:
            self._reneges = self.prove_reneges() + list(self.called)
        return self._reneges

    def prove_reneges(self) -> list[Renege]:
        """The reneges the bids and cards prove, checking every card against what its player
        is known to have held at that moment (uncached: ``reneges()`` is the cached view)."""
        found: list[Renege] = []
        if self.bidding is not None and self.bidding.named_passed_suit():
            maker, named = self.maker, self.trump
            assert maker is not None and named is not None  # the bids ended with a play
            found.append(Renege(team_of(maker), passed_suit_reason(named), maker))
        trump = self.trump
        if trump is None:
            return found
        if self.maker is not None and self.knows_hand(self.maker) and not self.located[self.maker] & suit_mask(trump):
            found.append(Renege(team_of(self.maker), f"said play holding no {SUIT_WORDS[trump]}", self.maker))
        gone = [0, 0, 0, 0]
        plays, players, located = self.plays, self.players, self.located
        for i, c in enumerate(plays):
            seat = players[i]
            gone[seat] |= 1 << c
            b = breach(located[seat] & ~gone[seat], plays[i - i % 4 : i], trump, c)
            if b is not None:
                found.append(Renege(team_of(seat), b.why, seat, i // 4 + 1, c, b.legal, i))
        return found

    def status(self) -> list[Problem]:
        """What is missing for the hand to be scored (empty when it is complete)."""
        if self.misdeal is not None or self.passed_out or self.reneges():
            return []
        problems = []
        if self.trump is None or self.maker is None:
            if self.bidding is not None and not self.bidding.over:
                problems.append(Problem("bids", "the bidding does not end: it needs a play or eight passes"))
            elif self.bidding is not None:
                problems.append(Problem("up", "round 1's trump is the up card's suit: give the up card or trump"))
            else:
                problems.append(Problem("bids", "who named trump is missing: give the bids, or trump and maker"))
        if self.points is None and len(self.plays) < 24:
            if self.plays:
                problems.append(
                    Problem("plays", f"the hand stops after {len(self.plays)} cards, with no renege to end it")
                )
            else:
                problems.append(Problem("points", "the result is missing: give each team's trick points, or the plays"))
        return problems

    def trick_points_by_team(self) -> tuple[int, int]:
        """Each team's card points in tricks: entered, or counted from the plays."""
        return self.points if self.points is not None else self.won


_HANDLERS: dict[type, Callable[[Hand, Any], None]] = {
    Deal: Hand._deal,
    Bid: Hand._bid,
    NameTrump: Hand._name_trump,
    PassOut: Hand._pass_out,
    Announce: Hand._announce,
    ShowBell: Hand._show_bell,
    Play: Hand._play,
    CallRenege: Hand._call_renege,
    TrickPoints: Hand._trick_points,
    Misdeal: Hand._misdeal,
}
