"""The updater, to run as root beside the kiosk: it takes a bundle from the league or from a USB
stick and puts it into the slot not running, only between games.

Each ``step`` looks at what is offered (the league's offer, which the sync worker keeps in the
kiosk's database; bundles on the backup stick), at what the owner asked on the touchscreen, and at
the table: a bundle is written only when no game is open and nobody has touched the screen for
``quiet_after`` seconds, or at once on the owner's word (``Table.ask_update``); the kiosk restarts into the
new slot at the next such moment. What it does is written in the state file (kiosk/updates/state.py)
at every step, which the screen and the league's fleet page show.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from kiosk import outbox
from kiosk.store import Store, StoreError, open_reader
from kiosk.updates import bundles, download, rauc
from kiosk.updates.state import REQUEST_KEY, UpdateState, read_state, write_state
from shared.bundle import BundleInfo, version_key
from shared.update_states import (
    DOWNLOADED,
    DOWNLOADING,
    INSTALLED,
    INSTALLING,
    OFFERED,
    REFUSED,
    ROLLED_BACK,
    TRYING,
    UP_TO_DATE,
)

log = logging.getLogger("clabber.update")

QUIET_AFTER = 600.0  # seconds without a touch before a bundle is written or the kiosk restarts
ASKED_FOR = 900.0  # seconds the owner's word holds: the updater looks every 30 s
# An update under way, or an outcome the league has still to hear: a stick's refusal does not
# take the state's place.
BUSY = (DOWNLOADING, INSTALLING, INSTALLED, TRYING, ROLLED_BACK)
LEFT_OPEN = 12 * 3600.0  # an open game untouched this long was left, not paused: it does not hold an update


@dataclass(frozen=True)
class Places:
    """Where the updater reads and writes."""

    state_file: Path  # its state, read by the kiosk and its sync worker
    downloads: Path  # bundles fetched from the league (on the data partition)
    kiosk_db: Path
    touched: Path  # the kiosk touches this file when the screen is touched (at most twice a minute)
    usb: Path | None = None  # where the backup stick is mounted


def owner_request(store: Store, now: float) -> dict[str, Any]:
    """What the owner asked on the touchscreen in the last ``ASKED_FOR`` seconds: {"action": "now" |
    "install" | "force", "version"}. An older word is spent: the updater may not write the kiosk's
    database to take it back, and a "now" left from the last update must not rush the next."""
    text = store.setting(REQUEST_KEY)
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(found, dict) or now - _epoch(found.get("at")) > ASKED_FOR:
        return {}
    return found


def league_offer(store: Store) -> download.Offer | None:
    """The league's offer as the sync worker last fetched it, or None."""
    found = outbox.update_offer(store)
    if not found:
        return None
    try:
        return download.Offer(str(found["version"]), int(found["size"]), str(found["sha256"]), str(found["url"]))
    except (KeyError, TypeError, ValueError):
        return None


