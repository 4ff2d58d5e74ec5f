"""A kiosk in a league without a league server: the store written as enrolment and the sync worker
write it (kiosk/outbox.py's setters), for the screens to show."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.rules import parse_rules
from kiosk import outbox
from kiosk.store import Store

ACES, KINGS, JACKS, QUEENS, TENS, NINES = 1, 2, 3, 4, 5, 6
URL = "https://league.example.org"
KIOSK = 4
UNREACHABLE = "cannot reach the league at https://league.example.org: [Errno 111] Connection refused"
HELD = "the league holds other events for this game (a restored backup?): the organiser decides"


def iso(minutes: float = 0) -> str:
    """Now, give or take some minutes, as the store keeps times."""
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="milliseconds")


def in_a_league(store: Store, state: str | None = "connected", held: int | None = None, url: str = URL) -> None:
    """The kiosk joined the league at ``url`` (Germania, table 2); the worker's last word is ``state``."""
    link = {"url": url, "key": "k" * 43, "kiosk": KIOSK, "venue": {"id": 1, "name": "Germania"}, "table": 2}
    outbox.set_link(store, {**link, "joined_at": iso(-600)})
    if state is not None:
        outbox.set_sync_state(store, sync_state(state))
    if held is not None:
        outbox.hold(store, held, HELD)


def sync_state(state: str) -> dict[str, Any]:
    """What the worker writes about itself in ``state``."""
    said: dict[str, Any] = {"state": state, "at": iso(), "since": iso(-40), "last_delivery": iso(-45), "error": None}
    if state == "unreachable":
        said.update(error=UNREACHABLE, next_try=iso(2))
    elif state == "revoked":
        said.update(error="the league refused this kiosk's key: it was revoked")
    elif state == "waiting":
        said.update(next_try=iso(1))
    return said


PLAYERS = {
    ACES: ["Ann Ruminer", "Bob Mackey"],
    KINGS: ["Dee Kessler", "Eve Hahn"],
    JACKS: ["Gus Weber", "Hal Stoll"],
    QUEENS: ["Ida Roth", "Jo Baum"],
    TENS: ["Kit Lang", "Lou Fink"],
    NINES: ["Max Wolf", "Ned Hart"],
}


def team(id: int, name: str) -> dict[str, Any]:
    return {"id": id, "name": name, "players": PLAYERS[id], "substitutes": []}


def meeting(number: int, a: dict[str, Any], b: dict[str, Any], table: int | None, **kw: Any) -> dict[str, Any]:
    out = {
        "meeting": number,
        "round": 1,
        "table": table,
        "forfeited": False,
        "teams": {"a": a, "b": b},
        "games_per_meeting": 1,
        "games_played": 0,
        "rules": asdict(parse_rules({"target": 300})),
    }
    return {**out, **kw}


def tonight_with(store: Store, date: str | None = None, fetched_at: str | None = None) -> dict[str, Any]:
    """Tonight's meetings at Germania as the worker caches them: Aces v Kings at this table (2), Jacks v
    Queens played already, Tens v Nines forfeited. ``date``: the night (default: today here)."""
    night = date or datetime.now().astimezone().date().isoformat()
    answer = {
        "date": night,
        "venue": {"id": 1, "name": "Germania"},
        "table": 2,
        "meetings": [
            meeting(12, team(JACKS, "Jacks"), team(QUEENS, "Queens"), 1, games_played=1),
            meeting(11, team(ACES, "Aces"), team(KINGS, "Kings"), 2),
            meeting(13, team(TENS, "Tens"), team(NINES, "Nines"), None, forfeited=True),
        ],
        "fetched_at": fetched_at or iso(-5),
    }
    outbox.set_tonight(store, answer)
    return answer
