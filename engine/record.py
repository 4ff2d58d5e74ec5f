"""The JSON hand and game records of HAND-RECORD.md: reading, checking and writing them.

Reading turns a record into the events of a hand and applies them, so a record is held to
exactly the rules a hand entered at the table is. Every problem found is reported with the
record path it concerns (``plays[5]``, ``melds.E[0]``); writing gives the canonical form.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.bidding import parse_call
from engine.cards import Card, CardSet, bit, card_name, parse_card, parse_suit
from engine.errors import EntryError, IllegalEntryError, InvalidRecordError, Problem
from engine.game import Sheet, sheet
from engine.hand import (
    HAND_FIELDS,
    Announce,
    Bid,
    CallRenege,
    Deal,
    Event,
    Hand,
    Misdeal,
    NameTrump,
    PassOut,
    Play,
    ShowBell,
    TrickPoints,
)
from engine.rules import Rules, parse_rules
from engine.seats import (
    SEAT_NAMES,
    TEAM_NAMES,
    Seat,
    parse_seat,
    parse_team,
    seat_name,
    team_name,
)
from engine.text import MAX_NAME, MAX_REASON, plain_text

HAND_FORMAT = "clabber-hand/1"
GAME_FORMAT = "clabber-game/1"
GAME_FIELDS = ("format", "rules", "teams", "players", "first_dealer", "hands", "corrections")
MAX_DIGITS = 18  # longest number read as a number
MAX_MELDS = 6  # more melds than a seat has cards cannot be

T = TypeVar("T")


@dataclass(frozen=True)
class HandRecord:
    """A hand read from a record: the rules it was played under and the hand itself."""

    rules: Rules
    hand: Hand


@dataclass(frozen=True)
class GameRecord:
    """A game read from a record."""

    rules: Rules
    hands: tuple[Hand, ...]
    teams: dict[str, str] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=dict)
    first_dealer: Seat | None = None

    def sheet(self) -> Sheet:
        """The game's score sheet."""
        return sheet(self.hands, self.rules, self.first_dealer)


class _Problems:
    """Collects every problem of a record instead of stopping at the first."""

    def __init__(self) -> None:
        self.found: list[Problem] = []

    def read(self, fn: Callable[[Any], T], value: Any, where: str) -> T | None:
        try:
            return fn(value)
        except EntryError as e:
            self.found.extend(e.at(where).problems)
            return None

    def add(self, where: str, why: str) -> None:
        self.found.append(Problem(where, why))

    def unknown_fields(self, obj: dict[str, Any], known: tuple[str, ...]) -> None:
        for k in obj:
            if k not in known:
                self.add(str(k), f"unknown field (known: {', '.join(known)})")


class LongNumber(str):
    """A number too long for any field, kept as its digits so the refusal can say where it stood."""

    def __repr__(self) -> str:
        return f"a {len(self.lstrip('-'))}-digit number"


def _int(digits: str) -> int | LongNumber:
    # Python refuses to convert over 4,300 digits, and no field takes more than a few.
    return LongNumber(digits) if len(digits) > MAX_DIGITS else int(digits)


def loads(text: str | bytes) -> Any:
    """Parses JSON text; InvalidRecordError saying where it stops being JSON."""
    try:
        return json.loads(text, parse_int=_int)
    except json.JSONDecodeError as e:
        raise InvalidRecordError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except (UnicodeDecodeError, RecursionError) as e:
        raise InvalidRecordError(f"not JSON: {type(e).__name__}") from None


def _cards(value: Any, where: str, p: _Problems, exactly: int | None = None) -> list[Card] | None:
    if not isinstance(value, list):
        p.add(where, "must be a list of cards")
        return None
    if exactly is not None and len(value) != exactly:
        p.add(where, f"has {len(value)} cards; it must have {exactly}")
        return None
    out: list[Card] = []
    ok = True
    for i, v in enumerate(value):
        c = p.read(parse_card, v, f"{where}[{i}]")
        if c is None:
            ok = False
        elif c in out:
            p.add(f"{where}[{i}]", f"{card_name(c)} appears twice")
            ok = False
        else:
            out.append(c)
    return out if ok else None