class Updater:
    """One kiosk's updater. ``restart`` reboots into the new slot (systemctl reboot on the Pi)."""

    def __init__(
        self,
        places: Places,
        system: bundles.System,
        restart: Callable[[], None],
        quiet_after: float = QUIET_AFTER,
        clock: Callable[[], float] = time.time,
        slot: str = "",
    ) -> None:
        self.places = places
        self.system = system
        self.restart = restart
        self.quiet_after = quiet_after
        self.clock = clock
        self.slot = slot
        self._judged: dict[tuple[str, int, int, bool], BundleInfo | bundles.Refusal] = {}

    def running_slot(self) -> str:
        if not self.slot:
            self.slot = rauc.status().booted
        return self.slot

    # ---- the table -----------------------------------------------------------------------------------

    def quiet(self, store: Store) -> str | None:
        """None when the table is quiet; else what the update waits for, in words."""
        now = self.clock()
        try:
            touched = self.places.touched.stat().st_mtime
        except OSError:
            touched = 0.0
        if now - touched < self.quiet_after:
            return "waiting until nobody has touched the screen for a while"
        for game in store.games(limit=5, status="open"):
            if now - _epoch(game.get("updated_at")) < LEFT_OPEN:
                return f"waiting until game {game['id']} is over"
        return None

    # ---- one step ------------------------------------------------------------------------------------

    def step(self) -> UpdateState:
        """Looks at what is offered and asked, does the next thing, and writes the state."""
        try:
            slot = self.running_slot()
        except rauc.RaucError:
            slot = ""  # RAUC's service not up yet: said at the install, if it is still not
        state = replace(read_state(self.places.state_file), running=self.system.running, slot=slot)
        try:
            store = open_reader(self.places.kiosk_db)
        except StoreError as e:
            return self.write(
                state if state.why == str(e) else replace(state, why=f"cannot read the kiosk's database: {e}")
            )
        try:
            return self.write(self.next(state, store))
        finally:
            store.close()

    def next(self, state: UpdateState, store: Store) -> UpdateState:
        asked = owner_request(store, self.clock())
        if state.state == INSTALLED:
            waiting = None if asked.get("action") == "now" else self.quiet(store)
            if waiting is None:
                log.info("update: restarting into version %s", state.version)
                self.write(replace(state, why="restarting into it"))
                self.restart()
                return replace(state, why="restarting into it")
            return replace(state, why=waiting)
        usb = self.from_usb(state, asked)
        if usb is not None:
            return usb
        offer = league_offer(store)
        if offer is None:
            return state.to(UP_TO_DATE) if state.state in (OFFERED, DOWNLOADING, DOWNLOADED) else state
        forced = asked.get("action") == "force" and asked.get("version") == offer.version
        try:
            newer = version_key(offer.version) > version_key(self.system.running)
        except ValueError as e:
            return state.to(REFUSED, version=offer.version, source="league", why=str(e))
        if not newer and not forced:
            if offer.version == self.system.running:
                return state.to(UP_TO_DATE)
            why = f"older than the running {self.system.running}: only the owner can put it back (Owner → Updates)"
            return state.to(REFUSED, version=offer.version, source="league", why=why)
        same = state.version == offer.version and (state.state == ROLLED_BACK or state.source == "league")
        if state.state in (REFUSED, ROLLED_BACK) and same and not forced:
            return state  # refused, or tried and failed: not fetched and tried again for nothing
        if state.state == DOWNLOADED and state.version == offer.version:
            return self.install_when_quiet(state, store, asked)
        return self.fetch(state, offer, store, forced)

    def from_usb(self, state: UpdateState, asked: dict[str, Any]) -> UpdateState | None:
        """A bundle on the stick: offered to the owner, installed when the owner says so. A
        refusal is said once; the stick may stay in with it (it is the backup stick), so after that
        the league's offers go on."""
        if self.places.usb is None:
            return None
        try:
            found = sorted(self.places.usb.glob("*.raucb"))
        except OSError:
            return None
        if not found:
            return None
        forced = asked.get("action") == "force"
        try:
            bundle = download.from_stick(found[-1], self.places.downloads)
            verdict, fresh = self.judged(bundle, forced)
        except download.DownloadError as e:
            return replace(state, why=f"the stick's {found[-1].name}: {e}")
        except OSError:
            return None  # the stick pulled out while it was read
        if isinstance(verdict, bundles.Refusal):
            if verdict.running or not fresh or state.state in BUSY:
                return None
            version = verdict.version or _version_of(bundle)
            return state.to(REFUSED, version=version, source="usb", bundle=str(bundle), why=str(verdict))
        offered = state.to(OFFERED, version=verdict.version, source="usb", bundle=str(bundle))
        if asked.get("action") in ("install", "force", "now") and asked.get("version") in (verdict.version, None):
            return self.install(offered)
        return offered

    def judged(self, bundle: Path, forced: bool) -> tuple[BundleInfo | bundles.Refusal, bool]:
        """The stick's bundle judged once while it stays the same file (reading a whole bundle's
        signature at every look would keep the stick busy), and whether this is the first time."""
        seen = bundle.stat()
        key = (str(bundle), seen.st_size, seen.st_mtime_ns, forced)
        if key in self._judged:
            return self._judged[key], False
        try:
            verdict: BundleInfo | bundles.Refusal = bundles.judge(bundle, self.system, force_older=forced)
        except bundles.Refusal as e:
            verdict = e
        self._judged[key] = verdict
        return verdict, True

    def fetch(self, state: UpdateState, offer: download.Offer, store: Store, forced: bool) -> UpdateState:
        key = (outbox.link(store) or {}).get("key")
        fetching = state.to(DOWNLOADING, version=offer.version, source="league", percent=state.percent)
        if state.state != DOWNLOADING or state.version != offer.version:
            fetching = self.write(replace(fetching, percent=0))

        def progress(percent: int) -> None:
            nonlocal fetching
            if percent >= fetching.percent + 5:
                fetching = self.write(replace(fetching, percent=percent, why=""))

        try:
            bundle = download.fetch(offer, self.places.downloads, key, progress)
        except download.DownloadError as e:
            return replace(fetching, why=str(e))
        try:
            info = bundles.judge(bundle, self.system, force_older=forced)
        except bundles.Refusal as e:
            bundle.unlink(missing_ok=True)
            return fetching.to(REFUSED, why=str(e))
        ready = fetching.to(DOWNLOADED, version=info.version, bundle=str(bundle))
        return self.install_when_quiet(ready, store, owner_request(store, self.clock()))

    def install_when_quiet(self, state: UpdateState, store: Store, asked: dict[str, Any]) -> UpdateState:
        waiting = None if asked.get("action") in ("now", "force") else self.quiet(store)
        if waiting is not None:
            return replace(state, why=waiting)
        return self.install(state)

    def install(self, state: UpdateState) -> UpdateState:
        """Writes the bundle into the slot not running; the next start tries it."""
        writing = self.write(state.to(INSTALLING, previous=self.running_slot()))

        def progress(percent: int, _step: str) -> None:
            nonlocal writing
            if percent >= writing.percent + 5:
                writing = self.write(replace(writing, percent=percent))

        log.info("update: writing version %s from %s", state.version, state.bundle)
        try:
            rauc.install(Path(state.bundle), progress)
        except rauc.RaucError as e:
            return writing.to(REFUSED, why=f"RAUC could not install it: {e}")
        if state.source == "league":
            Path(state.bundle).unlink(missing_ok=True)  # the room is the games'
        return writing.to(INSTALLED, percent=100)

    def write(self, state: UpdateState) -> UpdateState:
        return write_state(self.places.state_file, state)


def _epoch(text: Any) -> float:
    """An ISO time of the store as seconds since the epoch; 0 for none (a game never written to)."""
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return 0.0


def _version_of(bundle: Path) -> str:
    """A refused bundle's version, from its name where RAUC could not read it."""
    name = bundle.name.removesuffix(".raucb")
    return name.removeprefix("clabber-") if name.startswith("clabber-") else ""
