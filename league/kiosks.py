"""Kiosks in the league: enrolment by a one-time code, keys, pushes of their games' events, tonight's
meetings. The library the kiosk API (league/api.py) and ``clabber league`` call.

The server re-folds every pushed game with the kiosk's own pure fold; an event the fold refuses is
stored with why (quarantined): kept, shown to the organiser, never applied, never dropped."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from kiosk.events import GameEvent
from kiosk.game_state import ActionRefused, GameState
from league import kiosk_store as ks
from league.season import LeagueRefused, read_settings
from league.store import Store

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: read off a screen and typed
CODE_LENGTH = 10  # 50 bits, valid minutes and once: guessing one is hopeless
CODE_MINUTES = 10
MOST_GAMES = 50  # in one push
MOST_EVENTS = 1000  # of one game in one push
EVENT_FIELDS = ("seq", "at", "kind", "payload", "action_id", "source", "authorised_by", "reason")
STALE = "this code is unknown, used or expired: ask the organiser for a new one"


class KioskRefused(LeagueRefused):
    """A kiosk's request refused, with the HTTP status that says so; nothing was written."""

    def __init__(self, why: str, status: int = 422) -> None:
        super().__init__(why)
        self.status = status


def digest(secret: str) -> str:
    """What the server keeps of a code or key: its SHA-256 (both are long random strings)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def normal_code(text: str) -> str:
    """A code as typed: any case, spaces and dashes ignored."""
    return "".join(c for c in str(text).upper() if c not in " -")


def _stamp(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).isoformat(timespec="milliseconds")


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Kiosks:
    """Enrolment, keys, pushes and tonight's meetings over the league's store."""

    def __init__(self, store: Store, clock: Callable[[], dt.datetime] = _utcnow) -> None:
        self.store = store
        self.clock = clock

    # ---- the organiser's side ---------------------------------------------------------------------

    def make_code(self, venue: int, table: int, minutes: int = CODE_MINUTES) -> str:
        """A one-time code for the kiosk at a venue's table, valid ``minutes``."""
        if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= 24 * 60:
            raise LeagueRefused("enrolment code: valid for 1 to 1440 minutes")
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        now = self.clock()
        with self.store.write() as w:
            v = w.venue(venue)
            if v is None:
                raise LeagueRefused(f"there is no venue {venue}")
            if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= v["tables"]:
                raise LeagueRefused(f"venue {v['name']!r} has tables 1 to {v['tables']}, not {table}")
            ks.add_code(w.conn, digest(code), venue, table, _stamp(now), _stamp(now + dt.timedelta(minutes=minutes)))
        return f"{code[:5]}-{code[5:]}"

    def revoke(self, kiosk: int) -> None:
        with self.store.write() as w:
            if ks.kiosk(w.conn, kiosk) is None:
                raise LeagueRefused(f"there is no kiosk {kiosk}")
            if not ks.revoke(w.conn, kiosk, _stamp(self.clock())):
                raise LeagueRefused(f"kiosk {kiosk}'s key is already revoked")

    def enrolled(self) -> list[dict[str, Any]]:
        """Every kiosk ever enrolled (never its key), revoked ones with when."""
        with self.store.read() as r:
            return ks.all_kiosks(r.conn)

    def quarantine(self) -> list[dict[str, Any]]:
        """Every event set aside, with the kiosk, game, seq, the event and why."""
        with self.store.read() as r:
            return [{**q, "event": json.loads(q["event"])} for q in ks.quarantine(r.conn)]

    # ---- the kiosk's side -------------------------------------------------------------------------

    def enrol(self, code: Any) -> dict[str, Any]:
        """Exchanges a code for a new key (shown once; the server keeps its hash), venue and table."""
        if not isinstance(code, str) or not code.strip():
            raise KioskRefused('enrol: send {"code": "..."}', 422)
        key = secrets.token_urlsafe(32)  # 256 random bits
        now = _stamp(self.clock())
        with self.store.write() as w:
            row = ks.take_code(w.conn, digest(normal_code(code)), now)
            if row is None:
                raise KioskRefused(STALE, 403)
            kiosk = ks.add_kiosk(w.conn, digest(key), row["venue_id"], row["table_number"], now)
            venue = w.venue(row["venue_id"])
        return {
            "kiosk": kiosk,
            "key": key,
            "venue": {"id": row["venue_id"], "name": venue["name"] if venue else None},
            "table": row["table_number"],
        }

    def kiosk_for_key(self, key: str | None) -> dict[str, Any]:
        """The kiosk a key belongs to; 401 for no key, an unknown one or a revoked one."""
        if not key:
            raise KioskRefused("send the kiosk's key as 'Authorization: Bearer <key>'", 401)
        with self.store.read() as r:
            k = ks.kiosk_by_hash(r.conn, digest(key))
        if k is None:
            raise KioskRefused("this kiosk key is unknown or revoked: enrol the kiosk again", 401)
        return k

    def tonight(self, kiosk: dict[str, Any], date: str | None = None) -> dict[str, Any]:
        """The meetings at the kiosk's venue on ``date`` (today) with teams, players and the rules."""
        night = date or dt.date.today().isoformat()
        try:
            night = dt.date.fromisoformat(night).isoformat()
        except ValueError:
            raise KioskRefused(f"date: {night!r} is not a date like 2026-01-06", 422) from None
        with self.store.read() as r:
            venue = r.venue(kiosk["venue_id"])
            out = []
            for m in ks.meetings_on(r.conn, kiosk["venue_id"], night):
                d = r.division(m["division_id"])
                season = r.season(d["season_id"]) if d else None
                settings = read_settings(json.loads(season["settings"])) if season else read_settings(None)
                teams = {}
                for side in ("a", "b"):
                    t = r.team(m[f"team_{side}"])
                    teams[side] = (
                        {
                            "id": t["id"],
                            "name": t["name"],
                            "players": json.loads(t["players"]),
                            "substitutes": json.loads(t["substitutes"]),
                        }
                        if t
                        else None
                    )
                out.append(
                    {
                        "meeting": m["id"],
                        "round": m["round"],
                        "table": m["table_number"],
                        "forfeited": m["forfeit_team"] is not None,
                        "teams": teams,
                        "games_per_meeting": settings.games_per_meeting,
                        "games_played": len(r.games(m["id"])),
                        "rules": asdict(settings.rules),  # the whole rules, as a game_started event keeps them
                    }
                )
        return {
            "date": night,
            "venue": {"id": kiosk["venue_id"], "name": venue["name"] if venue else None},
            "table": kiosk["table_number"],
            "meetings": out,
        }

    def push(self, kiosk: dict[str, Any], body: Any) -> dict[str, Any]:
        """Stores a batch of the kiosk's events, all of it or (refused) none of it."""
        batch = _read_batch(body)
        now = _stamp(self.clock())
        answers = []
        with self.store.write() as w:
            for game, meeting, events in batch:
                answers.append(self._push_game(w, kiosk, game, meeting, events, now))
        return {"games": answers}

    def _push_game(
        self, w: Any, kiosk: dict[str, Any], game: int, meeting: int | None, events: list[GameEvent], now: str
    ) -> dict[str, Any]:
        bound = ks.bound_game(w.conn, kiosk["id"], game)
        if bound is None:
            if meeting is None:
                raise KioskRefused(f"game {game}: its first push names the meeting it is played for", 422)
            m = w.meeting(meeting)
            # The same answer whether the meeting is elsewhere or does not exist: nothing to learn.
            if m is None or m["venue_id"] != kiosk["venue_id"]:
                raise KioskRefused(f"game {game}: meeting {meeting} is not at this kiosk's venue", 403)
            if m["team_b"] is None or m["forfeit_team"] is not None:
                raise KioskRefused(f"game {game}: meeting {meeting} has no games to play (a bye or a forfeit)", 409)
            ks.bind_game(w.conn, kiosk["id"], game, meeting, now)
            meeting_id = meeting
        else:
            meeting_id = bound["meeting_id"]
            if meeting is not None and meeting != meeting_id:
                raise KioskRefused(f"game {game} is played for meeting {meeting_id}, not {meeting}", 409)
        stored = ks.game_events(w.conn, kiosk["id"], game)
        applied = [_event(game, json.loads(s["event"])) for s in stored if s["quarantined"] is None]
        expected = len(stored) + 1
        fresh, duplicates, quarantined, resend = 0, 0, [], None
        for e in sorted(events, key=lambda x: x.seq):
            if e.seq < expected:
                duplicates += 1  # delivered before: stored once
                continue
            if e.seq > expected:
                resend = expected  # a gap: nothing after it is stored until the missing ones come
                break
            why = _refusal([*applied, e])
            if why is None:
                applied.append(e)
            else:
                quarantined.append({"seq": e.seq, "why": why})
            ks.add_event(w.conn, kiosk["id"], game, e.seq, json.dumps(asdict(e), sort_keys=True), now, why)
            fresh += 1
            expected += 1
        return {
            "game": game,
            "meeting": meeting_id,
            "acked": expected - 1,
            "stored": fresh,
            "duplicates": duplicates,
            "quarantined": quarantined,
            "resend_from": resend,
        }