def _mask(cards: list[Card]) -> CardSet:
    m = 0
    for c in cards:
        m |= bit(c)
    return m


def _by_seat(value: Any, where: str, p: _Problems) -> dict[Seat, Any]:
    if not isinstance(value, dict):
        p.add(where, "must be an object keyed by seat (N, E, S, W)")
        return {}
    out: dict[Seat, Any] = {}
    for k, v in value.items():
        s = p.read(parse_seat, k, f"{where}.{k}")
        if s is not None:
            out[s] = v
    return out


def _name(value: Any) -> str:
    try:
        return plain_text(value, MAX_NAME)
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None


def _reason(value: Any) -> str:
    try:
        return plain_text(value, MAX_REASON)
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None


def _points(value: Any) -> tuple[int, int]:
    if not isinstance(value, dict) or set(value) != set(TEAM_NAMES):
        raise InvalidRecordError('must be {"NS": points, "EW": points}')
    out = []
    for t in TEAM_NAMES:
        v = value[t]
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidRecordError(f"{v!r} is not a whole number of points", t)
        out.append(v)
    return (out[0], out[1])


def _rules(value: Any) -> Rules:
    return parse_rules(value, "")  # p.read places the problems under "rules"


def _renege(value: Any) -> CallRenege:
    if not isinstance(value, dict):
        raise InvalidRecordError('must be {"by": TEAM, "reason": TEXT}')
    unknown = set(value) - {"by", "reason", "seat"}
    if unknown:
        raise InvalidRecordError(f"unknown field {sorted(unknown)[0]!r} (known: by, reason, seat)")
    p = _Problems()
    team = p.read(parse_team, value.get("by"), "by")
    reason = p.read(_reason, value.get("reason"), "reason")
    seat = p.read(parse_seat, value["seat"], "seat") if value.get("seat") is not None else None
    if team is not None and seat is not None and seat % 2 != team:
        p.add("seat", f"{seat_name(seat)} does not play for {team_name(team)}")
    if p.found or team is None or reason is None:
        raise InvalidRecordError(p.found)
    return CallRenege(team, reason, seat)


