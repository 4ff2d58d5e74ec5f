"""Reading back what a damaged database still holds, before a backup is put in its place.

Part of the store: it reads a copy of the damaged file (never the file itself, which is kept
as it was), first row by row with every unreadable stretch skipped, then, if that met damage,
with SQLite's own recovery (the ``sqlite3`` command's ``.recover``) when it is installed. What
comes back are the log's events, for the controller to apply again on top of the backup, and
how far each game's log went, to say what could not be recovered.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from shared.events import KINDS, GameEvent

CHUNK = 256  # rows read at a time while the file reads cleanly
GIVE_UP_AFTER = 4096  # unreadable ids in a row past the highest known, before the end is assumed
RECOVER_SECONDS = 120
EVENT_COLUMNS = "id, game, seq, at, kind, payload, action_id, source, authorised_by, reason"
log = logging.getLogger("clabber.store")


@dataclass
class Salvage:
    """What a damaged file gave back."""

    size: int  # bytes of the damaged file set, for the space a restore needs
    events: list[GameEvent] = field(default_factory=list)  # in (game, seq) order, one per (game, seq)
    known: dict[int, int] = field(default_factory=dict)  # game -> the newest seq the file is known to hold
    labels: dict[int, str] = field(default_factory=dict)  # game -> "Ruminers v Mackeys"
    complete: bool = False  # every row was read without an error
    how: str = ""  # how it was read, for the journal

    def lost(self, have: Callable[[int], int]) -> tuple[str, ...]:
        """Each game's events that the damaged file held and ``have`` (the restored database's
        newest seq of a game) lacks, in words."""
        first_at = {(e.game, e.seq): e.at for e in self.events}
        out = []
        for game in sorted(self.known):
            newest, got = self.known[game], have(game)
            if newest <= got:
                continue
            span = f"event {newest}" if newest == got + 1 else f"events {got + 1} to {newest}"
            label = f" ({self.labels[game]})" if game in self.labels else ""
            at = first_at.get((game, got + 1))
            when = f", from {_clock(at)}" if at else ""
            out.append(f"game {game}{label} {span}{when}")
        return tuple(out)


def _clock(at: str) -> str:
    try:
        return datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return at


def salvage(path: Path) -> Salvage:
    """Everything that can still be read from ``path`` (and its write-ahead log)."""
    parts = [p for p in (Path(str(path) + s) for s in ("", "-wal")) if p.exists()]
    found = Salvage(size=sum(p.stat().st_size for p in parts))
    try:
        with tempfile.TemporaryDirectory(prefix="clabber-salvage-") as tmp:
            copy = Path(tmp) / "damaged.db"
            for part in parts:
                shutil.copyfile(part, Path(str(copy) + part.name.removeprefix(path.name)))
            clean = _read_plainly(copy, found)
            found.how = "read row by row"
            if not clean and shutil.which("sqlite3"):
                recovered = Path(tmp) / "recovered.db"
                if _recover(copy, recovered):
                    _read_plainly(recovered, found)
                    _read_lost_and_found(recovered, found)
                    found.how += ", then with SQLite's recovery"
            found.complete = clean
    except OSError as e:
        log.warning("%s: could not read back the damaged file: %s", path, e)
    found.events.sort(key=lambda event: (event.game, event.seq))
    for event in found.events:
        found.known[event.game] = max(found.known.get(event.game, 0), event.seq)
        teams = event.payload.get("teams")
        if event.seq == 1 and event.game not in found.labels and isinstance(teams, dict):
            found.labels[event.game] = f"{teams.get('NS')} v {teams.get('EW')}"
    log.info("%s: %d events read back (%s)", path, len(found.events), found.how or "not read")
    return found


def _read_plainly(db: Path, found: Salvage) -> bool:
    """Reads events and what the games table says of each game's log; False if anything failed."""
    try:
        conn = sqlite3.connect(db)
    except sqlite3.Error:
        return False
    try:
        seen = {(e.game, e.seq) for e in found.events}
        events, clean = _rows(conn, "events", EVENT_COLUMNS)
        for row in events:
            e = _event(row)
            if e is not None and (e.game, e.seq) not in seen:
                seen.add((e.game, e.seq))
                found.events.append(e)
        games, games_clean = _rows(conn, "games", "id, team_ns, team_ew, last_seq")
        for gid, ns, ew, last in games:
            if isinstance(gid, int) and isinstance(last, int):
                found.known[gid] = max(found.known.get(gid, 0), last)
                if isinstance(ns, str) and isinstance(ew, str):
                    found.labels[gid] = f"{ns} v {ew}"
        return clean and games_clean
    finally:
        conn.close()


