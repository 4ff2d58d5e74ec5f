"""What a new system must show at its try boot before it is kept (kiosk/updates/health.py): each
probe answers None when its part is well, else what is wrong, in words the league's fleet page and
the owner's screen can show."""

from __future__ import annotations

import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from kiosk import outbox
from kiosk.store import Store, StoreError, open_reader
from kiosk.sync import CONNECTED
from kiosk.updates.health import Probe


def kiosk_service(unit: str = "clabber-kiosk.service", systemctl: str = "systemctl") -> Probe:
    """The kiosk's unit active: it is a notify unit that says ready only once its first frame is
    drawn, so "active" means a score sheet on the screen."""

    def probe() -> str | None:
        try:
            done = subprocess.run([systemctl, "is-active", unit], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"systemd could not say whether the kiosk runs ({e})"
        found = done.stdout.strip() or "unknown"
        return None if found == "active" else f"the kiosk is {found}, not running with its sheet drawn"

    return probe


def _reading(path: Path, look: Callable[[Store], str | None]) -> str | None:
    """``look`` at the kiosk's database through a reader of its own, closed after."""
    try:
        store = open_reader(path)
    except StoreError as e:
        return f"the database does not open: {e}"
    try:
        return look(store)
    finally:
        store.close()


def database(path: Path) -> Probe:
    """The kiosk's database opens and passes SQLite's ``integrity_check``."""

    def sound(store: Store) -> str | None:
        try:
            found = store.integrity()
        except sqlite3.DatabaseError as e:  # damaged past what the check itself can read
            return f"the database is damaged: {e}"
        return None if found == ["ok"] else "the database fails its integrity check: " + "; ".join(found[:3])

    return lambda: _reading(path, sound)


def result_pages(port: int, host: str = "127.0.0.1") -> Probe:
    """The result pages answer (their viewer page: always served; a game's page needs a game, and
    the recent games' list may be switched off)."""
    url = f"http://{host}:{port}/view"

    def probe() -> str | None:
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                status = answer.status
        except urllib.error.HTTPError as e:
            status = e.code
        except (OSError, ValueError) as e:
            return f"the result pages do not answer at {url} ({getattr(e, 'reason', e)})"
        return None if status == 200 else f"the result pages answer {status} at {url}"

    return probe


def league_sync(path: Path, booted_at: Callable[[], float] | None = None) -> Probe:
    """Where the kiosk is in a league: its sync worker has reached the league since this boot
    (a word written by the old system before the update does not count)."""
    since = booted_at or boot_time

    def reached(store: Store) -> str | None:
        if outbox.link(store) is None:
            return None  # not in a league: nothing to reach
        said = outbox.sync_state(store)
        try:
            at = datetime.fromisoformat(str(said.get("at"))).timestamp()
        except ValueError:
            at = 0.0
        if at < since():
            return "the sync worker has not reached the league since this start"
        if said.get("state") != CONNECTED:
            return f"the sync worker is {said.get('state')}: {said.get('error') or 'no word why'}"
        return None

    return lambda: _reading(path, reached)


def boot_time() -> float:
    """When this machine started, in seconds since the epoch."""
    return time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
