"""The table: the one controller through which every action on a game passes.

The screen, the dealer buttons, the web pages and the ``clabber`` command all call this.
Each action becomes an event that is checked against the game, stored (with the game's derived
rows, in one durable transaction) and only then becomes the game's new state. Every action may
carry an id: the same action delivered twice (a double tap) is stored once.
"""

from __future__ import annotations

import json
import math
import random
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

from engine.cards import card_name
from engine.deal import JackDraw, draw_for_dealer, read_draw
from engine.errors import EntryError
from engine.hand import Hand
from engine.record import read_game
from engine.rules import Rules, parse_rules
from engine.scoring import HandScore, score_hand
from engine.seats import parse_seat, seat_name
from kiosk import league_link, league_words, outbox
from kiosk.backups import back_up
from kiosk.pin import hash_pin, lock_seconds, needs_rehash, pin_matches, say_seconds, valid_pin
from kiosk.projection import rows_of
from kiosk.recovery import OpenReport, open_store
from kiosk.store import Store, StoreError, now_utc
from kiosk.table_input import (
    LeagueSides,
    PlayerNames,
    TeamNames,
    parse_league,
    parse_players,
    parse_reason,
    parse_team_name,
    parse_teams,
)
from kiosk.updates.state import BUSY, REQUEST_KEY, UpdateState, read_state, said
from shared import events as ev
from shared.events import GameEvent
from shared.game_state import FOLD_ERRORS, ActionRefused, GameState, Unfoldable, read_record
from shared.stats import Statistics, Tally

PIN_KEY = "owner_pin"
PIN_LOCK_KEY = "pin_lock"  # wrong PINs in a row and until when entry is locked, as JSON
SET_ASIDE_KEY = "set_aside"  # open games whose log cannot be folded, acknowledged by the owner
# Actions after which one tap of undo no longer reaches back.
_UNDO_BARRIERS = (ev.HAND_CORRECTED, ev.GAME_FINISHED, ev.GAME_ABANDONED)


@dataclass(frozen=True)
class PinLock:
    """Wrong PINs in a row, and how many seconds PIN entry stays locked (0: open)."""

    failures: int = 0
    seconds_left: int = 0


