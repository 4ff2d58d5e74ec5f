"""The kiosk's side of the league in its store: the enrolment (the league's address, this kiosk's key,
venue and table), the outbox of league games' events waiting for the league, what the sync worker
last saw, and tonight's meetings as last fetched. Every statement about them is here.

The outbox is written by the store in the transaction of each event (``Store.append_all``); the sync
worker (kiosk/sync.py) reads it in order and removes what the league acknowledged."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiosk.store import Store
from shared.events import GameEvent

LINK_KEY = "league"  # {"url", "kiosk", "venue": {"id", "name"}, "table", "joined_at"}; the key is in its file
KEY_FILE = ".league-key"  # beside the database (kiosk.db.league-key): the kiosk's key, read by its user only
SYNC_KEY = "league_sync"  # what the worker last saw: {"state", "at", "last_delivery", "error", ...}
TONIGHT_KEY = "league_tonight"  # the last answer of /api/v1/tonight, with when it was fetched
RULINGS_KEY = "league_rulings"  # the organiser's rulings on this kiosk's games, by game
UPDATE_KEY = "league_update"  # the league's offer of a new version: {"version", "size", "sha256", "url"}


@dataclass(frozen=True)
class OutgoingGame:
    """A league game's events waiting for the league, oldest first."""

    game: int
    meeting: int
    sides: dict[str, int]
    events: list[GameEvent]


def link(store: Store) -> dict[str, Any] | None:
    """The league this kiosk joined, with its key (None when its file is gone), or None.

    The key lives in a file of its own beside the database, readable by the kiosk's user only, so
    that no backup, export or copy of the database carries it. A key a kiosk kept in its database
    before is moved to its file here."""
    text = store.setting(LINK_KEY)
    if not text:
        return None
    joined: dict[str, Any] = json.loads(text)
    if "key" in joined:
        if store.readonly:
            return joined
        _write_key(store, str(joined.pop("key")))
        _put(store, LINK_KEY, joined)
    try:
        joined["key"] = key_path(store).read_text().strip() or None
    except OSError:
        joined["key"] = None
    return joined


def key_path(store: Store) -> Path:
    return store.path.with_name(store.path.name + KEY_FILE)


def _write_key(store: Store, key: str) -> None:
    """The key's file, written whole or not at all, mode 0600 from its first byte."""
    path = key_path(store)
    part = path.with_name(path.name + ".part")
    part.unlink(missing_ok=True)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key.encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(part, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _put(store: Store, key: str, value: Any) -> None:
    """Writes a setting in a transaction that takes the write lock first (BEGIN IMMEDIATE): the kiosk and
    the sync worker write the same file, and a read-then-write transaction would be refused at once."""
    store.update_setting(key, lambda _old: json.dumps(value, ensure_ascii=False))


def set_link(store: Store, joined: dict[str, Any]) -> None:
    """Keeps an enrolment: the key in its file first, then the rest in the database."""
    _write_key(store, str(joined["key"]))
    _put(store, LINK_KEY, {k: v for k, v in joined.items() if k != "key"})


def forget_link(store: Store) -> None:
    """Leaves the league: the key is forgotten; the outbox and league games are kept."""
    store.update_setting(LINK_KEY, lambda _old: None)
    store.update_setting(TONIGHT_KEY, lambda _old: None)
    key_path(store).unlink(missing_ok=True)


def queued(store: Store) -> int:
    """Events waiting for the league."""
    return int(store.conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])


def queued_games(store: Store) -> int:
    """Games with events waiting for the league."""
    return int(store.conn.execute("SELECT COUNT(DISTINCT game) FROM outbox").fetchone()[0])


MOST_GAMES = 50  # games in one push (the league takes 50)


def waiting(store: Store, most_events: int, most_games: int = MOST_GAMES) -> list[OutgoingGame]:
    """The oldest waiting events, at most ``most_events`` in all, by game, skipping games held for
    the organiser (a divergence, a refusal)."""
    rows = store.conn.execute(
        "SELECT o.game, o.seq, l.meeting, l.ns_team, l.ew_team FROM outbox o"
        " JOIN league_games l ON l.game = o.game WHERE l.held IS NULL ORDER BY o.game, o.seq LIMIT ?",
        (most_events,),
    ).fetchall()
    seqs: dict[int, list[int]] = defaultdict(list)
    about: dict[int, tuple[int, int, int]] = {}
    for game, seq, meeting, ns, ew in rows:
        if game not in about and len(about) >= most_games:
            break
        seqs[game].append(seq)
        about[game] = (meeting, ns, ew)
    out = []
    for game, numbers in seqs.items():
        wanted = set(numbers)
        events = [e for e in store.events(game) if e.seq in wanted]
        meeting, ns, ew = about[game]
        out.append(OutgoingGame(game, meeting, {"NS": ns, "EW": ew}, events))
    return out


