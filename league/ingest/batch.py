"""A kiosk's push as it comes: the batch checked in full before anything is written, with where and
why for the first fault; each game's events as the kiosk's own fold takes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.text import looks_blank, stored_text_problem
from league.ingest.refused import KioskRefused
from shared.events import EVENT_FIELDS, GAME_STARTED, GameEvent, event_of
from shared.jsontext import BadJSON, is_timestamp, loads, texts

MOST_GAMES = 50  # in one push
MOST_EVENTS = 1000  # of one game in one push


@dataclass(frozen=True)
class Pushed:
    """One game's part of a push, checked."""

    game: int
    meeting: int | None
    sides: dict[str, int] | None  # the meeting's team at NS and at EW, when the kiosk says
    events: list[GameEvent]


def read_batch(body: object) -> list[Pushed]:
    """The batch (its JSON text, or read already) checked in full before anything is written: where and
    why for the first fault."""
    if isinstance(body, (bytes, str)):
        body = _loads(body)
    if not isinstance(body, dict) or not isinstance(body.get("games"), list):
        raise KioskRefused('push: send {"games": [{"game": 1, "meeting": 12, "events": [...]}]}')
    if len(body["games"]) > MOST_GAMES:
        raise KioskRefused(f"push: at most {MOST_GAMES} games a push")
    out = []
    seen = set()
    for i, g in enumerate(body["games"]):
        where = f"games[{i}]"
        if not isinstance(g, dict):
            raise KioskRefused(f"{where}: not an object")
        game: Any = g.get("game")
        meeting, events = g.get("meeting"), g.get("events")
        if not _whole(game) or game < 1:
            raise KioskRefused(f"{where}.game: a game number from 1, not {game!r}")
        if game in seen:
            raise KioskRefused(f"{where}: game {game} twice in one push")
        seen.add(game)
        if meeting is not None and not _whole(meeting):
            raise KioskRefused(f"{where}.meeting: a meeting's id, not {meeting!r}")
        if not isinstance(events, list) or len(events) > MOST_EVENTS:
            raise KioskRefused(f"{where}.events: a list of at most {MOST_EVENTS} events")
        checked = []
        for j, e in enumerate(events):
            at = f"{where}.events[{j}]"
            if not isinstance(e, dict):
                raise KioskRefused(f"{at}: not an object")
            if e.get("game", game) != game:
                raise KioskRefused(f"{at}.game: {e.get('game')!r} in game {game}'s list")
            if not _whole(e.get("seq")) or e["seq"] < 1:
                raise KioskRefused(f"{at}.seq: a number from 1, not {e.get('seq')!r}")
            for name in ("at", "kind"):
                if not isinstance(e.get(name), str) or not e[name] or len(e[name]) > 64:
                    raise KioskRefused(f"{at}.{name}: a short text is needed")
            if not is_timestamp(e["at"]):
                raise KioskRefused(f"{at}.at: a time like 2026-01-06T20:15:00.000+00:00 is needed")
            if not isinstance(e.get("payload", {}), dict):
                raise KioskRefused(f"{at}.payload: an object is needed")
            for name in ("action_id", "source", "authorised_by", "reason"):
                if e.get(name) is not None and not isinstance(e[name], str):
                    raise KioskRefused(f"{at}.{name}: a text or null")
            unknown = sorted(set(e) - set(EVENT_FIELDS) - {"game"})
            if unknown:
                raise KioskRefused(f"{at}: unknown field {unknown[0]!r}")
            _check_texts(e, at)
            checked.append(event_of(game, {"payload": {}, **e}))
        if len({e.seq for e in checked}) != len(checked):
            raise KioskRefused(f"{where}.events: a seq twice")
        out.append(Pushed(game, meeting, _read_sides(g.get("sides"), where), checked))
    return out


def _check_texts(e: dict[str, Any], at: str) -> None:
    """Every text of a pushed event is one the league can keep and show (the first that is not is
    refused, naming it); the names a game starts with must also show a letter or digit."""
    for where, text in texts(e, at):
        why = stored_text_problem(text)
        if why is not None:
            raise KioskRefused(f"{where}: {why}")
    if e.get("kind") == GAME_STARTED:
        for field in ("teams", "players"):
            names = e.get("payload", {}).get(field)
            for seat, name in names.items() if isinstance(names, dict) else ():
                if isinstance(name, str) and looks_blank(name):
                    raise KioskRefused(f"{at}.payload.{field}.{seat}: the name shows no letter or digit")


def _read_sides(sides: Any, where: str) -> dict[str, int] | None:
    if sides is None:
        return None
    if not isinstance(sides, dict) or set(sides) != {"NS", "EW"} or not all(_whole(t) for t in sides.values()):
        raise KioskRefused(f'{where}.sides: {{"NS": team id, "EW": team id}}, not {sides!r}'[:200])
    return {"NS": sides["NS"], "EW": sides["EW"]}


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x < 2**31


def _loads(body: bytes | str) -> Any:
    try:
        return loads(body)
    except BadJSON as e:
        raise KioskRefused(f"the body: {e}", 400) from None