def _refusal(log: list[GameEvent]) -> str | None:
    """Why the kiosk's fold refuses the game's log with its newest event, or None when it folds."""
    try:
        GameState.from_events(log)
    except ActionRefused as e:
        return str(getattr(e, "why", None) or e)
    return None


def _event(game: int, d: dict[str, Any]) -> GameEvent:
    fields: dict[str, Any] = {k: d[k] for k in EVENT_FIELDS if k in d and d[k] is not None}
    return GameEvent(game=game, **fields)


def _read_batch(body: Any) -> list[tuple[int, int | None, list[GameEvent]]]:
    """The batch checked in full before anything is written: where and why for the first fault."""
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
            if not isinstance(e.get("payload", {}), dict):
                raise KioskRefused(f"{at}.payload: an object is needed")
            for name in ("action_id", "source", "authorised_by", "reason"):
                if e.get(name) is not None and not isinstance(e[name], str):
                    raise KioskRefused(f"{at}.{name}: a text or null")
            unknown = sorted(set(e) - set(EVENT_FIELDS) - {"game"})
            if unknown:
                raise KioskRefused(f"{at}: unknown field {unknown[0]!r}")
            checked.append(_event(game, {"payload": {}, **e}))
        if len({e.seq for e in checked}) != len(checked):
            raise KioskRefused(f"{where}.events: a seq twice")
        out.append((game, meeting, checked))
    return out


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x < 2**31
