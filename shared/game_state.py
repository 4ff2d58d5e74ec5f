"""A game as its log folded into what the table sees: the sheet, the hand being entered, the deal.

Pure: no SQL, no clock. The kiosk's controller checks each new event here before it is stored
(its store's derived tables are projected from the state: ``kiosk/projection.py``); the league
folds the games kiosks deliver the same way.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from engine.cards import parse_card
from engine.deal import JackDraw
from engine.errors import EntryError, IllegalEntryError
from engine.game import Sheet, add_hand, sheet
from engine.hand import Hand
from engine.record import GameRecord, game_to_json, hand_to_json, read_hand
from engine.rules import Rules, parse_rules
from engine.seats import TEAM_NAMES, Seat, left_of, parse_seat, seat_name
from shared import events as ev
from shared.events import GameEvent

OPEN, OVER, FINISHED, ABANDONED = "open", "over", "finished", "abandoned"


class ActionRefused(ValueError):
    """An action that cannot be taken now, with the reason in the table's words."""

    def __init__(self, why: str, problems: list[str] | None = None) -> None:
        self.problems = problems or [why]
        super().__init__(why)


class Unfoldable(ActionRefused):
    """A stored log the rules refuse at one event (an altered or damaged entry): the game needs
    the owner's attention, and the rest of the kiosk goes on."""

    def __init__(self, game: int, seq: int, kind: str, why: str) -> None:
        self.game, self.seq, self.kind, self.why = game, seq, kind, why
        super().__init__(
            f"game {game} needs the owner's attention: its event {seq} ({kind}) cannot be read back: {why}"
        )


# What folding a stored event can raise when the event is not what the kiosk wrote.
FOLD_ERRORS = (ActionRefused, EntryError, LookupError, TypeError, ValueError, AttributeError)


@dataclass
class SheetHand:
    """A hand on the sheet (or waiting for confirmation) with its trail."""

    record: dict[str, Any]  # canonical hand record, no format or rules
    hand: Hand
    entered: GameEvent
    by: str | None = None  # the team that entered it
    confirmed: GameEvent | None = None
    corrections: list[GameEvent] = field(default_factory=list)

    @functools.cached_property
    def record_json(self) -> str:
        """The record as stored in the derived ``hands`` table."""
        return json.dumps(self.record)

    def trail(self) -> list[dict[str, Any]]:
        """Entered, confirmed, corrected: when, where from, and why."""
        steps = [("entered", self.entered), ("confirmed", self.confirmed)]
        steps += [("corrected", e) for e in self.corrections]
        return [
            {
                "what": what,
                "at": e.at,
                "source": e.source,
                "by": e.payload.get("by") or e.authorised_by,
                "reason": e.reason,
            }
            for what, e in steps
            if e is not None
        ]


def read_record(record: Any, rules: Rules, complete: bool) -> tuple[dict[str, Any], Hand]:
    """A game's hand record checked by the engine, in canonical form; ActionRefused lists the problems."""
    try:
        hand = read_hand(record, in_game=True, rules=rules, complete=complete).hand
    except EntryError as e:
        raise ActionRefused(str(e.problems[0]), [str(p) for p in e.problems]) from None
    return hand_to_json(hand), hand


