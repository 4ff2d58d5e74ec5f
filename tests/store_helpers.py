"""Fixtures' building blocks for tests of the store and the controller."""

from __future__ import annotations

import random
from pathlib import Path

from kiosk.store import Store, open_store
from kiosk.table import Table

QUICK_HANDS = [
    {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}},
    {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}},
    {"trump": "C", "maker": "W", "points": {"NS": 40, "EW": 122}, "melds": {"W": [["JC", "JD", "JH", "JS"]]}},
    {"trump": "D", "maker": "N", "points": {"NS": 112, "EW": 50}, "renege": {"by": "EW", "reason": "table talk"}},
]


def open_table(path: Path, seed: int | None = 1) -> Table:
    """A controller on a real SQLite file (backups beside it)."""
    store, _ = open_store(path, path.parent / "backups")
    return Table(store, rng=random.Random(seed) if seed is not None else None)


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
