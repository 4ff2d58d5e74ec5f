"""Fixtures' building blocks for tests of the store and the controller."""

from __future__ import annotations

import datetime as dt
import itertools
import random
import zoneinfo
from collections.abc import Callable
from pathlib import Path

from kiosk.recovery import open_store
from kiosk.store import Store
from kiosk.table import Table

QUICK_HANDS = [
    {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}},
    {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}},
    {"trump": "C", "maker": "W", "points": {"NS": 40, "EW": 122}, "melds": {"W": [["JC", "JD", "JH", "JS"]]}},
    {"trump": "D", "maker": "N", "points": {"NS": 112, "EW": 50}, "renege": {"by": "EW", "reason": "table talk"}},
]


def open_table(path: Path, seed: int | None = 1, night: str | None = None) -> Table:
    """A controller on a real SQLite file (backups beside it); with ``night``, its clock on that
    league night (``night_clock``), else the real one."""
    store, _ = open_store(path, path.parent / "backups")
    table = Table(store, rng=random.Random(seed) if seed is not None else None)
    if night is not None:
        table.clock = night_clock(night)
    return table


_CLOCKS = itertools.count()


def night_clock(night: str) -> Callable[[], str]:
    """A kiosk's clock on a league night (a date like 2026-01-06): from 8 pm in Evansville (each new
    clock a minute later than the one before, as tables start games at their own moments), a second
    further at each reading, as the league's default clock tells nights."""
    evansville = zoneinfo.ZoneInfo("America/Chicago")
    offset = next(_CLOCKS) % 240
    start = dt.datetime.fromisoformat(f"{night}T20:00").replace(tzinfo=evansville) + dt.timedelta(minutes=offset)
    # Tonight's clock never runs ahead of the real one: the league holds a game that starts more than
    # a few minutes in the future, so before 8 pm (or the table's later start) the games start
    # earlier today, still a second apart a clock.
    now, opens = dt.datetime.now(evansville), dt.datetime.fromisoformat(f"{night}T06:00").replace(tzinfo=evansville)
    if opens <= now < start:
        start = max(opens, now - dt.timedelta(minutes=10)) + dt.timedelta(seconds=offset)
    ticks = itertools.count()
    return lambda: (start + dt.timedelta(seconds=next(ticks))).astimezone(dt.UTC).isoformat(timespec="milliseconds")


def reopen(table: Table) -> Table:
    """The same database after the kiosk restarted."""
    path = table.store.path
    table.store.close()
    return open_table(path)


def event_count(store: Store, game: int | None = None) -> int:
    """Events in the log."""
    if game is None:
        return store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    return store.conn.execute("SELECT COUNT(*) FROM events WHERE game = ?", (game,)).fetchone()[0]