class GameState:
    """Everything about one game that its events say."""

    def __init__(self, started: GameEvent) -> None:
        p = started.payload
        self.id = started.game
        self.token: str = p["token"]
        self.teams: dict[str, str] = dict(p["teams"])
        self.players: dict[str, str] = dict(p.get("players") or {})
        self.rules: Rules = parse_rules(p["rules"])
        self.first_dealer: Seat = parse_seat(p["first_dealer"])
        self.draw: list[str] | None = p.get("draw")  # the Jack draw's cards, dealt from N
        self.league: dict[str, int] | None = p.get("league")  # the league meeting and sides, if any
        self.started_at = started.at
        self.updated_at = started.at
        self.last_seq = started.seq
        self.hands: list[SheetHand] = []
        self.pending: SheetHand | None = None
        self.draft: dict[str, Any] | None = None
        self.moves = 0  # deal moves since the last hand, +1 a seat to the left
        self.ended: str | None = None  # FINISHED or ABANDONED, by the table
        self.end_reason: str | None = None
        self.sheet: Sheet = sheet([], self.rules, self.first_dealer)
        self.players_json = json.dumps(self.players)  # as the store keeps them, made once a game
        self.rules_json = json.dumps(asdict(self.rules))

    @property
    def jack_draw(self) -> JackDraw | None:
        """The Jack draw that chose the first dealer, when the kiosk dealt it."""
        return None if self.draw is None else JackDraw(Seat.N, tuple(parse_card(c) for c in self.draw))

    # ---- folding events ------------------------------------------------------------------------

    @classmethod
    def from_events(cls, events: Iterable[GameEvent]) -> GameState:
        """The state the log gives; undone actions are left out as if never taken."""
        log = list(events)
        if not log or log[0].kind != ev.GAME_STARTED:
            raise ActionRefused("the log of this game does not start with the game")
        e = log[0]
        try:
            undone = set()
            for e in log:
                if e.kind == ev.UNDONE:
                    undone.add(e.payload["undoes"])
            e = log[0]
            state = cls(e)
            for e in log[1:]:
                if e.seq in undone or e.kind == ev.UNDONE:
                    state.last_seq, state.updated_at = e.seq, e.at
                    continue
                state = state.apply(e)
        except Unfoldable:
            raise
        except FOLD_ERRORS as err:
            why = (
                err.problems[0]
                if isinstance(err, ActionRefused)
                else str(err.problems[0])
                if isinstance(err, EntryError)
                else f"{type(err).__name__}: {err}"
            )
            raise Unfoldable(e.game, e.seq, e.kind, str(why)) from None
        return state

    def apply(self, e: GameEvent) -> GameState:
        """The state after one more event (not an undo: see ``from_events``); ActionRefused if it cannot be."""
        handler = _HANDLERS.get(e.kind)
        if handler is None:
            raise ActionRefused(f"{e.kind!r} is not an action on a game")
        new = copy.copy(self)
        new.hands = list(self.hands)
        handler(new, e)
        new.last_seq, new.updated_at = e.seq, e.at
        return new

    def _require_open(self, no_hand_waiting: bool = False) -> None:
        """Refuses an action on a game that has ended (or, if asked, while a hand waits to be confirmed)."""
        if self.ended == ABANDONED:
            raise ActionRefused("this game was abandoned")
        if self.ended == FINISHED:
            raise ActionRefused("this game is finished")
        if self.sheet.over:
            raise ActionRefused("the game is over: start a new game")
        if no_hand_waiting and self.pending is not None:
            raise ActionRefused("a hand is waiting to be confirmed: confirm it or undo it first")

    def _draft_saved(self, e: GameEvent) -> None:
        self._require_open(no_hand_waiting=True)
        record = self._with_dealer(e.payload["record"])
        read_record(record, self.rules, complete=False)
        self.draft = record  # as entered so far: a half-made quick entry may name trump before the maker

    def _draft_discarded(self, e: GameEvent) -> None:
        if self.draft is None:
            raise ActionRefused("no hand is being entered")
        self.draft = None

    def _hand_entered(self, e: GameEvent) -> None:
        self._require_open(no_hand_waiting=True)
        record, hand = read_record(self._with_dealer(e.payload["record"]), self.rules, complete=True)
        self.pending = SheetHand(record, hand, e, by=e.payload.get("by") or entering_team(hand))
        self.draft = None

    def _hand_confirmed(self, e: GameEvent) -> None:
        if self.pending is None:
            raise ActionRefused("no hand is waiting to be confirmed")
        by = e.payload.get("by")
        if by is not None and self.pending.by is not None and by == self.pending.by:
            raise ActionRefused(f"{by} entered this hand: the other team confirms it")
        self.sheet = add_hand(self.sheet, self.pending.hand, self.rules)
        self.hands.append(replace(self.pending, confirmed=e))
        self.pending = None
        self.moves = 0

    def _hand_corrected(self, e: GameEvent) -> None:
        if self.ended == ABANDONED:
            raise ActionRefused("this game was abandoned")
        n = e.payload.get("hand")
        if not isinstance(n, int) or not 1 <= n <= len(self.hands):
            raise ActionRefused(f"there is no hand {n} on the sheet (hands 1 to {len(self.hands)})")
        record, hand = read_record(e.payload["record"], self.rules, complete=True)
        old = self.hands[n - 1]
        self.hands[n - 1] = SheetHand(record, hand, old.entered, old.by, old.confirmed, [*old.corrections, e])
        try:
            self._resheet()
        except IllegalEntryError as err:
            raise ActionRefused(f"that correction cannot stand: {err.problems[0].why}") from None

    def _deal_moved(self, e: GameEvent) -> None:
        self._require_open(no_hand_waiting=True)
        step = e.payload.get("step")
        if step not in (1, 2, 3, -1, -2, -3):
            raise ActionRefused("the deal moves one to three seats forward or back")
        self.moves = (self.moves + step) % 4
        if self.draft is not None:
            self.draft = {**self.draft, "dealer": seat_name(self.dealer)}

    def _game_finished(self, e: GameEvent) -> None:
        if self.ended is not None:
            raise ActionRefused(f"this game is already {self.ended}")
        self.ended, self.end_reason = FINISHED, e.reason

    def _game_abandoned(self, e: GameEvent) -> None:
        if self.ended == ABANDONED:
            raise ActionRefused("this game is already abandoned")
        self.ended, self.end_reason = ABANDONED, e.reason

    def _with_dealer(self, record: Any) -> Any:
        if isinstance(record, dict) and "dealer" not in record:
            return {**record, "dealer": seat_name(self.dealer)}
        if isinstance(record, dict) and record.get("dealer") != seat_name(self.dealer):
            raise ActionRefused(
                f"the deal is {seat_name(self.dealer)}'s, not {record.get('dealer')!s}'s: move the deal first"
            )
        return record

    def _resheet(self) -> None:
        self.sheet = sheet([h.hand for h in self.hands], self.rules, self.first_dealer)

    # ---- what the table sees ---------------------------------------------------------------------

    @property
    def rules_dealer(self) -> Seat:
        """Who the rules say deals now."""
        return self.sheet.next_dealer if self.sheet.next_dealer is not None else self.hands[-1].hand.dealer

    @property
    def dealer(self) -> Seat:
        """Who deals now: the rules' dealer moved by the table's buttons."""
        return left_of(self.rules_dealer, self.moves)

    @property
    def status(self) -> str:
        """open, over (the target was reached), finished (ended by the table) or abandoned."""
        if self.ended is not None:
            return self.ended
        return OVER if self.sheet.over else OPEN

    @property
    def winner(self) -> str | None:
        """NS, EW, tie, or None."""
        return self.sheet.outcome.to_json()

    def record(self) -> dict[str, Any]:
        """The game as a ``clabber-game/1`` record (hands on the sheet only), by the engine's writer."""
        hands = tuple(h.hand for h in self.hands)
        return game_to_json(GameRecord(self.rules, hands, self.teams, self.players, self.first_dealer))


def entering_team(hand: Hand) -> str | None:
    """Who enters a hand unless told: the team that called a renege, else the makers; the
    other team then confirms it."""
    reneges = hand.reneges()
    if reneges:
        return TEAM_NAMES[1 - reneges[0].team]
    return None if hand.makers is None else TEAM_NAMES[hand.makers]


_HANDLERS = {
    ev.DRAFT_SAVED: GameState._draft_saved,
    ev.DRAFT_DISCARDED: GameState._draft_discarded,
    ev.HAND_ENTERED: GameState._hand_entered,
    ev.HAND_CONFIRMED: GameState._hand_confirmed,
    ev.HAND_CORRECTED: GameState._hand_corrected,
    ev.DEAL_MOVED: GameState._deal_moved,
    ev.GAME_FINISHED: GameState._game_finished,
    ev.GAME_ABANDONED: GameState._game_abandoned,
}