class Table:
    """The kiosk's games and every action on them."""

    def __init__(
        self,
        store: Store,
        *,
        source: str = "screen",
        clock: Callable[[], str] = now_utc,
        rng: random.Random | None = None,
        updates: Path | None = None,
    ) -> None:
        self.store = store
        self.updates = updates  # the updater's state file (kiosk/updates/state.py), where there is one
        self.source = source
        self.clock = clock
        self.rng = rng or random.SystemRandom()  # the Jack draw uses a real random source
        self._states: dict[int, GameState] = {}
        self._tally = Tally()
        self._attention: list[Unfoldable] | None = None
        self._unsaved_lock: str | None = None  # a PIN lock the store could not write (full disk)

    # ---- reading ---------------------------------------------------------------------------------

    def game(self, game_id: int) -> GameState:
        """A game as its log says it is now."""
        state = self._states.get(game_id)
        if state is None or state.last_seq != self.store.last_seq(game_id):
            events = self.store.events(game_id)
            if not events:
                raise ActionRefused(f"there is no game {game_id}")
            state = GameState.from_events(events)
            self._states[game_id] = state
        return state

    def open_game(self) -> GameState | None:
        """The game to resume after a restart: the most recent one still open, unless its log
        cannot be folded (that one waits for the owner: see ``attention``)."""
        set_aside = self._set_aside()
        for row in self.store.games(limit=20, status="open"):
            if row["id"] in set_aside:
                continue
            try:
                return self.game(row["id"])
            except Unfoldable:
                return None
        return None

    def attention(self) -> list[Unfoldable]:
        """Open games whose log the rules refuse at some event, not yet set aside by the owner."""
        if self._attention is None:
            set_aside = self._set_aside()
            found = []
            for row in self.store.games(limit=20, status="open"):
                try:
                    self.game(row["id"])
                except Unfoldable as e:
                    if row["id"] not in set_aside:
                        found.append(e)
            self._attention = found
        return self._attention

    def _set_aside(self) -> set[int]:
        return {int(g) for g in json.loads(self.store.setting(SET_ASIDE_KEY) or "[]")}

    def notices(self) -> list[str]:
        """What the owner must see on any screen until acknowledged: a restored backup and what
        it lost, and games that need attention."""
        kept = [n["text"] for n in self.store.notices()]
        return kept + [
            f"{e}. It is set aside; the rest of the kiosk works. See clabber db check." for e in self.attention()
        ]

    def acknowledge(self, pin: str | None) -> int:
        """The owner has read the notices (their PIN, when one is set): they stop showing, and games
        that need attention stop being offered for resuming. Returns how many were acknowledged."""
        if self.has_pin():
            self.check_pin(pin or "")
        n = self.store.acknowledge_notices()
        stuck = [e.game for e in self.attention()]
        if stuck:
            self.store.set_setting(SET_ASIDE_KEY, json.dumps(sorted(self._set_aside() | set(stuck))))
            self._attention = []
        return n + len(stuck)

    def reapply(self, events: list[GameEvent]) -> int:
        """Applies events read back from a damaged database on top of the restored one, in each
        game's order, for as long as each follows on and the rules accept it; returns how many
        were stored. A game's events after a gap or a refusal are not applied."""
        by_game: dict[int, list[GameEvent]] = {}
        for e in sorted(events, key=lambda e: (e.game, e.seq)):
            by_game.setdefault(e.game, []).append(e)
        stored = 0
        for game, evs in by_game.items():
            have = self.store.last_seq(game)
            log = self.store.events(game) if have else []
            batch = []
            try:
                state = GameState.from_events(log) if log else None
                for e in evs:
                    if e.seq <= have:
                        if e.seq == 1 and state is not None and e.payload.get("token") != state.token:
                            break  # not the game the backup has under this number
                        continue
                    if e.seq != have + 1:
                        break  # a gap: what follows cannot be checked
                    log.append(e)
                    state = GameState.from_events(log) if state is None or e.kind == ev.UNDONE else state.apply(e)
                    batch.append(e)
                    have = e.seq
            except FOLD_ERRORS:
                pass  # the first event the rules refuse ends what this game gets back
            if batch and state is not None:
                try:
                    self.store.append_all(batch, rows_of(state))
                except StoreError:
                    continue
                stored += len(batch)
                self._states.pop(game, None)
        return stored

    def games(self, limit: int = 50) -> list[dict[str, Any]]:
        """The most recent games, newest first."""
        return self.store.games(limit)

    def statistics(self) -> Statistics:
        """The teams' and players' figures over the games that ended (shared/stats.py), by the names
        typed at the table; each game is folded once until it changes."""
        versions = self.store.finished_games()
        for game in self._tally.stale(versions):
            self._tally.fold(self.store.events(game))
        return Statistics(len(versions), *self._tally.lines(versions))

    def preview(self, game_id: int, record: dict[str, Any], complete: bool = False) -> Hand:
        """The engine's hand for a record in this game, checked but not stored (what a tap would
        give; ``complete``: as a whole hand, as a correction must be before the owner says why);
        ActionRefused with every problem if the engine refuses it."""
        state = self.game(game_id)
        record = record if "dealer" in record else {**record, "dealer": seat_name(state.dealer)}
        return read_record(record, state.rules, complete=complete)[1]

    # ---- starting ----------------------------------------------------------------------------------

    def new_game(
        self,
        teams: TeamNames,
        players: PlayerNames | None = None,
        rules: Rules | str | dict[str, Any] | None = None,
        first_dealer: str | None = None,
        action_id: str | None = None,
        league: LeagueSides | None = None,
        draw: JackDraw | Sequence[str] | None = None,
    ) -> GameState:
        """Starts a game. Who deals first: ``first_dealer``; or ``draw``, the cards of a Jack draw
        the table already made its seats by (``deal_for_jacks``); or neither, and the kiosk deals for
        the Jacks now, the players given moving with the change of seats it makes (the team names
        stay with NS and EW). ``league``: the meeting it is played for, ``{"meeting": 12, "NS": 1,
        "EW": 4}`` (the league's ids): its events then go to the league's outbox with it."""
        if (done := self._done_already(action_id)) is not None:
            return done
        if self.updates is not None and (busy := read_state(self.updates)).state in BUSY:
            raise ActionRefused(f"{said(busy)}: a new game can start when it is written (a few minutes)")
        event = self._started_event(
            self.store.next_game_id(), teams, players, rules, first_dealer, draw, action_id, moved=league is None
        )
        if (meeting := parse_league(league)) is not None:
            event = replace(event, payload={**event.payload, "league": meeting})
        state = GameState(event)
        self.store.append(event, rows_of(state))
        self._states[state.id] = state
        return state

    def deal_for_jacks(self) -> JackDraw:
        """A Jack draw, dealt with the kiosk's random source before the game starts: the table
        changes seats as it says, then names the players where they now sit."""
        return draw_for_dealer(self.rng)

    def _started_event(
        self,
        game_id: int,
        teams: object,
        players: object,
        rules: object,
        first_dealer: object,
        draw: object,
        action_id: str | None,
        moved: bool,
    ) -> GameEvent:
        try:
            frozen = rules if isinstance(rules, Rules) else parse_rules(rules)
        except EntryError as e:
            raise ActionRefused(str(e.problems[0])) from None
        payload: dict[str, Any] = {
            "teams": parse_teams(teams),
            "players": parse_players(players),
            "rules": asdict(frozen),  # a snapshot: the game keeps these rules whatever changes later
            "token": secrets.token_urlsafe(12),  # 96 random bits: the result page's address
        }
        if draw is not None and first_dealer is not None:
            raise ActionRefused("give the first dealer or the Jack draw, not both")
        if draw is not None:
            try:
                made = read_draw([card_name(c) for c in draw.cards] if isinstance(draw, JackDraw) else draw)
            except EntryError as e:
                raise ActionRefused(str(e.problems[0])) from None
            payload["first_dealer"] = seat_name(made.first)
            payload["draw"] = [card_name(c) for c in made.cards]
        elif first_dealer is None:
            made = draw_for_dealer(self.rng)
            payload["first_dealer"] = seat_name(made.first)
            payload["draw"] = [card_name(c) for c in made.cards]
            if moved and (change := made.change()) is not None:
                # The second Jack's holder and the first's partner change seats: their names go too.
                a, b = (seat_name(s) for s in change)
                names = payload["players"]
                names[a], names[b] = names.get(b), names.get(a)
                payload["players"] = {s: names[s] for s in "NESW" if names.get(s)}
        else:
            try:
                payload["first_dealer"] = seat_name(parse_seat(first_dealer))
            except EntryError:
                raise ActionRefused(f"{first_dealer!r} is not a seat (N, E, S or W)") from None
        return GameEvent(game_id, 1, self.clock(), ev.GAME_STARTED, payload, action_id, self.source)

    # ---- acting --------------------------------------------------------------------------------------

    def _done_already(self, action_id: str | None) -> GameState | None:
        """The game as it stands when this action was stored before (a double tap): it is not taken twice."""
        if action_id is not None and (hit := self.store.action(action_id)):
            return self.game(hit[0])
        return None

    def _event(
        self,
        state: GameState,
        kind: str,
        payload: dict[str, Any],
        action_id: str | None,
        authorised_by: str | None = None,
        reason: str | None = None,
    ) -> GameEvent:
        seq = state.last_seq + 1
        return GameEvent(state.id, seq, self.clock(), kind, payload, action_id, self.source, authorised_by, reason)

    def _act(
        self,
        game_id: int,
        kind: str,
        payload: dict[str, Any] | None = None,
        *,
        action_id: str | None = None,
        authorised_by: str | None = None,
        reason: str | None = None,
    ) -> GameState:
        """Checks an action against the game, stores it, then makes it the game's state."""
        if (done := self._done_already(action_id)) is not None:
            return done
        state = self.game(game_id)
        event = self._event(state, kind, payload or {}, action_id, authorised_by, reason)
        new = state.apply(event)
        self.store.append(event, rows_of(new), before=rows_of(state))
        self._states[game_id] = new
        return new

    def save_draft(self, game_id: int, record: dict[str, Any], action_id: str | None = None) -> GameState:
        """Keeps the hand being entered, as far as it goes, so a restart loses nothing."""
        return self._act(game_id, ev.DRAFT_SAVED, {"record": record}, action_id=action_id)

    def discard_draft(self, game_id: int, action_id: str | None = None) -> GameState:
        """Drops the hand being entered."""
        return self._act(game_id, ev.DRAFT_DISCARDED, action_id=action_id)

    def enter_hand(
        self, game_id: int, record: dict[str, Any], by: str | None = None, action_id: str | None = None
    ) -> GameState:
        """Enters a whole hand; it goes on the sheet when the other team confirms it. ``by`` defaults
        to the makers (or the team that called a renege)."""
        payload: dict[str, Any] = {"record": record}
        if by is not None:
            payload["by"] = parse_team_name(by)
        return self._act(game_id, ev.HAND_ENTERED, payload, action_id=action_id)

    def confirm(self, game_id: int, by: str | None = None, action_id: str | None = None) -> GameState:
        """The other team confirms the entered hand: it goes on the sheet."""
        payload = {} if by is None else {"by": parse_team_name(by)}
        return self._act(game_id, ev.HAND_CONFIRMED, payload, action_id=action_id)

    def add_hand(self, game_id: int, record: dict[str, Any], action_id: str | None = None) -> GameState:
        """Enters and confirms a hand at once (a record from a file is its own confirmation)."""
        self.enter_hand(game_id, record, action_id=None if action_id is None else f"{action_id}/entered")
        return self.confirm(game_id, action_id=None if action_id is None else f"{action_id}/confirmed")

    def call_renege(
        self, game_id: int, team: str, reason: str, seat: str | None = None, action_id: str | None = None
    ) -> GameState:
        """The other team calls a renege against ``team``: play ends and the hand, as far as it
        was entered, goes to ``team`` to confirm."""
        state = self.game(game_id)
        reneging = parse_team_name(team)
        claim: dict[str, Any] = {"by": reneging, "reason": reason}
        if seat is not None:
            claim["seat"] = seat
        record = dict(state.draft or {})
        earlier = record.get("renege")
        record["renege"] = claim if earlier is None else [*(earlier if isinstance(earlier, list) else [earlier]), claim]
        return self.enter_hand(game_id, record, action_id=action_id)  # entered by the callers

    def deal_to(self, game_id: int, seat: str, action_id: str | None = None) -> GameState:
        """The table says who deals now (a seat button): the deal moves there, as one action."""
        state = self.game(game_id)
        try:
            target = parse_seat(seat)
        except EntryError:
            raise ActionRefused(f"{seat!r} is not a seat (N, E, S or W)") from None
        step = (target - state.dealer) % 4
        if step == 0:
            raise ActionRefused(f"{seat_name(target)} already deals")
        return self._act(game_id, ev.DEAL_MOVED, {"step": -1 if step == 3 else step}, action_id=action_id)

    @contextmanager
    def acting_as(self, source: str) -> Iterator[Table]:
        """Actions inside are stored as coming from ``source`` (the buttons, say)."""
        before, self.source = self.source, source
        try:
            yield self
        finally:
            self.source = before

    def move_deal(self, game_id: int, step: int | str, action_id: str | None = None) -> GameState:
        """Moves the deal one seat forward (to the left) or back, as the table did."""
        steps = {"next": 1, "forward": 1, "back": -1, 1: 1, -1: -1}
        if step not in steps:
            raise ActionRefused("the deal moves next or back")
        return self._act(game_id, ev.DEAL_MOVED, {"step": steps[step]}, action_id=action_id)

    def undo(self, game_id: int, action_id: str | None = None) -> GameState:
        """Takes back the last action that one tap may take back."""
        if (done := self._done_already(action_id)) is not None:
            return done
        state = self.game(game_id)
        events = self.store.events(game_id)
        undone = {e.payload["undoes"] for e in events if e.kind == ev.UNDONE}
        target = None
        for e in reversed(events):
            if e.kind in _UNDO_BARRIERS:
                break
            if e.kind in ev.UNDOABLE and e.seq not in undone:
                target = e
                break
        if target is None:
            raise ActionRefused("nothing to undo")
        event = self._event(state, ev.UNDONE, {"undoes": target.seq, "kind": target.kind}, action_id)
        new = GameState.from_events([*events, event])
        self.store.append(event, rows_of(new))
        self._states[game_id] = new
        return new

    def correct(
        self, game_id: int, number: int, record: dict[str, Any], reason: str, pin: str, action_id: str | None = None
    ) -> GameState:
        """Replaces an earlier hand with the owner's PIN and a reason; the original stays in the log."""
        self.check_pin(pin)
        reason = parse_reason(reason, "a correction needs a reason")
        state = self.game(game_id)
        if isinstance(record, dict) and "dealer" not in record and 1 <= number <= len(state.hands):
            record = {**record, "dealer": state.hands[number - 1].record["dealer"]}
        payload = {"hand": number, "record": record}
        return self._act(game_id, ev.HAND_CORRECTED, payload, action_id=action_id, authorised_by="owner", reason=reason)

    def finish(self, game_id: int, reason: str | None = None, action_id: str | None = None) -> GameState:
        """Ends the game as it stands."""
        if reason is not None:
            reason = parse_reason(reason, "say why the game is finished")
        return self._act(game_id, ev.GAME_FINISHED, action_id=action_id, reason=reason)

    def abandon(self, game_id: int, reason: str, pin: str, action_id: str | None = None) -> GameState:
        """Abandons a game (owner's PIN); it stays in the log and the list, marked abandoned."""
        self.check_pin(pin)
        reason = parse_reason(reason, "say why the game is abandoned")
        return self._act(game_id, ev.GAME_ABANDONED, action_id=action_id, authorised_by="owner", reason=reason)

    # ---- the owner's PIN -----------------------------------------------------------------------------

    def set_pin(self, pin: str, old_pin: str | None = None) -> None:
        """Sets the owner's PIN; changing it needs the old one."""
        why = valid_pin(pin)
        if why:
            raise ActionRefused(why)
        if self.store.setting(PIN_KEY) is not None:
            self.check_pin(old_pin or "")
        self.store.set_setting(PIN_KEY, hash_pin(pin))

    def has_pin(self) -> bool:
        """Whether the owner has set a PIN."""
        return self.store.setting(PIN_KEY) is not None

    def check_pin(self, pin: str) -> None:
        """ActionRefused unless ``pin`` is the owner's PIN. Wrong PINs in a row lock PIN entry for
        longer and longer (kept in the store, so a restart does not reopen it); while locked no
        PIN is even tried."""
        stored = self.store.setting(PIN_KEY)
        if stored is None:
            raise ActionRefused(
                "no owner PIN is set yet: choose one on the kiosk's owner screen, or with clabber pin set"
            )
        if not isinstance(pin, str) or not pin:
            raise ActionRefused("enter the owner's PIN")
        # The attempt is counted as a wrong one before the PIN is tried, in the transaction that
        # looks at the lock: attempts at once (the screen and ``clabber`` commands) take turns, and
        # once the count locks entry none of them is tried. A right PIN then clears the count.
        turn = self._pin_turn()
        if isinstance(turn, PinLock):
            raise ActionRefused(
                f"PIN entry is locked for {say_seconds(turn.seconds_left)} after {turn.failures} wrong PINs in a row"
            )
        if not pin_matches(pin, stored):
            wait = lock_seconds(turn)
            raise ActionRefused("wrong PIN" + (f": PIN entry is locked for {say_seconds(wait)}" if wait else ""))
        self._pin_lock_write(lambda _old: None)
        if needs_rehash(stored):  # an older, weaker hash: the right PIN is at hand to store it anew
            with suppress(StoreError):  # not written: the old hash still works, and is tried again
                self.store.set_setting(PIN_KEY, hash_pin(pin))

    def pin_lock(self) -> PinLock:
        """Wrong PINs in a row and the seconds PIN entry stays locked, as the store has them."""
        return self._lock_of(_lock_state(self._unsaved_lock or self.store.setting(PIN_LOCK_KEY)))

    def _lock_of(self, state: dict[str, Any]) -> PinLock:
        if not state["until"]:
            return PinLock(state["failures"], 0)
        left = (datetime.fromisoformat(state["until"]) - datetime.fromisoformat(self.clock())).total_seconds()
        # Never longer than the lock itself: a clock set back (a Pi without a real-time clock
        # before it reaches the network) does not stretch it.
        return PinLock(state["failures"], math.ceil(max(0.0, min(left, state["seconds"]))))

    def _pin_turn(self) -> PinLock | int:
        """The lock while PIN entry is locked (nothing counted); else this attempt counted as a wrong
        PIN, the lock set as the count says, and the count returned."""
        turn: list[PinLock | int] = []

        def take(old: str | None) -> str | None:
            state = _lock_state(old)
            lock = self._lock_of(state)
            if lock.seconds_left:
                turn.append(lock)
                return old
            failures = state["failures"] + 1
            seconds = lock_seconds(failures)
            until = datetime.fromisoformat(self.clock()) + timedelta(seconds=seconds)
            turn.append(failures)
            return json.dumps(
                {"failures": failures, "until": until.isoformat() if seconds else None, "seconds": seconds}
            )

        self._pin_lock_write(take)
        return turn[-1]

    def _pin_lock_write(self, change: Callable[[str | None], str | None]) -> str | None:
        try:
            new = self.store.update_setting(PIN_LOCK_KEY, lambda old: change(self._unsaved_lock or old))
            self._unsaved_lock = None
        except StoreError:
            # Not written (a full or read-only disk): the lock holds in this process all the same.
            new = change(self._unsaved_lock or self.store.setting(PIN_LOCK_KEY))
            self._unsaved_lock = new
        return new

    # ---- the league ----------------------------------------------------------------------------------

    def league(self) -> dict[str, Any] | None:
        """The league this kiosk is in: its address, this kiosk's number, the venue and the table
        (never the key); None when it is in none."""
        joined = outbox.link(self.store)
        return league_link.public(joined) if joined else None

    def league_status(self) -> dict[str, Any]:
        """The league and how its games get there: the sync worker's last word (``sync``), the
        events waiting to be sent (``queued``), the games held back and why (``held``)."""
        return league_link.status(self.store)

    def tonight(self) -> dict[str, Any] | None:
        """Tonight's meetings at this kiosk's venue as the league last told the sync worker, or None."""
        return outbox.tonight(self.store)

    def rulings(self) -> dict[str, Any]:
        """The organiser's rulings on this kiosk's league games, by game number (as text)."""
        return outbox.rulings(self.store)

    def league_games(self) -> dict[int, list[dict[str, Any]]]:
        """This kiosk's league games by meeting: each game's number and status."""
        return outbox.games_by_meeting(self.store)

    def new_meeting_game(
        self, meeting: int, ns: str = "a", first_dealer: str | None = None, action_id: str | None = None
    ) -> GameState:
        """Starts the next game of one of tonight's meetings, as a tap on the start screen does: the
        meeting's teams (team ``ns``, a or b, at NS), their players at their seats, the season's rules.
        Refused, saying why, for a meeting that is not tonight's here or has no game left to play."""
        if ns not in ("a", "b"):
            raise ActionRefused(f"the team at NS is a or b, not {ns!r}")
        view = league_words.tonight_view(self.tonight(), self.league_status(), self.league_games(), self.clock())
        choice = next((c for c in view.meetings if c.meeting == meeting), None)
        if choice is None:
            raise ActionRefused(f"meeting {meeting} is not among tonight's meetings here ({view.note})")
        if choice.open_game is not None:
            raise ActionRefused(f"meeting {meeting}'s game is in play here: game {choice.open_game}")
        if not choice.playable:
            raise ActionRefused(f"meeting {meeting} has no game left to play: {choice.text}")
        teams = (choice.a, choice.b) if ns == "a" else (choice.b, choice.a)
        started = league_words.new_game_for(*teams, choice.rules, meeting)
        return self.new_game(**started, first_dealer=first_dealer, action_id=action_id)

    def start_joining(self, address: str, code: str, pin: str) -> league_link.Enrolment:
        """The first half of joining a league (owner's PIN): the address and code checked, nothing
        asked yet. Its ``exchange()`` asks the league and touches no store (a screen runs it on a
        thread of its own); ``finish_joining`` keeps the answer."""
        self.check_pin(pin)
        try:
            return league_link.enrolment(self.store, address, code)
        except league_link.LinkRefused as e:
            raise ActionRefused(str(e)) from None

    def finish_joining(self, joined: dict[str, Any]) -> dict[str, Any]:
        """Keeps the league's answer to ``start_joining(...).exchange()``: the kiosk is in the league."""
        try:
            return league_link.keep(self.store, joined)
        except league_link.LinkRefused as e:
            raise ActionRefused(str(e)) from None

    def leave_league(self, pin: str) -> None:
        """Leaves the league (owner's PIN): the key is forgotten; league games stay on the kiosk."""
        self.check_pin(pin)
        try:
            league_link.leave(self.store)
        except league_link.LinkRefused as e:
            raise ActionRefused(str(e)) from None

    # ---- records in and out ----------------------------------------------------------------------------

    def export(self, game_id: int) -> dict[str, Any]:
        """The game as a ``clabber-game/1`` record."""
        return self.game(game_id).record()

    def import_game(self, record: dict[str, Any], action_id: str | None = None) -> GameState:
        """Stores a ``clabber-game/1`` record as a new game; an invalid record stores nothing."""
        if (done := self._done_already(action_id)) is not None:
            return done
        try:
            game = read_game(record)
        except EntryError as e:
            raise ActionRefused(str(e.problems[0]), [str(p) for p in e.problems]) from None
        teams = [game.teams.get("NS", "NS"), game.teams.get("EW", "EW")]
        first = seat_name(game.first_dealer) if game.first_dealer is not None else None
        event = self._started_event(
            self.store.next_game_id(), teams, game.players, game.rules, first, None, action_id, moved=False
        )
        state = GameState(event)
        batch = [event]

        def step(kind: str, payload: dict[str, Any]) -> None:
            nonlocal state
            batch.append(self._event(state, kind, payload, None))
            state = state.apply(batch[-1])

        for hand_record in record["hands"]:
            dealer = parse_seat(hand_record["dealer"])
            while state.dealer != dealer:  # the table moved the deal: keep that in the log too
                step(ev.DEAL_MOVED, {"step": 1})
            step(ev.HAND_ENTERED, {"record": hand_record})
            step(ev.HAND_CONFIRMED, {})
        self.store.append_all(batch, rows_of(state))  # the rows once, after the last event
        self._states[state.id] = state
        return state

    # ---- the kiosk's own settings and backups (the owner's menu) ---------------------------------------

    KIOSK_SETTINGS: ClassVar[dict[str, tuple[str, ...]]] = {
        "rules_for_new_games": ("evansville", "pagat"),
        "rotation": ("0", "90", "180", "270"),
        "dim_after": ("60", "300", "900", "0"),
    }

    def close(self, fold_log: bool = False) -> None:
        """Closes the database; ``fold_log`` at the kiosk's clean exit (see ``Store.close``)."""
        self.store.close(fold_log=fold_log)

    def kiosk_setting(self, key: str, default: str) -> str:
        """One of the kiosk's settings as stored by the owner's menu, else ``default``."""
        return self.store.setting(key) or default

    def set_kiosk_setting(self, key: str, value: str) -> None:
        """Stores one of the kiosk's settings; only the choices the owner's menu offers."""
        if value not in self.KIOSK_SETTINGS.get(key, ()):
            raise ActionRefused(f"{key}: {value!r} is not one of {', '.join(self.KIOSK_SETTINGS.get(key, ()))}")
        self.store.set_setting(key, value)

    def update_state(self) -> UpdateState | None:
        """Where this kiosk's update stands, as the updater last wrote it (None: no updater here)."""
        return read_state(self.updates) if self.updates is not None else None

    def ask_update(self, action: str, pin: str, version: str | None = None) -> None:
        """The owner's word to the updater: "now" (install what is ready, whatever the table),
        "install" (the bundle on the USB stick), or "force" (put back an older ``version``)."""
        if action not in ("now", "install", "force"):
            raise ActionRefused(f"no update action {action!r}")
        self.check_pin(pin)
        word = {"action": action, "version": version, "at": self.clock()}
        self.store.update_setting(REQUEST_KEY, lambda _old: json.dumps(word))

    def backup(self, folder: Path, keep: int) -> Path:
        """A backup of the database now (the owner's "Back up now"); the path of the copy."""
        return back_up(self.store, folder, keep)

    def pending_score(self, game_id: int) -> HandScore | None:
        """The score the hand waiting for confirmation would put on the sheet (None if none waits)."""
        state = self.game(game_id)
        return None if state.pending is None else score_hand(state.pending.hand, state.rules)


def open_table(
    path: Path,
    backup_dir: Path,
    damaged_dir: Path | None = None,
    *,
    source: str = "screen",
    writable: bool = True,
    clock: Callable[[], str] = now_utc,
    rng: random.Random | None = None,
    updates: Path | None = None,
) -> tuple[Table, OpenReport]:
    """Opens the database for the controller: a damaged one is restored from a backup with every
    event still readable from it applied again through the rules (see ``recovery.open_store``)."""
    store, report = open_store(path, backup_dir, damaged_dir, replay=_replay, writable=writable)
    return Table(store, source=source, clock=clock, rng=rng, updates=updates), report


def _replay(store: Store, events: list[GameEvent]) -> int:
    return Table(store, source="import").reapply(events)


def _lock_state(text: str | None) -> dict[str, Any]:
    """The stored PIN lock; nothing stored (or something unreadable) is no lock."""
    try:
        state = json.loads(text) if text else {}
        failures, seconds, until = int(state.get("failures", 0)), int(state.get("seconds", 0)), state.get("until")
        if until is not None:
            datetime.fromisoformat(until)
    except (ValueError, TypeError, AttributeError):
        return {"failures": 0, "seconds": 0, "until": None}
    return {"failures": failures, "seconds": seconds, "until": until}