def acknowledge(store: Store, game: int, acked: int) -> None:
    """The league holds the game's events up to ``acked``: they leave the outbox."""
    with store.writing():
        store.conn.execute("DELETE FROM outbox WHERE game = ? AND seq <= ?", (game, acked))
        store.conn.execute("UPDATE league_games SET acked = MAX(acked, ?) WHERE game = ?", (acked, game))


def resend_from(store: Store, game: int, seq: int) -> None:
    """The league asks for the game's events from ``seq`` again: they go back into the outbox."""
    with store.writing():
        store.conn.execute(
            "INSERT OR IGNORE INTO outbox (game, seq) SELECT game, seq FROM events WHERE game = ? AND seq >= ?",
            (game, seq),
        )


def hold(store: Store, game: int, why: str) -> None:
    """Stops sending a game (kept in the outbox) until the owner or the organiser looks at it."""
    with store.writing():
        store.conn.execute("UPDATE league_games SET held = ? WHERE game = ?", (why, game))


def held(store: Store) -> list[dict[str, Any]]:
    """League games not being sent, with why."""
    rows = store.conn.execute("SELECT game, meeting, held FROM league_games WHERE held IS NOT NULL ORDER BY game")
    return [{"game": g, "meeting": m, "why": w} for g, m, w in rows]


def league_game(store: Store, game: int) -> dict[str, Any] | None:
    """A league game's meeting, sides, what the league acknowledged and whether it is held."""
    row = store.conn.execute(
        "SELECT meeting, ns_team, ew_team, acked, held FROM league_games WHERE game = ?", (game,)
    ).fetchone()
    if row is None:
        return None
    return {"game": game, "meeting": row[0], "sides": {"NS": row[1], "EW": row[2]}, "acked": row[3], "held": row[4]}


def games_by_meeting(store: Store) -> dict[int, list[dict[str, Any]]]:
    """This kiosk's league games by meeting, oldest first: each game's number and status (open, over,
    finished, abandoned)."""
    rows = store.conn.execute(
        "SELECT l.meeting, l.game, g.status FROM league_games l JOIN games g ON g.id = l.game ORDER BY l.game"
    )
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for meeting, game, status in rows:
        out[meeting].append({"game": game, "status": status})
    return dict(out)


def sync_state(store: Store) -> dict[str, Any]:
    """What the worker last wrote about itself ({} before it first ran)."""
    text = store.setting(SYNC_KEY)
    return json.loads(text) if text else {}


def set_sync_state(store: Store, state: dict[str, Any]) -> None:
    _put(store, SYNC_KEY, state)


def tonight(store: Store) -> dict[str, Any] | None:
    """Tonight's meetings as last fetched (with ``fetched_at``), or None."""
    text = store.setting(TONIGHT_KEY)
    return json.loads(text) if text else None


def set_tonight(store: Store, answer: dict[str, Any]) -> None:
    _put(store, TONIGHT_KEY, answer)


def rulings(store: Store) -> dict[str, Any]:
    text = store.setting(RULINGS_KEY)
    return json.loads(text) if text else {}


def set_rulings(store: Store, by_game: dict[str, Any]) -> None:
    _put(store, RULINGS_KEY, by_game)


def update_offer(store: Store) -> dict[str, Any]:
    """The league's offer of a new version as last fetched ({} when it offers none)."""
    text = store.setting(UPDATE_KEY)
    found = json.loads(text) if text else {}
    return found if isinstance(found, dict) else {}


def set_update_offer(store: Store, offer: dict[str, Any]) -> None:
    """Keeps the league's offer ({} or None: it offers none now)."""
    if offer:
        _put(store, UPDATE_KEY, offer)
    else:
        store.update_setting(UPDATE_KEY, lambda _old: None)
