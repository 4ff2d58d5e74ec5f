"""Kiosks in the league: enrolment by a one-time code, keys, pushes of their games' events, tonight's
meetings. The library the kiosk API (league/api/app.py) and ``clabber league`` call.

The server re-folds every pushed game with the kiosk's own pure fold; an event the fold refuses is
stored with why (quarantined): kept, shown to the organiser, never applied, never dropped."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import math
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

from sqlalchemy import exc

from engine.rules import Rules
from engine.text import looks_blank, stored_text_problem
from league.organiser.actions import advance_playoffs
from league.organiser.night import clock_at, night_at
from league.organiser.season import LeagueRefused, read_settings
from league.organiser.standings import TIE, A, B
from league.results.stats import write_figures
from league.store import events as ev
from league.store import kiosks as ks
from league.store import stats as fs
from league.store import tables as tb
from league.store.core import Reader, Store, StoreTrouble, Writer, stamp
from shared.events import GAME_STARTED, UNDONE, GameEvent
from shared.game_state import ABANDONED, FOLD_ERRORS, OPEN, ActionRefused, GameState
from shared.jsontext import BadJSON, is_timestamp, loads, texts

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: read off a screen and typed
CODE_LENGTH = 10  # 50 bits, valid minutes and once: guessing one is hopeless
CODE_MINUTES = 10
# Wrong enrolment codes heard in a minute before the next attempt waits, counted in the database by
# every server process alike. A code is 50 random bits, valid minutes and once, so guessing is
# hopeless anyway; the allowance keeps a guesser from costing a lookup per try.
WRONG_CODES = 10
WRONG_CODES_WINDOW = 60.0  # seconds
MOST_GAMES = 50  # in one push
# How far a kiosk's clock may run ahead of the league's: a Pi sets its clock from the network, and one
# that has not yet may be minutes off. A game starting later than this is held, never counted.
START_AHEAD = dt.timedelta(minutes=15)
MOST_EVENTS = 1000  # of one game in one push
log = logging.getLogger("league.kiosks")
Kiosk = dict[str, Any] | str | None  # an enrolled kiosk's row, or the key a request came with
Where = tuple[int, int]  # a kiosk game: the kiosk's id and its own game number
STALE = "this code is unknown, used or expired: ask the organiser for a new one"


class KioskRefused(LeagueRefused):
    """A kiosk's request refused, with the HTTP status that says so; nothing was written."""

    def __init__(self, why: str, status: int = 422) -> None:
        super().__init__(why)
        self.status = status


class Busy(KioskRefused):
    """Refused for now: too many wrong attempts; ``wait`` seconds until the next is heard."""

    def __init__(self, why: str, wait: int) -> None:
        super().__init__(why, 429)
        self.wait = wait


