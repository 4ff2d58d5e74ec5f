"""Kiosks in the league: enrolment by a one-time code, keys, pushes of their games' events, tonight's
meetings, the organiser's rulings sent back. The library the kiosk API (league/api/app.py), the
organiser's pages and ``clabber league`` call.

The server re-folds every pushed game with the kiosk's own pure fold; an event the fold refuses is
stored with why (quarantined): kept, shown to the organiser, never applied, never dropped."""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import secrets
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from sqlalchemy import exc

from league.ingest.batch import read_batch
from league.ingest.folding import FoldCache, Folding
from league.ingest.keys import Kiosk, digest, kiosk_for_key, normal_code
from league.ingest.push import Where, push_game
from league.ingest.refused import Busy, KioskRefused
from league.organiser.night import clock_at, night_at
from league.organiser.season import LeagueRefused, read_settings
from league.organiser.standings import TIE, A, B
from league.store import kiosks as ks
from league.store.core import Reader, Store, StoreTrouble, stamp

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: read off a screen and typed
CODE_LENGTH = 10  # 50 bits, valid minutes and once: guessing one is hopeless
CODE_MINUTES = 10
# Wrong enrolment codes heard in a minute before the next attempt waits, counted in the database by
# every server process alike. A code is 50 random bits, valid minutes and once, so guessing is
# hopeless anyway; the allowance keeps a guesser from costing a lookup per try.
WRONG_CODES = 10
WRONG_CODES_WINDOW = 60.0  # seconds
log = logging.getLogger("league.kiosks")
STALE = "this code is unknown, used or expired: ask the organiser for a new one"
__all__ = ["CODE_MINUTES", "Busy", "Kiosk", "KioskRefused", "Kiosks"]


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Kiosks:
    """Enrolment, keys, pushes and tonight's meetings over the league's store."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], dt.datetime] = _utcnow,
        published: Callable[[int | None], None] | None = None,
    ) -> None:
        """``published(venue)`` is called after a push that stored events has committed (the venue
        boards follow it), with None when the push changed a result (every venue's standings); from
        the pushing thread, so it must only hand the news on."""
        self.store = store
        self.clock = clock
        self.folds = FoldCache()
        self.published = published

    # ---- the organiser's side ---------------------------------------------------------------------

    def live_at(self, venue: int, table: int) -> list[int]:
        """The kiosks whose keys work at a venue's table: an enrolment there revokes them."""
        with self.store.read() as r:
            return ks.live_at(r.conn, venue, table)

    def make_code(self, venue: int, table: int, minutes: int = CODE_MINUTES) -> str:
        """A one-time code for the kiosk at a venue's table, valid ``minutes``; a kiosk enrolled with
        it replaces the one live at that table (whose key is revoked then)."""
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
            ks.add_code(w.conn, digest(code), venue, table, stamp(now), stamp(now + dt.timedelta(minutes=minutes)))
        return f"{code[:5]}-{code[5:]}"

    def revoke(self, kiosk: int) -> None:
        with self.store.write() as w:
            if ks.kiosk(w.conn, kiosk) is None:
                raise LeagueRefused(f"there is no kiosk {kiosk}")
            if not ks.revoke(w.conn, kiosk, stamp(self.clock())):
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
        if not code.isascii():
            raise KioskRefused(STALE, 403)  # a code is letters and digits: this one was never made
        key = secrets.token_urlsafe(32)  # 256 random bits
        when = self.clock()
        now, seconds = stamp(when), when.timestamp()
        with self.store.write() as w:  # the league's lock: the count and the attempt one at a time
            wrong = ks.wrong_codes_since(w.conn, seconds - WRONG_CODES_WINDOW)
            if len(wrong) >= WRONG_CODES:
                wait = max(1, math.ceil(wrong[0] + WRONG_CODES_WINDOW - seconds))
                raise Busy(f"too many wrong codes: try again in {wait} s", wait)
            row = ks.take_code(w.conn, digest(normal_code(code)), now)
            if row is None:
                ks.add_wrong_code(w.conn, seconds)  # kept: the refusal is said once this commits
            else:
                # One live kiosk a table: the one this code replaces loses its key now.
                replaced = ks.live_at(w.conn, row["venue_id"], row["table_number"])
                for old in replaced:
                    ks.revoke(w.conn, old, now)
                kiosk = ks.add_kiosk(w.conn, digest(key), row["venue_id"], row["table_number"], now)
                venue = w.venue(row["venue_id"])
                if replaced:
                    log.warning(
                        "kiosk %d enrolled at table %d of venue %d; revoked %s",
                        kiosk,
                        row["table_number"],
                        row["venue_id"],
                        replaced,
                    )
        if row is None:
            raise KioskRefused(STALE, 403)
        return {
            "kiosk": kiosk,
            "key": key,
            "venue": {"id": row["venue_id"], "name": venue["name"] if venue else None},
            "table": row["table_number"],
            "replaced": replaced,  # the kiosks at this table whose keys this enrolment revoked
        }

    def night_at(self, r: Reader, venue: int, moment: dt.datetime | None = None) -> dt.date:
        """The league night at a venue now (or at ``moment``), by its league's clock."""
        return night_at(r, venue, moment or self.clock())

    def kiosk_for_key(self, key: str | None) -> dict[str, Any]:
        """The kiosk a key belongs to; 401 for no key, an unknown one or a revoked one."""
        with self.store.read() as r:
            return kiosk_for_key(r, key)

    def tonight(self, kiosk: Kiosk, date: str | None = None) -> dict[str, Any]:
        """The meetings at the kiosk's venue on ``date`` (today) with teams, players and the rules.

        ``kiosk``: the kiosk, or its key (checked in the same transaction: 401 when it is not good)."""
        with self.store.read() as r:
            kiosk = kiosk_for_key(r, kiosk)
            zone, ends = clock_at(r, kiosk["venue_id"])
            night = date or self.night_at(r, kiosk["venue_id"]).isoformat()
            try:
                night = dt.date.fromisoformat(night).isoformat()
            except ValueError:
                raise KioskRefused(f"date: {night!r} is not a date like 2026-01-06", 422) from None
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
                        # Games that count: one abandoned (or otherwise for nobody) leaves its place to another.
                        "games_played": sum(g["outcome"] is not None for g in r.games(m["id"])),
                        "rules": asdict(settings.rules),  # the whole rules, as a game_started event keeps them
                    }
                )
        return {
            "date": night,
            "time_zone": zone,  # the league's clock: the kiosk tells whether this is still tonight by it
            "night_ends": ends,
            "venue": {"id": kiosk["venue_id"], "name": venue["name"] if venue else None},
            "table": kiosk["table_number"],
            "meetings": out,
        }

    def push(self, kiosk: Kiosk, body: object) -> dict[str, Any]:
        """Stores a batch of the kiosk's events and the results of the games they end, in one
        transaction: all of it, or (refused) none of it.

        ``kiosk``: the kiosk, or its key, checked in the push's own transaction (401 when the key is
        not good, before the body is looked at). ``body``: the batch, or its JSON text."""
        try:
            return self._push(kiosk, body)
        except exc.IntegrityError:
            # Another server process bound the same new game a moment before: its binding holds now.
            try:
                return self._push(kiosk, body)
            except exc.IntegrityError:
                raise StoreTrouble("push: the game was being bound by another push: send it again") from None

    def _push(self, kiosk: Kiosk, body: object) -> dict[str, Any]:
        when = self.clock()
        folded: list[tuple[Where, Folding]] = []
        with self.store.write(league_lock=False) as w:
            k = kiosk_for_key(w, kiosk)
            batch = read_batch(body)
            # Each game's binding locked in one order, so two pushes of the same kiosk take turns.
            bound, last = ks.games_locked(w.conn, k["id"], sorted(p.game for p in batch))
            held = {p.game: (bound.get(p.game), last.get(p.game, 0)) for p in batch}
            games = [push_game(w, k, p, held[p.game], when, self.folds, folded) for p in batch]
            results = w.appended > 0
        self.folds.keep(folded)  # only once the push is stored
        if results:
            self._tell({None})  # a result changes the standings every venue's board shows
        elif any(g["stored"] for g in games):
            self._tell({k["venue_id"]})
        return {"games": games}

    def _tell(self, boards: set[int | None]) -> None:
        """Committed: the boards may say it now (never before: a rolled-back push was never there)."""
        if self.published is None:
            return
        for venue in [None] if None in boards else sorted(v for v in boards if v is not None):
            try:
                self.published(venue)
            except Exception:  # the kiosk's answer never waits on, nor fails for, the boards
                log.exception("the boards were not told of a push")

    def rulings(self, kiosk: Kiosk) -> dict[str, Any]:
        """The organiser's rulings on this kiosk's games, by the kiosk's own game number, with the
        result in the table's terms (the winner as NS or EW, the points by seat) where its sides are
        known. ``kiosk``: the kiosk, or its key (checked in the same transaction)."""
        with self.store.read() as r:
            kiosk = kiosk_for_key(r, kiosk)
            rows = ks.rulings_of(r.conn, kiosk["id"])
        out = []
        for x in rows:
            ruling: dict[str, Any] = {
                "game": x["game"],
                "league_game": x["league_game"],
                "meeting": x["meeting"],
                "outcome": x["outcome"],
                "points": {"a": x["points_a"], "b": x["points_b"]},
                "reason": x["ruled_reason"],
                "winner": None,
                "score": None,
            }
            if x["ns_team"] is not None:
                ns_is_a = x["ns_team"] == x["team_a"]
                seat = {A: "NS" if ns_is_a else "EW", B: "EW" if ns_is_a else "NS", TIE: "tie"}
                ruling["winner"] = seat.get(x["outcome"])
                ns, ew = (x["points_a"], x["points_b"]) if ns_is_a else (x["points_b"], x["points_a"])
                ruling["score"] = {"NS": ns, "EW": ew}
            out.append(ruling)
        return {"rulings": out}

    def flags(self) -> dict[str, list[dict[str, Any]]]:
        """What needs the organiser besides the quarantine: kiosk games whose result is not in the
        standings by itself (and why), and re-deliveries that differ from what the league holds."""
        with self.store.read() as r:
            return {
                "games": ks.noted_games(r.conn),
                "divergences": [{**d, "event": json.loads(d["event"])} for d in ks.divergences(r.conn)],
            }