def _read_fields(obj: dict[str, Any], p: _Problems, complete: bool) -> tuple[Seat | None, list[tuple[str, Event]]]:
    """Reads the fields of a hand record into (dealer, [(category, event)])."""
    dealer = p.read(parse_seat, obj.get("dealer"), "dealer") if "dealer" in obj else None
    if "dealer" not in obj:
        p.add("dealer", "missing: give the seat that dealt (N, E, S or W)")
    events: list[tuple[str, Event]] = []
    up = p.read(parse_card, obj["up"], "up") if obj.get("up") is not None else None
    hands: list[CardSet | None] = [None] * 4
    if obj.get("hands") is not None:
        for s, v in _by_seat(obj["hands"], "hands", p).items():
            cards = _cards(v, f"hands.{seat_name(s)}", p, exactly=6)
            if cards is not None:
                hands[s] = _mask(cards)
    if up is not None or any(h is not None for h in hands):
        events.append(("deal", Deal(up, tuple(hands) if any(h is not None for h in hands) else None)))
    if obj.get("bids") is not None:
        if not isinstance(obj["bids"], list) or len(obj["bids"]) > 8:
            p.add("bids", "must be a list of up to 8 calls")
        else:
            for i, v in enumerate(obj["bids"]):
                call = p.read(parse_call, v, f"bids[{i}]")
                if call is not None:
                    events.append(("bidding", Bid(call)))
    po = obj.get("passed_out")
    if po is not None and po is not False:
        if po is not True:
            p.add("passed_out", "must be true or false")
        else:
            events.append(("bidding", PassOut()))
    trump = p.read(parse_suit, obj["trump"], "trump") if obj.get("trump") is not None else None
    maker = p.read(parse_seat, obj["maker"], "maker") if obj.get("maker") is not None else None
    rnd = obj.get("round")
    if rnd is not None and (isinstance(rnd, bool) or rnd not in (1, 2)):
        p.add("round", f"{rnd!r} is not a round of bidding (1 or 2)")
    # Beside the bids a lone trump or maker is checked against them; a draft may hold one alone.
    quick = trump is not None or maker is not None
    if quick and ((trump is not None and maker is not None) or obj.get("bids") is not None or complete):
        events.append(("trump", NameTrump(trump, maker, rnd)))
    if obj.get("bell") is not None:
        bell = p.read(parse_seat, obj["bell"], "bell")
        if bell is not None:
            events.append(("bell", ShowBell(bell)))
    if obj.get("melds") is not None:
        for s, v in sorted(_by_seat(obj["melds"], "melds", p).items()):
            here = f"melds.{seat_name(s)}"
            if not isinstance(v, list):
                p.add(here, "must be a list of melds, each a list of cards")
                continue
            if len(v) > MAX_MELDS:
                p.add(here, f"has {len(v)} melds; a seat holds 6 cards")
                continue
            for i, m in enumerate(v):
                cards = _cards(m, f"{here}[{i}]", p)
                if cards is not None:
                    events.append(("melds", Announce(s, _mask(cards))))
    if obj.get("plays") is not None:
        if isinstance(obj["plays"], list) and len(obj["plays"]) > 24:
            p.add("plays", f"has {len(obj['plays'])} cards; a hand has 24")
        else:
            cards = _cards(obj["plays"], "plays", p)
            if cards is not None:
                events.extend(("plays", Play(c)) for c in cards)
    if obj.get("renege") is not None:
        reneges = obj["renege"] if isinstance(obj["renege"], list) else [obj["renege"]]
        for i, v in enumerate(reneges):
            where = "renege" if not isinstance(obj["renege"], list) else f"renege[{i}]"
            r = p.read(_renege, v, where)
            if r is not None:
                events.append(("renege", r))
    if obj.get("points") is not None:
        pts = p.read(_points, obj["points"], "points")
        if pts is not None:
            events.append(("points", TrickPoints(pts)))
    md = obj.get("misdeal")
    if md is not None and md is not False:
        reason = "misdeal" if md is True else p.read(_reason, md, "misdeal")
        if reason is not None:
            events.append(("misdeal", Misdeal(reason)))
    return dealer, events


# Where an event fails, later events of these kinds depend on it: stop there.
_STOP_AFTER = {"deal", "bidding", "bell", "plays", "misdeal"}


def read_hand(obj: Any, *, in_game: bool = False, rules: Rules | None = None, complete: bool = True) -> HandRecord:
    """Reads and checks a hand record; EntryError listing every problem found.

    >>> read_hand({"format": "clabber-hand/1", "dealer": "N", "trump": "H", "maker": "E",
    ...            "points": {"NS": 80, "EW": 90}})
    Traceback (most recent call last):
    ...
    engine.errors.IllegalEntryError: points: 80 + 90 = 170; the teams' trick points add up to 162 (NS 80 means EW 82)


    With ``complete=False`` a hand still in progress (no result yet) is accepted."""
    if not isinstance(obj, dict):
        raise InvalidRecordError("a hand record is a JSON object", "record")
    p = _Problems()
    p.unknown_fields(obj, HAND_FIELDS)
    if in_game:
        for k in ("format", "rules"):
            if k in obj:
                p.add(k, "a game's hands carry no format or rules: the game's apply")
    else:
        if obj.get("format") != HAND_FORMAT:
            p.add(
                "format",
                f"must be {HAND_FORMAT!r}"
                + (" (this is a game record: use sheet)" if obj.get("format") == GAME_FORMAT else ""),
            )
        rules = p.read(_rules, obj.get("rules"), "rules")
    dealer, events = _read_fields(obj, p, complete)
    if p.found or dealer is None:
        raise InvalidRecordError(p.found)
    hand = Hand(dealer)
    stopped: set[str] = set()
    for kind, e in events:
        if stopped & {"deal", "bidding"} or kind in stopped:
            continue
        try:
            hand = hand.apply(e)
        except EntryError as err:
            p.found.extend(err.problems)
            if kind == "trump" and not hand.passed_out:
                stopped.add("bidding")  # no trump: nothing after it can be checked
            elif kind in _STOP_AFTER:
                stopped.add(kind)
    if not p.found and complete:
        p.found.extend(hand.status())
    if p.found:
        raise IllegalEntryError(p.found)
    return HandRecord(rules or Rules(), hand)