def digest(secret: str) -> str:
    """What the server keeps of a code or key: its SHA-256 (both are long random strings)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def normal_code(text: str) -> str:
    """A code as typed: any case, spaces and dashes ignored."""
    return "".join(c for c in str(text).upper() if c not in " -")


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
            return _kiosk_for_key(r, key)

    def tonight(self, kiosk: Kiosk, date: str | None = None) -> dict[str, Any]:
        """The meetings at the kiosk's venue on ``date`` (today) with teams, players and the rules.

        ``kiosk``: the kiosk, or its key (checked in the same transaction: 401 when it is not good)."""
        with self.store.read() as r:
            kiosk = _kiosk_for_key(r, kiosk) if not isinstance(kiosk, dict) else kiosk
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

    def push(self, kiosk: Kiosk, body: Any) -> dict[str, Any]:
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

    def _push(self, kiosk: Kiosk, body: Any) -> dict[str, Any]:
        now = stamp(self.clock())
        folded: list[tuple[Where, Folding]] = []
        with self.store.write(league_lock=False) as w:
            k = kiosk if isinstance(kiosk, dict) else _kiosk_for_key(w, kiosk)
            batch = _read_batch(_loads(body) if isinstance(body, (bytes, str)) else body)
            # Each game's binding locked in one order, so two pushes of the same kiosk take turns.
            bound, last = ks.games_locked(w.conn, k["id"], sorted(p.game for p in batch))
            games = [self._push_game(w, k, p, bound.get(p.game), last.get(p.game, 0), now, folded) for p in batch]
            results = w.appended > 0
        self.folds.keep(folded)  # only once the push is stored
        if results:
            self._tell({None})  # a result changes the standings every venue's board shows
        elif any(g["stored"] for g in games):
            self._tell({k["venue_id"]})
        return {"games": games}

    def _write_result(self, w: Writer, kiosk: dict[str, Any], bound: dict[str, Any], state: GameState | None) -> None:
        bound["league_game"], new = self._record_result(w, kiosk, bound, state)
        if bound["league_game"] is not None:
            w.lock_league()  # the teams' sums are shared with every other game of theirs
            # A game written just now is new to its teams' sums: added to them, its result as written.
            write_figures(w.conn, bound["league_game"], bound["meeting_id"], bound["ns_team"], state, new=new)

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
            kiosk = _kiosk_for_key(r, kiosk) if not isinstance(kiosk, dict) else kiosk
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

    def _push_game(
        self,
        w: Writer,
        kiosk: dict[str, Any],
        pushed: Pushed,
        bound: dict[str, Any] | None,
        last: int,
        now: str,
        folded: list[tuple[Where, Folding]],
    ) -> dict[str, Any]:
        """One game's part of a push: its new events stored (each folded, or set aside with why), and
        its result written when the game has ended (or, written before, changed by a correction)."""
        game, where = pushed.game, (kiosk["id"], pushed.game)
        if bound is None:
            bound = self._bind(w, kiosk, pushed, now)
        elif pushed.meeting is not None and pushed.meeting != bound["meeting_id"]:
            raise KioskRefused(f"game {game} is played for meeting {bound['meeting_id']}, not {pushed.meeting}", 409)
        elif pushed.sides is not None and bound["ns_team"] is not None and pushed.sides["NS"] != bound["ns_team"]:
            raise KioskRefused(f"game {game}: team {bound['ns_team']} sits NS, as its first push said", 409)
        events = sorted(pushed.events, key=lambda x: x.seq)
        again = [e.seq for e in events if e.seq <= last]
        held = ks.events_at(w.conn, kiosk["id"], game, again) if again else {}
        expected = last + 1
        rows: list[dict[str, Any]] = []
        duplicates, quarantined, diverged, resend = 0, [], [], None
        folding: Folding | None = None
        for e in events:
            text = _text(e)
            if e.seq < expected:
                if text == held.get(e.seq):
                    duplicates += 1  # delivered before: stored once
                else:
                    # Not what the league holds at this seq (a kiosk restored from an older backup):
                    # kept aside for the organiser; neither version overwrites the other.
                    ks.add_divergence(w.conn, kiosk["id"], game, e.seq, text, digest(text), now)
                    diverged.append(e.seq)
                continue
            if diverged:
                break  # another history of this game number: nothing of it is added to the one held
            if e.seq > expected:
                resend = expected  # a gap: nothing after it is stored until the missing ones come
                break
            if folding is None:
                folding = self.folds.at(w.conn, kiosk["id"], game, last)
            why = folding.add(e)
            folding.last = e.seq
            if why is not None:
                quarantined.append({"seq": e.seq, "why": why})
            rows.append({"kiosk_id": kiosk["id"], "game": game, "seq": e.seq, "event": text, "quarantined": why})
            expected += 1
        ks.add_events(w.conn, rows, now)
        if folding is not None:
            folded.append((where, folding))
            ended = folding.state is not None and folding.state.status != OPEN
            if ended or bound["league_game"] is not None:
                self._write_result(w, kiosk, bound, folding.state)
        return {
            "game": game,
            "meeting": bound["meeting_id"],
            "acked": expected - 1,
            "stored": len(rows),
            "duplicates": duplicates,
            "quarantined": quarantined,
            "diverged": diverged,
            "resend_from": resend,
        }

    def _bind(self, w: Writer, kiosk: dict[str, Any], pushed: Pushed, now: str) -> dict[str, Any]:
        """A game's first push: the meeting it is played for, at this kiosk's venue, and who sits NS."""
        game, meeting = pushed.game, pushed.meeting
        if meeting is None:
            raise KioskRefused(f"game {game}: its first push names the meeting it is played for", 422)
        m = w.meeting_with_settings(meeting)
        # The same answer whether the meeting is elsewhere or does not exist: nothing to learn.
        if m is None or m["venue_id"] != kiosk["venue_id"]:
            raise KioskRefused(f"game {game}: meeting {meeting} is not at this kiosk's venue", 403)
        if m["team_b"] is None or m["forfeit_team"] is not None:
            raise KioskRefused(f"game {game}: meeting {meeting} has no games to play (a bye or a forfeit)", 409)
        row = {
            "kiosk_id": kiosk["id"],
            "game": game,
            "meeting_id": meeting,
            "bound_at": now,
            "ns_team": _ns_team(m, pushed),
        }
        ks.bind_game(w.conn, row)  # before its events: an event names its game's binding
        return {**row, "league_game": None, "note": None}

    def _held(self, w: Writer, kiosk: dict[str, Any], m: dict[str, Any], state: GameState) -> str | None:
        """Why a kiosk's finished game is not counted by itself (None: it is): it counts only for a
        meeting at that kiosk's table, begun on that meeting's league night and not later than the
        league's clock says it is now. A stolen key (or a kiosk's wrong clock, or the wrong meeting
        chosen) gives a game held for the organiser's ruling, never a result in the standings."""
        table = m["table_number"]
        if table is not None and table != kiosk["table_number"]:
            return (
                f"meeting {m['id']} is played at table {table}, and this kiosk sits at table "
                f"{kiosk['table_number']}: not counted; rule on it"
            )
        started = _started(state)
        night = m["date"] or m["round_date"]
        now = self.clock()
        if started is None:
            return f"the game's start time {state.started_at!r} is not a time: not counted; rule on it"
        if started > now + START_AHEAD:
            return f"the game started at {started.isoformat()}, later than the league's clock: not counted; rule on it"
        played = self.night_at(w, kiosk["venue_id"], started).isoformat()
        if played != night:
            return f"played on the night of {played}; meeting {m['id']} is on {night}: not counted; rule on it"
        return None

    def _record_result(
        self, w: Writer, kiosk: dict[str, Any], bound: dict[str, Any], state: GameState | None
    ) -> tuple[int | None, fs.NewGame | None]:
        """A kiosk game that has ended becomes (or updates) its meeting's game in the standings: that
        game's id (None while the game goes on, or when it does not count) and, when it was written
        just now, its outcome and its meeting's teams."""
        if state is None or (state.status == OPEN and bound["league_game"] is None):
            kept: int | None = bound["league_game"]
            return kept, None
        w.lock_league()  # before reading the meeting's games: the count and number must hold when written
        m = w.meeting_with_settings(bound["meeting_id"])
        assert m is not None  # bound games keep their meeting
        settings = read_settings(json.loads(m["season_settings"]))
        points_a, points_b, outcome, note = _figures(state, settings.rules, bound, m)
        figures = {"points_a": points_a, "points_b": points_b, "outcome": outcome, "note": note}
        if bound["league_game"] is not None:
            g = w.game(bound["league_game"])
            assert g is not None
            if g["ruled_reason"] is None and any(g[k] != v for k, v in figures.items()):
                w.append(ev.GAME_PLAYED, {**_who(g, kiosk, bound), **figures})
                _advance(w, kiosk, bound, m, g["id"])
            return int(g["id"]), None
        held = self._held(w, kiosk, m, state) if outcome is not None else None
        if held is not None:  # kept for the organiser, with why: counted only by a ruling
            ks.set_result(w.conn, kiosk["id"], bound["game"], None, held)
            return None, None
        played = w.games(m["id"])
        full = _no_room(m["id"], played, outcome, settings.games_per_meeting)
        if full is not None:
            ks.set_result(w.conn, kiosk["id"], bound["game"], None, full)
            return None, None
        g = {"id": w.next_id(tb.games), "meeting_id": m["id"], "number": _next_number(played)}
        w.append(ev.GAME_PLAYED, {**_who(g, kiosk, bound), **figures})
        ks.set_result(w.conn, kiosk["id"], bound["game"], g["id"], note)
        _advance(w, kiosk, bound, m, g["id"])
        return int(g["id"]), fs.NewGame(outcome, m["team_a"], m["team_b"])


