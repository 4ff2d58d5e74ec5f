"""The sync worker: a process of its own (``clabber league sync``, systemd/clabber-sync.service) that
delivers this kiosk's league games to the league, so that the table never waits for the network.

While the kiosk is in a league it pushes the outbox (kiosk/outbox.py) oldest first, in bounded
batches, one push at a time; what the league acknowledges leaves the outbox, what it asks for again
goes back in. A push that took all that waited is followed by the next only ``Pace.gather`` after it
began, so that what the table stores meanwhile goes in one push: a league slow to answer gets fewer
and larger pushes, not more and smaller ones; a backlog goes as fast as the league answers.

A game the league holds other events for (a restored backup reusing game numbers) or refuses is
held, never overwritten, with the league's words for the owner screen. Every few minutes it fetches
tonight's meetings and the organiser's rulings on this kiosk's games and keeps them in the store.
After each step it writes its state in the store (``outbox.sync_state``) for the owner screen and the
header's mark.

Failures never end it: the league unreachable is tried again with exponential back-off and full
jitter (at most ``Pace.longest`` apart, so that everything arrives soon after the league is back); a
revoked key stops the pushes and is tried again only every ``Pace.revoked`` seconds or when the link
changes; anything unexpected is said in words in the journal and in the state, and tried again.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kiosk import outbox
from kiosk.league_http import Refused, Unreachable, call
from kiosk.store import Store, StoreError, free_bytes, now_utc
from kiosk.updates.state import read_state, running_version, state_file

log = logging.getLogger("clabber.sync")

CONNECTED, WAITING, UNREACHABLE, REVOKED, NOT_JOINED = "connected", "waiting", "unreachable", "revoked", "not joined"
GAME_REFUSALS = (403, 409, 422)  # the league refuses a game (its meeting, its sides, an event): hold that game
DIVERGED = (
    "the league holds other events for this game (seq {seqs}): a restored backup reusing its number? "
    "Neither side is overwritten; the organiser sees both"
)
REFUSED = "the league refused this game: {why}"
MOST_RETRY_AFTER = 600  # seconds: a Retry-After longer than this is not believed


@dataclass(frozen=True)
class Pace:
    """How often and how much: the worker's few numbers, in one place (tests make them shorter)."""

    most_events: int = 200  # events a push, at most (the league takes 1,000 a game and 1 MB a push)
    first: float = 0.5  # seconds: the back-off's first ceiling, doubled at each failure in a row
    longest: float = 15.0  # seconds: the back-off's cap, so everything arrives within a minute of the league's return
    revoked: float = 600.0  # seconds between tries while the key is refused
    # Seconds between fetches of tonight's meetings and the rulings: a meeting the organiser moves
    # reaches the start screen within a minute (200 kiosks: under 7 light requests a second).
    tonight_every: float = 60.0
    poll: float = 0.5  # seconds between looks at the store for new events (one cheap PRAGMA)
    # Seconds from the start of a push that took all that waited to the start of the next: what the
    # table stores meanwhile goes in one push. Without it, a league slow to answer gets more and
    # smaller pushes (each answer finds a few new events), the more the slower it is.
    gather: float = 0.5
    timeout: float = 10.0  # seconds: one request's deadline
    refresh: float = 2.0  # seconds: the state's queued count is rewritten at most this often while waiting
    store_wait: float = 10.0  # seconds between tries to open a kiosk database that cannot be used now


class BadAnswer(Exception):
    """Something answered, but not as the league does: nothing of it is believed."""


class Backoff:
    """Exponential back-off with full jitter: a random wait up to a ceiling that doubles with each
    failure in a row, up to ``longest``; a success starts again from ``first``."""

    def __init__(self, first: float, longest: float, rng: random.Random) -> None:
        self.first, self.longest, self.rng = first, longest, rng
        self.failures = 0

    def wait(self) -> float:
        ceiling = min(self.longest, self.first * 2 ** min(self.failures, 30))
        self.failures += 1
        return self.rng.uniform(0, ceiling)

    def reset(self) -> None:
        self.failures = 0


def _wire(event: Any) -> dict[str, Any]:
    d = asdict(event)
    d.pop("game")
    return d


