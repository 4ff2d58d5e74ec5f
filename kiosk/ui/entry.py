"""The hand being entered on the screen, as the quick-entry fields a table taps in.

Turns taps (maker, trump, one team's points, meld chips, bell, renege) into a hand record
for the controller, and maps the engine's refusals back onto the fields they concern.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine.cards import ACE, JACK, POINTS_IN_HAND, RANK_NAMES, card, card_name, card_set, parse_card, rank_of, suit_of
from engine.melds import SEQUENCE_WORDS, meld_of
from engine.seats import SEAT_NAMES

# Meld chips: name -> cards in a sequence (0 for four of a kind)
MELD_KINDS = {"dad": 3, "fifty": 4, "hundred": 5, "four": 0}


@dataclass(frozen=True)
class MeldChip:
    """A meld as a table names it: a dad, fifty or hundred (suit and top card), or four of a kind."""

    kind: str
    suit: int = 0
    top: int = ACE  # rank index, 9 T J Q K A = 0..5; for four of a kind, the rank

    def cards(self) -> list[str]:
        if self.kind == "four":
            return [card_name(card(self.top, s)) for s in range(4)]
        length = MELD_KINDS[self.kind]
        return [card_name(card(r, self.suit)) for r in range(self.top, self.top - length, -1)]

    @property
    def valid(self) -> bool:
        return self.kind == "four" or self.top - MELD_KINDS[self.kind] + 1 >= 0

    def too_low(self) -> str:
        """Why a sequence from this top card cannot be: it would run below the 9."""
        lowest = ["9", "10", "J", "Q", "K", "A"][MELD_KINDS[self.kind] - 1]
        return f"A {self.kind}'s top card is {lowest} or higher"

    @property
    def points(self) -> int:
        """The engine's worth of these cards."""
        return meld_of(card_set(parse_card(c) for c in self.cards())).points

    def words(self) -> str:
        if self.kind == "four":
            return "four " + ("Jacks" if self.top == JACK else RANK_NAMES[self.top].replace("T", "10") + "s")
        return f"{SEQUENCE_WORDS[MELD_KINDS[self.kind]]} {['A', 'K', 'Q', 'J', '10', '9'][5 - self.top]}"


@dataclass(frozen=True)
class Entry:
    """Everything tapped in so far for one hand."""

    maker: str | None = None
    trump: str | None = None
    passed_out: bool = False
    points_team: str = "NS"  # the team whose points the keypad sets
    points: str = ""  # digits typed
    melds: dict[str, tuple[MeldChip, ...]] = field(default_factory=dict)
    bell: str | None = None
    renege: dict[str, str] | None = None
    round: int | None = None  # the round trump was named in, when the table gives it
    up: str | None = None  # the up card, when the table gives it

    @property
    def complete(self) -> bool:
        """Enough for a hand: passed out, or who said play, trump and the points (none with a
        renege: the reneging team scores 0 and the other 162 whatever the tricks held)."""
        return self.passed_out or bool(self.maker and self.trump and (self.points != "" or self.renege))

    def record(self, dealer: str) -> dict[str, Any]:
        """The hand record the controller checks (only what has been tapped)."""
        out: dict[str, Any] = {"dealer": dealer}
        if self.passed_out:
            out["passed_out"] = True
            return out
        if self.trump:
            out["trump"] = self.trump
        if self.maker:
            out["maker"] = self.maker
        if self.up:
            out["up"] = self.up
        if self.round:
            out["round"] = self.round
        if self.points != "":
            mine = int(self.points)
            other = "EW" if self.points_team == "NS" else "NS"
            out["points"] = {self.points_team: mine, other: POINTS_IN_HAND - mine}
        melds = {s: [m.cards() for m in chips] for s, chips in self.melds.items() if chips}
        if melds:
            out["melds"] = {s: melds[s] for s in SEAT_NAMES if s in melds}
        if self.bell:
            out["bell"] = self.bell
        if self.renege:
            out["renege"] = dict(self.renege)
        return out

    def other_points(self) -> str:
        """The other team's points, computed: the table never does arithmetic."""
        if self.points == "" or int(self.points) > POINTS_IN_HAND:
            return "–"
        return str(POINTS_IN_HAND - int(self.points))

    def press(self, key: str) -> Entry:
        """The entry after a keypad key."""
        if key == "C":
            return replace(self, points="")
        if key == "⌫":
            return replace(self, points=self.points[:-1])
        digits = (self.points + key).lstrip("0") or "0"
        return replace(self, points=digits[:3])

    def with_meld(self, seat: str, chip: MeldChip) -> Entry:
        melds = dict(self.melds)
        melds[seat] = (*melds.get(seat, ()), chip)
        return replace(self, melds=melds)

    def without_meld(self, seat: str, index: int) -> Entry:
        melds = dict(self.melds)
        chips = list(melds.get(seat, ()))
        del chips[index]
        melds[seat] = tuple(chips)
        return replace(self, melds=melds)

    def replace_meld(self, seat: str, index: int, chip: MeldChip) -> Entry:
        melds = dict(self.melds)
        chips = list(melds.get(seat, ()))
        chips[index] = chip
        melds[seat] = tuple(chips)
        return replace(self, melds=melds)


def entry_from_record(record: dict[str, Any]) -> Entry:
    """The taps that give a stored quick-entry record back (for corrections and resumed drafts)."""
    melds: dict[str, tuple[MeldChip, ...]] = {}
    for seat, lists in (record.get("melds") or {}).items():
        chips = []
        for cards in lists:
            chips.append(chip_of(cards))
        melds[seat] = tuple(c for c in chips if c is not None)
    points = record.get("points") or {}
    team = "NS"
    if record.get("maker") in ("E", "W"):
        team = "EW"
    value = points.get(team)
    renege = record.get("renege")
    return Entry(
        maker=record.get("maker"),
        trump=record.get("trump"),
        passed_out=bool(record.get("passed_out")),
        points_team=team,
        points="" if value is None else str(value),
        melds=melds,
        bell=record.get("bell"),
        renege=renege if isinstance(renege, dict) else None,
        round=record.get("round"),
        up=record.get("up"),
    )


def chip_of(cards: list[str]) -> MeldChip | None:
    """The chip for a meld's cards, as a record lists them."""
    parsed = [parse_card(c) for c in cards]
    ranks = sorted({rank_of(c) for c in parsed})
    if len(ranks) == 1:
        return MeldChip("four", 0, ranks[0])
    kind = {3: "dad", 4: "fifty", 5: "hundred", 6: "hundred"}.get(len(parsed))
    if kind is None:
        return None
    # A six-card sequence is worth a hundred and ranks as its top five: kept as those.
    return MeldChip(kind, suit_of(parsed[0]), max(rank_of(c) for c in parsed))