def _started(state: GameState) -> dt.datetime | None:
    try:
        at = dt.datetime.fromisoformat(state.started_at)
    except (TypeError, ValueError):
        return None
    return at if at.tzinfo is not None else None


def _advance(w: Writer, kiosk: dict[str, Any], bound: dict[str, Any], m: dict[str, Any], league_game: int) -> None:
    """A playoff match this game decides sends its winner on. When the bracket has moved past it (the
    next match already played), the table's result is still kept, with a note for the organiser."""
    if m["stage"] != tb.PLAYOFFS:
        return  # a round-robin meeting: no bracket to look up
    try:
        advance_playoffs(w, m["id"])
    except LeagueRefused as e:
        ks.set_result(w.conn, kiosk["id"], bound["game"], league_game, f"the bracket was not changed: {e}")


def _kiosk_for_key(r: Reader, key: Kiosk) -> dict[str, Any]:
    k = ks.kiosk_by_hash(r.conn, digest(key)) if isinstance(key, str) and key else None
    if k is None:
        _kiosk_for_key_refused(key)
    assert k is not None
    return k


def _kiosk_for_key_refused(key: Kiosk) -> None:
    if not key or not isinstance(key, str):
        raise KioskRefused("send the kiosk's key as 'Authorization: Bearer <key>'", 401)
    raise KioskRefused("this kiosk key is unknown or revoked: enrol the kiosk again", 401)