def _later(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


class Sync:
    """The worker over one kiosk database. ``run`` until stopped; ``step`` does one round of work."""

    def __init__(
        self,
        path: Path,
        pace: Pace | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.update_state = state_file()  # the updater's state, told to the league
        self.pace = pace or Pace()
        self.clock = clock
        self.backoff = Backoff(self.pace.first, self.pace.longest, rng or random.Random())
        self.store: Store | None = None
        self.identity: tuple[int, int] | None = None
        self.seen_version: int | None = None
        self.link_id: tuple[str, str] | None = None
        self.not_before = 0.0  # no call to the league before this (monotonic seconds)
        self.next_push = 0.0  # no push before this: the events stored meanwhile are gathered (Pace.gather)
        self.gathering = False  # the wait step() asked for is a gathering pause: new events do not end it
        self.tonight_due = 0.0
        self.most_events = self.pace.most_events
        self.written: dict[str, Any] | None = None  # the state as last written (without "at")
        self.refreshed = 0.0
        self.last_delivery: str | None = None
        self.quarantined = 0
        self.rulings_missing = False
        self.store_trouble: str | None = None
        self.trouble_said: str | None = None  # the last unexpected failure said in the journal
        self.said: tuple[str, str | None] | None = None  # the last state and error said in the journal

    # ---- the loop ----------------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Works until ``stop`` is set; a push under way is finished first (it is bounded by the timeout)."""
        log.info("sync: delivering league games from %s", self.path)
        while not stop.is_set():
            self.gathering = False
            try:
                wait = self.step()
                self.trouble_said = None
            except Exception as e:  # never ends the worker: said, then tried again after a pause
                wait = self.backoff.wait()
                self.trouble(f"{type(e).__name__}: {e}", wait)
            if self.gathering:
                stop.wait(wait)  # the new events are the reason for the pause: they do not end it
            else:
                self.idle(stop, wait)
        self.close()
        log.info("sync: stopped")

    def idle(self, stop: threading.Event, seconds: float) -> None:
        """Waits ``seconds``, or less when the store changed (new events, a new link, a restore)."""
        end = self.clock() + max(0.0, seconds)
        while not stop.is_set():
            left = end - self.clock()
            if left <= 0:
                return
            stop.wait(min(self.pace.poll, left))
            if self.changed():
                return

    def changed(self) -> bool:
        """Whether another connection wrote to the store (or another file took its place) since the
        last look: one cheap PRAGMA and a stat."""
        if self.store is None:
            return False
        try:
            if self.replaced():
                return True
            version = self.store.data_version()
        except (sqlite3.Error, OSError):
            return True  # the step that follows says what is wrong
        if version != self.seen_version:
            self.seen_version = version
            return True
        return False

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    # ---- one step ----------------------------------------------------------------------------------

    def step(self) -> float:
        """One round: the link, tonight's meetings when due, one push. Returns the seconds to wait
        before the next round (0: go on at once; the wait ends early when the store changes)."""
        store = self.open()
        if store is None:
            return self.pace.store_wait
        link, why = self.read_link(store)
        if link is None:
            self.link_id = None
            self.note(NOT_JOINED, why)
            return self.pace.tonight_every
        if (link["url"], link["key"]) != self.link_id:  # joined, or joined again: start afresh
            self.link_id = (link["url"], link["key"])
            self.not_before, self.tonight_due = 0.0, 0.0
            self.backoff.reset()
            self.most_events = self.pace.most_events
        now = self.clock()
        if now < self.not_before:
            return min(self.not_before - now, self.refresh(store))
        try:
            if now >= self.tonight_due:
                self.fetch(store, link)
                self.tonight_due = now + self.pace.tonight_every
            games = outbox.waiting(store, self.most_events)
            if not games:
                self.backoff.reset()
                self.note(CONNECTED, None)
                return max(0.0, self.tonight_due - self.clock())
            began = self.clock()
            if began < self.next_push:
                self.gathering = True
                return self.next_push - began
            if self.push(store, link, games):
                self.backoff.reset()
                self.note(CONNECTED, None)
                full = sum(len(g.events) for g in games) >= self.most_events or len(games) >= outbox.MOST_GAMES
                if not full:  # it took all that waited: the next gathers what the table stores meanwhile
                    self.next_push = began + self.pace.gather
                return 0.0
            wait = self.backoff.wait()
            return self.wait_after(store, WAITING, "the league took none of the events sent: trying again", wait)
        except Unreachable as e:
            state = WAITING if e.status is not None else UNREACHABLE
            return self.wait_after(store, state, str(e), self.retry_after(e.retry_after))
        except BadAnswer as e:
            return self.wait_after(store, UNREACHABLE, str(e), self.backoff.wait())
        except Refused as e:
            if e.status == 401:
                return self.wait_after(store, REVOKED, e.why, self.pace.revoked)
            why = f"the league refused ({e.status}): {e.why}"
            return self.wait_after(store, WAITING, why, self.retry_after(e.retry_after))

    def retry_after(self, told: int | None) -> float:
        if told is not None and 0 < told <= MOST_RETRY_AFTER:
            self.backoff.failures += 1
            return float(told)
        return self.backoff.wait()

    def wait_after(self, store: Store, state: str, error: str, wait: float) -> float:
        self.not_before = self.clock() + wait
        self.tonight_due = 0.0  # the next try asks for tonight's meetings first: it always reaches the league
        self.note(state, error, _later(wait))
        return wait

    def trouble(self, why: str, wait: float) -> None:
        """An unexpected failure: said in the journal (once while it lasts) and, when the store can take
        it, in the state."""
        if why != self.trouble_said:
            log.error("sync: %s; trying again within %g s", why, self.pace.longest)
            log.debug("sync: the failure in full", exc_info=True)
        self.trouble_said = why
        self.not_before = max(self.not_before, self.clock() + wait)
        if self.store is not None:
            try:
                self.note(self.written["state"] if self.written else WAITING, why, _later(wait))
            except Exception:  # the store itself is the trouble: the journal has the words
                self.close()

    # ---- the store ---------------------------------------------------------------------------------

    def open(self) -> Store | None:
        """The kiosk's store, opened again when another file took its place (a restore); None while it
        cannot be used (not made yet by the kiosk, locked, damaged: the kiosk restores it, not this)."""
        if self.store is not None and self.replaced():
            log.info("sync: %s was replaced (a restore?): opening it again", self.path)
            self.close()
            self.link_id = None
        if self.store is None:
            why = None
            if not self.path.is_file():
                why = f"{self.path}: no kiosk database here yet (the kiosk makes it at its first start)"
            else:
                try:
                    st = os.stat(self.path)
                    self.store = Store(self.path)
                    self.identity = (st.st_dev, st.st_ino)
                    self.seen_version = None
                    self.resume(self.store)
                except (StoreError, OSError, sqlite3.Error) as e:
                    self.close()
                    why = f"{self.path}: {e}"
            if why is not None:
                if why != self.store_trouble:
                    log.warning("sync: %s; trying again every %.0f s", why, self.pace.store_wait)
                self.store_trouble = why
                return None
            self.store_trouble = None
        return self.store

    def replaced(self) -> bool:
        try:
            st = os.stat(self.path)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self.identity

    def resume(self, store: Store) -> None:
        """What the worker said before it last stopped (the last delivery, the quarantine's count)."""
        try:
            before = outbox.sync_state(store)
        except ValueError:
            before = {}
        last = before.get("last_delivery") if isinstance(before, dict) else None
        count = before.get("quarantined") if isinstance(before, dict) else None
        self.last_delivery = last if isinstance(last, str) else None
        self.quarantined = count if isinstance(count, int) and not isinstance(count, bool) else 0
        self.written = None

    def read_link(self, store: Store) -> tuple[dict[str, Any] | None, str | None]:
        """The league this kiosk joined, checked; or None with why (None: simply not joined)."""
        try:
            link = outbox.link(store)
        except ValueError:
            return None, "the kiosk's league link cannot be read: leave the league and join it again"
        if link is None:
            return None, None
        if not isinstance(link, dict) or not all(isinstance(link.get(k), str) and link[k] for k in ("url", "key")):
            return None, "the kiosk's league link has no address or key: leave the league and join it again"
        return link, None

    def note(self, state: str, error: str | None, next_try: str | None = None) -> None:
        """Writes the state when it changed (the time of writing aside), and says a change of state
        or of error in the journal once, not at every try."""
        store = self.store
        if store is None:
            return
        new = {
            "state": state,
            "queued": outbox.queued(store),
            "held": len(outbox.held(store)),
            "quarantined": self.quarantined,
            "last_delivery": self.last_delivery,
            "error": error,
            "next_try": next_try,
        }
        if new == self.written:
            return
        if self.said != (state, error):
            level = logging.INFO if state in (CONNECTED, NOT_JOINED) else logging.WARNING
            log.log(level, "sync: %s%s", state, f": {error}" if error else "")
            self.said = (state, error)
        outbox.set_sync_state(store, {**new, "at": now_utc()})
        self.written = new
        self.refreshed = self.clock()

    def refresh(self, store: Store) -> float:
        """While waiting: the queued count kept current on the owner screen, at most every few seconds.
        Returns the seconds until it should be looked at again (a change came too soon after the last)."""
        if self.written is None or outbox.queued(store) == self.written["queued"]:
            return float("inf")
        early = self.pace.refresh - (self.clock() - self.refreshed)
        if early > 0:
            return early
        self.note(self.written["state"], self.written["error"], self.written["next_try"])
        return float("inf")

    # ---- the league --------------------------------------------------------------------------------

    def fetch(self, store: Store, link: dict[str, Any]) -> None:
        """Tonight's meetings and the organiser's rulings on this kiosk's games, kept in the store."""
        answer = call(link["url"], "GET", "/api/v1/tonight", key=link["key"], timeout=self.pace.timeout)
        if not isinstance(answer.get("meetings"), list):
            raise BadAnswer(f"{link['url']} answered tonight's meetings without a list of meetings")
        outbox.set_tonight(store, {**answer, "fetched_at": now_utc()})
        try:
            ruled = call(link["url"], "GET", "/api/v1/rulings", key=link["key"], timeout=self.pace.timeout)
        except Refused as e:
            if e.status != 404:
                raise
            if not self.rulings_missing:  # a league server older than the rulings: nothing to pull
                log.info("sync: %s has no rulings to give (an older league server)", link["url"])
            self.rulings_missing = True
            return
        rulings = ruled.get("rulings")
        if not isinstance(rulings, list) or not all(isinstance(r, dict) and _whole(r.get("game")) for r in rulings):
            raise BadAnswer(f"{link['url']} answered the rulings without a list of rulings by game")
        by_game = {str(r["game"]): r for r in rulings}
        if by_game != outbox.rulings(store):
            outbox.set_rulings(store, by_game)
        self.updates(store, link)

    def updates(self, store: Store, link: dict[str, Any]) -> None:
        """The version the league offers, kept for the updater; and this kiosk's word on itself
        (its version, slot, free space, its update's state) for the league's fleet page. A league
        server older than updates has neither: nothing to do."""
        try:
            offered = call(link["url"], "GET", "/api/v1/update", key=link["key"], timeout=self.pace.timeout)
        except Refused as e:
            if e.status != 404:
                raise
            return
        offer = offered.get("offer")
        if offer is not None and not (isinstance(offer, dict) and isinstance(offer.get("path"), str)):
            raise BadAnswer(f"{link['url']} answered the update offer without a bundle's path")
        kept = {**offer, "url": link["url"] + offer["path"]} if offer else {}
        if kept != outbox.update_offer(store):
            outbox.set_update_offer(store, kept)
        try:
            call(link["url"], "POST", "/api/v1/report", self.report(store), link["key"], self.pace.timeout)
        except Refused as e:  # the fleet page misses one report; the games are not held up for it
            log.warning("sync: the league refused this kiosk's report (%s): %s", e.status, e.why)

    def report(self, store: Store) -> dict[str, Any]:
        state = read_state(self.update_state)
        return {
            "version": running_version(),
            "slot": state.slot or None,
            "free_bytes": free_bytes(store.path.parent),
            "last_sync": self.last_delivery,
            "update": {"state": state.state, "version": state.version or None, "percent": state.percent,
                       "why": state.why[:500] or None},
        }  # fmt: skip

    def push(self, store: Store, link: dict[str, Any], games: list[outbox.OutgoingGame]) -> bool:
        """One push of these games' waiting events; True when something came of it (events
        acknowledged, asked for again, or a game held)."""
        body = {
            "games": [
                {"game": g.game, "meeting": g.meeting, "sides": g.sides, "events": [_wire(e) for e in g.events]}
                for g in games
            ]
        }
        try:
            answer = call(link["url"], "POST", "/api/v1/push", body, link["key"], self.pace.timeout)
        except Refused as e:
            if e.status in GAME_REFUSALS:
                if len(games) == 1:
                    outbox.hold(store, games[0].game, REFUSED.format(why=e.why))
                    log.warning("sync: game %d held: %s", games[0].game, REFUSED.format(why=e.why))
                    return True
                # The league takes a push whole or not at all: each game alone finds the one it refuses.
                return any([self.push(store, link, [g]) for g in games])
            if e.status == 413:  # too big for the league: smaller pushes from now on, down to one event
                if self.most_events > 1:
                    self.most_events = max(1, self.most_events // 2)
                    return True
                outbox.hold(store, games[0].game, REFUSED.format(why=e.why))
                return True
            raise
        return self.take(store, games, answer)

    def take(self, store: Store, games: list[outbox.OutgoingGame], answer: dict[str, Any]) -> bool:
        """Acts on the league's answer to a push, game by game; nothing of a malformed answer is believed."""
        said = _answers(answer)
        missing = [g.game for g in games if g.game not in said]
        if missing:
            raise BadAnswer(f"the league's answer says nothing of game {missing[0]}")
        progress = False
        for g in games:
            a = said[g.game]
            first = g.events[0].seq
            last = store.last_seq(g.game)
            self.quarantined += len(a["quarantined"])
            if a["diverged"]:
                why = DIVERGED.format(seqs=", ".join(str(s) for s in a["diverged"][:10]))
                outbox.hold(store, g.game, why)
                log.warning("sync: game %d held: %s", g.game, why)
                progress = True
                continue
            if a["resend_from"] is not None:
                # A gap at the league: it holds up to resend_from - 1; the rest goes again, in order.
                outbox.acknowledge(store, g.game, min(a["resend_from"] - 1, last))
                outbox.resend_from(store, g.game, a["resend_from"])
                progress = progress or a["resend_from"] < first  # asked for the very events sent: no headway
                continue
            # The league holds every event of the game up to ``acked``; never more than this kiosk has
            # (more would be another history of this game number, found when its next event goes).
            outbox.acknowledge(store, g.game, min(a["acked"], last))
            if a["acked"] >= first:
                progress = True
                self.last_delivery = now_utc()
        return progress


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _answers(answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The push's answer by game, checked: a game, acked, resend_from, quarantined and diverged each."""
    rows = answer.get("games")
    if not isinstance(rows, list):
        raise BadAnswer("the league's answer to a push has no list of games")
    out = {}
    for a in rows:
        if not isinstance(a, dict) or not _whole(a.get("game")) or not _whole(a.get("acked")) or a["acked"] < 0:
            raise BadAnswer("the league's answer to a push has a game without its number or acked seq")
        resend = a.get("resend_from")
        if resend is not None and (not _whole(resend) or resend < 1):
            raise BadAnswer(f"the league's answer asks for game {a['game']} again from {resend!r}")
        quarantined = a.get("quarantined") or []
        diverged = a.get("diverged") or []
        if not isinstance(quarantined, list) or not isinstance(diverged, list) or not all(map(_whole, diverged)):
            raise BadAnswer(f"the league's answer for game {a['game']} cannot be read")
        out[a["game"]] = {"acked": a["acked"], "resend_from": resend, "quarantined": quarantined, "diverged": diverged}
    return out


def kiosk_database(flag: str | None, env: Mapping[str, str] | None = None) -> tuple[Path | None, str | None]:
    """The kiosk's database as ``clabber kiosk`` finds it (the flag, $CLABBER_DB, the config file, the
    user's data folder), and why the config file cannot be used, if it cannot: the flag or $CLABBER_DB
    then still tell where the database is."""
    from kiosk.config import ConfigError, load_config

    env = os.environ if env is None else env
    try:
        return load_config({"db": flag}, env).db, None
    except ConfigError as e:
        given = flag or env.get("CLABBER_DB")
        return (Path(given).expanduser() if given else None), str(e)


def run_until_stopped(flag: str | None, pace: Pace | None = None) -> None:
    """The worker in this process until SIGTERM or SIGINT (then it stops between pushes). A config
    that cannot be used is said and read again every minute, never a crash."""
    stop = threading.Event()

    def stopping(signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    said = None
    while not stop.is_set():
        path, why = kiosk_database(flag)
        if why is not None and why != said:
            log.warning("sync: %s%s", why, "" if path else "; reading it again every minute")
            said = why
        if path is not None:
            Sync(path, pace).run(stop)
            return
        stop.wait(60)