def read_game(obj: Any) -> GameRecord:
    """Reads and checks a game record, every hand and the sheet they make."""
    if not isinstance(obj, dict):
        raise InvalidRecordError("a game record is a JSON object", "record")
    p = _Problems()
    p.unknown_fields(obj, GAME_FIELDS)
    if obj.get("format") != GAME_FORMAT:
        p.add(
            "format",
            f"must be {GAME_FORMAT!r}"
            + (" (this is a hand record: use score)" if obj.get("format") == HAND_FORMAT else ""),
        )
    rules = p.read(_rules, obj.get("rules"), "rules") or Rules()
    teams: dict[str, str] = {}
    if obj.get("teams") is not None:
        if not isinstance(obj["teams"], dict):
            p.add("teams", 'must be {"NS": NAME, "EW": NAME}')
        else:
            for k, v in obj["teams"].items():
                t = p.read(parse_team, k, f"teams.{k}")
                name = p.read(_name, v, f"teams.{k}")
                if t is not None and name is not None:
                    teams[team_name(t)] = name
    players: dict[str, str] = {}
    if obj.get("players") is not None:
        for s, v in _by_seat(obj["players"], "players", p).items():
            name = p.read(_name, v, f"players.{seat_name(s)}")
            if name is not None:
                players[seat_name(s)] = name
    first = p.read(parse_seat, obj["first_dealer"], "first_dealer") if obj.get("first_dealer") is not None else None
    # Corrections made after the table (which hand, when, why) are for people: checked, not scored.
    corrections = obj.get("corrections", [])
    if not isinstance(corrections, list) or not all(isinstance(c, dict) and "hand" in c for c in corrections):
        p.add("corrections", 'must be a list of {"hand": N, "at": TIME, "reason": TEXT}')
    raw = obj.get("hands", [])
    hands: list[Hand] = []
    if not isinstance(raw, list):
        p.add("hands", "must be a list of hand records")
        raw = []
    for i, h in enumerate(raw):
        try:
            hands.append(read_hand(h, in_game=True, rules=rules).hand)
        except EntryError as err:
            p.found.extend(err.at(f"hands[{i}]").problems)
    if first is not None and hands and hands[0].dealer != first:
        p.add("first_dealer", f"the first hand was dealt by {seat_name(hands[0].dealer)}")
    if p.found:
        raise IllegalEntryError(p.found)
    game = GameRecord(
        rules, tuple(hands), teams, players, first if first is not None else (hands[0].dealer if hands else None)
    )
    game.sheet()  # refuses a hand after the end
    return game


# ---- writing ---------------------------------------------------------------------------------


def hand_to_json(hand: Hand, rules: Rules | None = None) -> dict[str, Any]:
    """The canonical record of a hand; without ``rules`` it is a game's hand (no format)."""
    if rules is None:
        return hand.fields()
    return {"format": HAND_FORMAT, "rules": rules.to_json(), **hand.fields()}


def hand_from(dealer: Seat | str, **fields: Any) -> Hand:
    """A hand dealt by ``dealer``, with what the keyword fields of a hand record give so far.

    >>> hand_from("N", up="9H", bids=["pass", "play"]).maker
    S
    """
    return read_hand({"dealer": seat_name(parse_seat(dealer)), **fields}, in_game=True, complete=False).hand


def game_to_json(game: GameRecord) -> dict[str, Any]:
    """The canonical record of a game."""
    out: dict[str, Any] = {"format": GAME_FORMAT, "rules": game.rules.to_json()}
    if game.teams:
        out["teams"] = {t: game.teams[t] for t in TEAM_NAMES if t in game.teams}
    if game.players:
        out["players"] = {s: game.players[s] for s in SEAT_NAMES if s in game.players}
    if game.first_dealer is not None and not game.hands:
        out["first_dealer"] = seat_name(game.first_dealer)
    out["hands"] = [hand_to_json(h) for h in game.hands]
    return out