def _loads(body: bytes | str) -> Any:
    try:
        return loads(body)
    except BadJSON as e:
        raise KioskRefused(f"the body: {e}", 400) from None


@dataclass(frozen=True)
class Pushed:
    """One game's part of a push, checked."""

    game: int
    meeting: int | None
    sides: dict[str, int] | None  # the meeting's team at NS and at EW, when the kiosk says
    events: list[GameEvent]


def _who(g: dict[str, Any], kiosk: dict[str, Any], bound: dict[str, Any]) -> dict[str, Any]:
    return {
        "game": g["id"],
        "meeting": g["meeting_id"],
        "number": g["number"],
        "kiosk": kiosk["id"],
        "kiosk_game": bound["game"],
    }


def _ns_team(m: dict[str, Any], pushed: Pushed) -> int | None:
    """The meeting's team at NS: as the kiosk says, else by the names the game was started with;
    None when neither tells (the game is kept; its result then waits for the organiser's ruling)."""
    pair = (m["team_a"], m["team_b"])
    if pushed.sides is not None:
        if {pushed.sides["NS"], pushed.sides["EW"]} != set(pair):
            raise KioskRefused(f"game {pushed.game}: sides must be meeting {m['id']}'s teams {pair[0]} and {pair[1]}")
        return pushed.sides["NS"]
    names = {" ".join(str(m[f"team_{side}_name"] or "").split()).casefold(): m[f"team_{side}"] for side in "ab"}
    first = next((e for e in pushed.events if e.seq == 1 and e.kind == GAME_STARTED), None)
    teams = first.payload.get("teams") if first is not None else None
    if isinstance(teams, dict) and isinstance(teams.get("NS"), str) and isinstance(teams.get("EW"), str):
        ns, ew = (names.get(" ".join(teams[k].split()).casefold()) for k in ("NS", "EW"))
        if ns is not None and ew is not None and ns != ew:
            return int(ns)
    return None


def _figures(
    state: GameState, season_rules: Rules, bound: dict[str, Any], m: dict[str, Any]
) -> tuple[int, int, str | None, str | None]:
    """A kiosk game's result in the meeting's terms: points of team a and b, the outcome, and the note."""
    ns, ew = state.sheet.totals
    if bound["ns_team"] is None:  # kept, never guessed: the organiser rules with the sheet in hand
        return 0, 0, None, f"the kiosk did not say which team sat NS (the table's score: NS {ns}, EW {ew}): rule on it"
    ns_is_a = bound["ns_team"] == m["team_a"]
    outcome, note = _outcome(state, season_rules, ns_is_a)
    return (ns, ew, outcome, note) if ns_is_a else (ew, ns, outcome, note)


def _no_room(meeting: int, played: list[dict[str, Any]], outcome: str | None, games_per_meeting: int) -> str | None:
    """Why a game that counts finds no place left at its meeting (None: it has one); a game that counts
    for nobody always has."""
    if outcome is None or sum(g["outcome"] is not None for g in played) < games_per_meeting:
        return None
    return f"meeting {meeting} already has its {games_per_meeting} game(s): this one is not counted"


def _next_number(played: list[dict[str, Any]]) -> int:
    """The number of a meeting's next game."""
    return max((g["number"] for g in played), default=0) + 1


def _outcome(state: GameState, season_rules: Rules, ns_is_a: bool) -> tuple[str | None, str | None]:
    """How a kiosk game counts (a, b, tie, or None for nobody) and, when for nobody, why."""
    if state.status == OPEN:
        return None, "in play again after a correction at the table"
    if state.rules != season_rules:
        theirs, ours = asdict(state.rules), asdict(season_rules)
        differ = ", ".join(f"{k} {theirs[k]}, not {ours[k]}" for k in ours if theirs[k] != ours[k])
        return None, f"played with other rules than the season's ({differ}): rule on it"
    if state.status == ABANDONED:
        return None, f"abandoned at the table ({state.end_reason or 'no reason given'})"
    if not state.sheet.over:
        return None, f"ended at the table before the target ({state.end_reason or 'no reason given'}): rule on it"
    winner = state.winner
    if winner == "tie":
        return TIE, None
    return (A if (winner == "NS") == ns_is_a else B), None