def _rows(conn: sqlite3.Connection, table: str, columns: str) -> tuple[list[tuple[Any, ...]], bool]:
    """Every readable row of a table by its integer key, stepping over the ones that fail."""
    rows: list[tuple[Any, ...]] = []
    clean = True
    try:
        top = conn.execute(f"SELECT MAX(id) FROM {table}").fetchone()[0]
    except sqlite3.Error:
        top, clean = None, False
    after, misses = 0, 0
    while True:
        try:
            chunk = conn.execute(
                f"SELECT {columns} FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (after, CHUNK)
            ).fetchall()
        except sqlite3.Error:
            clean = False
            chunk = None
        if chunk:
            rows += chunk
            after, misses = chunk[-1][0], 0
            continue
        if chunk == [] and (top is None or after >= top):
            return rows, clean
        # Damage here: one id at a time until the table reads cleanly again.
        after += 1
        try:
            row = conn.execute(f"SELECT {columns} FROM {table} WHERE id = ?", (after,)).fetchone()
        except sqlite3.Error:
            row = None
        if row is not None:
            rows.append(row)
            misses = 0
        else:
            misses += 1
        if (top is not None and after >= top) or (top is None and misses >= GIVE_UP_AFTER):
            return rows, clean


def _event(row: tuple[Any, ...]) -> GameEvent | None:
    """A log row as an event, or None when it is not one any more."""
    _, game, seq, at, kind, payload, action_id, source, authorised_by, reason = row
    if not (isinstance(game, int) and isinstance(seq, int) and seq >= 1 and kind in KINDS):
        return None
    try:
        data = json.loads(payload)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(at, str):
        return None
    texts = (action_id, authorised_by, reason)
    if not isinstance(source, str) or any(t is not None and not isinstance(t, str) for t in texts):
        return None
    return GameEvent(game, seq, at, kind, data, action_id, source, authorised_by, reason)


def _recover(damaged: Path, out: Path) -> bool:
    """SQLite's ``.recover`` of ``damaged`` into a new file ``out``."""
    try:
        with subprocess.Popen(
            ["sqlite3", str(damaged), ".recover"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        ) as dump:
            load = subprocess.run(
                ["sqlite3", str(out)], stdin=dump.stdout, capture_output=True, timeout=RECOVER_SECONDS, check=False
            )
            dump.wait(timeout=RECOVER_SECONDS)
    except (OSError, subprocess.SubprocessError) as e:
        log.warning("%s: SQLite's recovery failed: %s", damaged, e)
        return False
    return load.returncode == 0 or out.exists()


def _read_lost_and_found(db: Path, found: Salvage) -> None:
    """Rows ``.recover`` could not place in a table; those shaped like log rows are events."""
    try:
        conn = sqlite3.connect(db)
    except sqlite3.Error:
        return
    try:
        seen = {(e.game, e.seq) for e in found.events}
        for row in _lost_rows(conn):
            e = _event(row)
            if e is not None and (e.game, e.seq) not in seen:
                seen.add((e.game, e.seq))
                found.events.append(e)
    finally:
        conn.close()


def _lost_rows(conn: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'lost_and_found%'")]
        for name in names:
            cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')]
            if "c9" not in cols:
                continue
            # An events row: ten fields, the first (the id, stored as the rowid) empty.
            sql = f'SELECT id, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM "{name}" WHERE nfield = 10'
            yield from conn.execute(sql)
    except sqlite3.Error:
        return