@dataclass
class Folding:
    """A game's applied events and the state they fold to (None before it has begun), as of the
    league's ``last`` seq of the game (set-aside events count in the seq, not in the log)."""

    log: list[GameEvent]
    state: GameState | None
    last: int = 0

    @classmethod
    def of(cls, log: list[GameEvent], last: int) -> Folding:
        try:
            return cls(log, GameState.from_events(log) if log else None, last)
        except ActionRefused:
            return cls(log, None, last)  # each was accepted when it came; kept as not begun if not now

    def copy(self) -> Folding:
        return Folding(list(self.log), self.state, self.last)

    def add(self, e: GameEvent) -> str | None:
        """Folds one more event and returns None, or leaves everything as it was and says why not.

        One step of the fold, not the whole game again, so a push costs its own events however
        long the game; an undo (or a game not begun) folds the log whole, as the kiosk does."""
        try:
            if self.state is None or e.kind == UNDONE:
                new = GameState.from_events([*self.log, e])
            else:
                new = self.state.apply(e)
        except FOLD_ERRORS as err:
            try:
                GameState.from_events([*self.log, e])  # the fold's own words for why
            except ActionRefused as refused:
                return str(getattr(refused, "why", None) or refused)
            return f"{type(err).__name__}: {err}"
        self.log.append(e)
        self.state = new
        return None


# The games kept folded: those in play at the biggest league night (200 tables, a game each) with
# room to spare. Each is a few thousand objects that the interpreter's collector walks in each full
# collection, so keeping ten times as many as are in play made every such pause ten times longer.
GAMES_FOLDED = 256


class FoldCache:
    """Recently pushed games, folded as far as the league holds them, so that the next push of a game
    folds only its own events instead of reading and folding the whole game again. A game is taken
    from here only when it ends at the seq the database holds (another server process may have
    added to it); otherwise it is folded from the database."""

    def __init__(self, most: int = GAMES_FOLDED) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[int, int], Folding] = OrderedDict()
        self._lock = threading.Lock()  # pushes are answered in worker threads

    def at(self, conn: Any, kiosk: int, game: int, last: int) -> Folding:
        """The game folded up to ``last``, a copy of its own for the push to add to."""
        with self._lock:
            kept = self._kept.get((kiosk, game))
        if kept is not None and kept.last == last:
            return kept.copy()
        if last == 0:
            return Folding([], None, 0)  # nothing held of it yet: nothing to read
        return Folding.of(ks.applied_events(conn, kiosk, game), last)

    def keep(self, folded: list[tuple[tuple[int, int], Folding]]) -> None:
        """Keeps a stored push's games (the least recently pushed go when there are too many)."""
        with self._lock:
            for key, folding in folded:
                self._kept[key] = folding
                self._kept.move_to_end(key)
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)


_EVENT_FIELDS = tuple(f.name for f in fields(GameEvent))


def _text(e: GameEvent) -> str:
    """An event as the league keeps it, and compares a re-delivery with: the text ``asdict`` gives,
    made without its deep copy (a fifth of the time)."""
    return json.dumps({name: getattr(e, name) for name in _EVENT_FIELDS}, sort_keys=True)


def _read_batch(body: Any) -> list[Pushed]:
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
            if not is_timestamp(e["at"]):
                raise KioskRefused(f"{at}.at: a time like 2026-01-06T20:15:00.000+00:00 is needed")
            if not isinstance(e.get("payload", {}), dict):
                raise KioskRefused(f"{at}.payload: an object is needed")
            for name in ("action_id", "source", "authorised_by", "reason"):
                if e.get(name) is not None and not isinstance(e[name], str):
                    raise KioskRefused(f"{at}.{name}: a text or null")
            unknown = sorted(set(e) - set(ks.EVENT_FIELDS) - {"game"})
            if unknown:
                raise KioskRefused(f"{at}: unknown field {unknown[0]!r}")
            _check_texts(e, at)
            checked.append(ks.event_of(game, {"payload": {}, **e}))
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
