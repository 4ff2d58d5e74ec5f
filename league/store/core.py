"""The league's storage: its log and the tables written from it, and the statements that read and
write them (the kiosks', the statistics' and the sign-in's own statements are in kiosks.py, stats.py
and signin.py beside it; every table is declared in tables.py).

SQLAlchemy Core over a SQLite file (the default) or PostgreSQL (by URL). The log (``events``) is the
truth: a trigger refuses any UPDATE or DELETE on it. The other tables are written from each event in
the same transaction and can be rebuilt from the log at any time. Alembic migrations make the schema.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import URL, Connection, Engine, make_url

from league.store import events as ev
from league.store import fleet as _fleet  # noqa: F401  (its tables are in the schema)
from league.store.events import LeagueEvent
from league.store.rows import (
    DivisionRow,
    GameRow,
    LeagueRow,
    MeetingRow,
    MeetingWithSettings,
    PlayoffMatchRow,
    PlayoffsRow,
    SeasonRow,
    TeamRow,
    VenueRow,
)
from league.store.stats import NewGame, sum_teams, write_result
from league.store.tables import (
    PLAYOFFS,
    ROUND_ROBIN,
    TOTALS,
    divisions,
    events,
    games,
    leagues,
    meetings,
    player_merges,
    playoff_matches,
    playoffs,
    rounds,
    seasons,
    team_totals,
    teams,
    venues,
)

ENV_URL = "CLABBER_LEAGUE_DB"
BUSY_MS = 5000
WORKER_THREADS = 16  # the league server's threads for requests (league/serve.py), and so its connections
IDLE_PING = 10.0  # seconds: a connection idle longer is tried before it is used

# Children before parents: the order to empty the derived tables in.
DERIVED = (
    player_merges,
    team_totals,
    playoff_matches,
    playoffs,
    games,
    meetings,
    rounds,
    teams,
    divisions,
    venues,
    seasons,
    leagues,
)


class StoreTrouble(RuntimeError):
    """The database cannot be used now (unreachable, locked, refused); nothing was changed."""


class StoreUnreachable(StoreTrouble):
    """The database cannot be reached or is locked: whatever is asked of it now, not what was asked."""


def default_path(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".local" / "share")
    return Path(base) / "clabber" / "league.db"


def resolve_url(db: str | None) -> URL:
    """The database to use: ``db`` (a URL or a file path), else $CLABBER_LEAGUE_DB, else the default file."""
    text = db or os.environ.get(ENV_URL) or str(default_path())
    if "://" not in text:
        return URL.create("sqlite+pysqlite", database=str(Path(text).expanduser()))
    try:
        url = make_url(text)
    except exc.ArgumentError:
        raise StoreTrouble(f"cannot read the database URL {text!r}") from None
    if url.drivername in ("postgresql", "postgres", "postgresql+psycopg"):
        return url.set(drivername="postgresql+psycopg")
    if url.drivername in ("sqlite", "sqlite+pysqlite"):
        return url.set(drivername="sqlite+pysqlite")
    raise StoreTrouble(f"the league keeps its data in SQLite or PostgreSQL, not {url.drivername!r}")


def _engine(url: URL) -> Engine:
    if url.get_backend_name() == "sqlite":
        if url.database:
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": BUSY_MS / 1000})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi: Any, _record: Any) -> None:
            dbapi.isolation_level = None  # the driver's own BEGIN would come too late: we send ours
            for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", f"busy_timeout={BUSY_MS}"):
                dbapi.execute(f"PRAGMA {pragma}")

        @sa.event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            # IMMEDIATE: a writer takes the write lock before it reads, so its checks still hold when it writes.
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("writing") else "BEGIN")

        return engine
    # As many connections as the server's worker threads, kept open (a connection made per push costs
    # more than the push), and a few more for a thread that reads while it writes.
    engine = sa.create_engine(
        url, pool_size=WORKER_THREADS, max_overflow=WORKER_THREADS // 2, connect_args={"connect_timeout": 10}
    )

    @sa.event.listens_for(engine, "checkin")
    def _rested(_dbapi: Any, record: Any) -> None:
        record.info["rested"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi: Any, record: Any, _proxy: Any) -> None:
        # A connection that sat idle may have been closed by the server (a restart, an idle timeout):
        # it is tried first, and replaced if dead. One in steady use is not: a ping on every checkout
        # cost a push a whole round trip of its five.
        if time.monotonic() - record.info.get("rested", 0.0) > IDLE_PING:
            try:
                dbapi.execute("SELECT 1")
                dbapi.rollback()  # the ping's own transaction, not the caller's
            except Exception as e:  # psycopg.OperationalError and kin: the connection is gone
                raise exc.DisconnectionError(str(e)) from e

    return engine


def stamp(t: dt.datetime) -> str:
    """A moment as the store keeps it: UTC, ISO 8601 to the millisecond (they sort as text)."""
    return t.astimezone(dt.UTC).isoformat(timespec="milliseconds")


def _now() -> str:
    return stamp(dt.datetime.now(dt.UTC))


def _row(r: sa.Row[Any] | None) -> dict[str, Any] | None:
    return dict(r._mapping) if r is not None else None


# A meeting with its round's number, date, division and stage.
_MEETING = sa.select(
    meetings, rounds.c.number.label("round"), rounds.c.division_id, rounds.c.date.label("round_date"), rounds.c.stage
).join(rounds, rounds.c.id == meetings.c.round_id)


# Built once: every push that binds a game or writes a result reads it.
_TEAM_A, _TEAM_B = teams.alias("team_a"), teams.alias("team_b")
_MEETING_WITH_SETTINGS = (
    _MEETING.add_columns(
        seasons.c.settings.label("season_settings"),
        _TEAM_A.c.name.label("team_a_name"),
        _TEAM_B.c.name.label("team_b_name"),
    )
    .join(divisions, divisions.c.id == rounds.c.division_id)
    .join(seasons, seasons.c.id == divisions.c.season_id)
    .outerjoin(_TEAM_A, _TEAM_A.c.id == meetings.c.team_a)
    .outerjoin(_TEAM_B, _TEAM_B.c.id == meetings.c.team_b)
    .where(meetings.c.id == sa.bindparam("id"))
)


@functools.cache
def _largest_id(table: sa.Table) -> sa.Select[Any]:
    """A table's largest id (0 when empty), the statement built once a table: built afresh, each left a
    cycle of objects for the collector of cyclic garbage to find (``./run bench league``)."""
    return sa.select(sa.func.coalesce(sa.func.max(table.c.id), 0).label("largest"))


class Reader:
    """Reads within one transaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def _one(self, table: sa.Table, id_: int) -> dict[str, Any] | None:
        return _row(self.conn.execute(sa.select(table).where(table.c.id == id_)).first())

    def _all(self, query: sa.Select[Any], params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The rows as dicts; ``params`` for a statement built once with bind parameters."""
        return [dict(r._mapping) for r in self.conn.execute(query, params)]

    def league(self, id_: int) -> LeagueRow | None:
        return cast("LeagueRow | None", self._one(leagues, id_))

    def league_named(self, name: str) -> LeagueRow | None:
        return cast(
            "LeagueRow | None", _row(self.conn.execute(sa.select(leagues).where(leagues.c.name == name)).first())
        )

    def leagues(self) -> list[dict[str, Any]]:
        return self._all(sa.select(leagues).order_by(leagues.c.id))

    def season(self, id_: int) -> SeasonRow | None:
        return cast("SeasonRow | None", self._one(seasons, id_))

    def seasons(self, league: int) -> list[dict[str, Any]]:
        return self._all(sa.select(seasons).where(seasons.c.league_id == league).order_by(seasons.c.id))

    def division(self, id_: int) -> DivisionRow | None:
        return cast("DivisionRow | None", self._one(divisions, id_))

    def divisions(self, season: int) -> list[dict[str, Any]]:
        return self._all(sa.select(divisions).where(divisions.c.season_id == season).order_by(divisions.c.id))

    def team(self, id_: int) -> TeamRow | None:
        return cast("TeamRow | None", self._one(teams, id_))

    def teams(self, division: int) -> list[dict[str, Any]]:
        return self._all(sa.select(teams).where(teams.c.division_id == division).order_by(teams.c.id))

    def venue(self, id_: int) -> VenueRow | None:
        return cast("VenueRow | None", self._one(venues, id_))

    def clock_of_venue(self, venue: int) -> tuple[str, int] | None:
        """The time zone and the hour nights end of the league a venue belongs to."""
        row = self.conn.execute(
            sa.select(leagues.c.time_zone, leagues.c.night_ends)
            .join(venues, venues.c.league_id == leagues.c.id)
            .where(venues.c.id == venue)
        ).first()
        return (str(row.time_zone), int(row.night_ends)) if row is not None else None

    def venues(self, league: int) -> list[dict[str, Any]]:
        return self._all(sa.select(venues).where(venues.c.league_id == league).order_by(venues.c.id))

    def rounds(self, division: int) -> list[dict[str, Any]]:
        return self._all(sa.select(rounds).where(rounds.c.division_id == division).order_by(rounds.c.number))

    def meeting(self, id_: int) -> MeetingRow | None:
        """A meeting with its round's number, date and division."""
        return cast("MeetingRow | None", _row(self.conn.execute(_MEETING.where(meetings.c.id == id_)).first()))

    def meeting_with_settings(self, id_: int) -> MeetingWithSettings | None:
        """A meeting as ``meeting`` gives it, with its season's settings (JSON, as stored) as
        ``season_settings`` and its teams' names (``team_a_name``, ``team_b_name``: a push's new game
        is told its sides by them): what a kiosk game's binding and result need, in one read."""
        return cast("MeetingWithSettings | None", _row(self.conn.execute(_MEETING_WITH_SETTINGS, {"id": id_}).first()))

    def meetings(self, division: int) -> list[dict[str, Any]]:
        """The division's meetings (byes included) in round order, each with its round's number, date and stage."""
        q = (
            sa.select(meetings, rounds.c.number.label("round"), rounds.c.date.label("round_date"), rounds.c.stage)
            .join(rounds, rounds.c.id == meetings.c.round_id)
            .where(rounds.c.division_id == division)
            .order_by(rounds.c.number, meetings.c.id)
        )
        return self._all(q)

    def game(self, id_: int) -> GameRow | None:
        return cast("GameRow | None", self._one(games, id_))

    def games(self, meeting: int) -> list[GameRow]:
        return cast(
            "list[GameRow]", self._all(sa.select(games).where(games.c.meeting_id == meeting).order_by(games.c.number))
        )

    def division_games(self, division: int, stage: str | None = None) -> list[dict[str, Any]]:
        """Every game of the division (of one stage, if given) with its meeting's teams."""
        q = (
            sa.select(games, meetings.c.team_a, meetings.c.team_b)
            .join(meetings, meetings.c.id == games.c.meeting_id)
            .join(rounds, rounds.c.id == meetings.c.round_id)
            .where(rounds.c.division_id == division)
            .order_by(games.c.id)
        )
        if stage is not None:
            q = q.where(rounds.c.stage == stage)
        return self._all(q)

    def playoffs(self, division: int) -> PlayoffsRow | None:
        """The division's playoffs: its seeded teams (a JSON list), or None when it has none."""
        return cast(
            "PlayoffsRow | None",
            _row(self.conn.execute(sa.select(playoffs).where(playoffs.c.division_id == division)).first()),
        )

    def playoff_matches(self, division: int) -> list[dict[str, Any]]:
        """The bracket's matches round by round, each with its round's date."""
        q = (
            sa.select(playoff_matches, rounds.c.date.label("round_date"), rounds.c.number.label("round"))
            .join(rounds, rounds.c.id == playoff_matches.c.round_id)
            .where(playoff_matches.c.division_id == division)
            .order_by(playoff_matches.c.playoff_round, playoff_matches.c.slot)
        )
        return self._all(q)

    def playoff_match(self, id_: int) -> PlayoffMatchRow | None:
        return cast("PlayoffMatchRow | None", self._one(playoff_matches, id_))

    def playoff_match_of_meeting(self, meeting: int) -> PlayoffMatchRow | None:
        """The bracket's match a meeting is played for; None for a round-robin meeting."""
        q = sa.select(playoff_matches).where(playoff_matches.c.meeting_id == meeting)
        return cast("PlayoffMatchRow | None", _row(self.conn.execute(q).first()))

    def standing_totals(self, division: int) -> list[dict[str, int]]:
        """Each team's played, won, lost, tied, points_for and points_against (``team_totals``)."""
        cols = [team_totals.c[k] for k in ("team_id", *TOTALS)]
        return self._all(sa.select(*cols).where(team_totals.c.division_id == division))

    def results_among(self, division: int, teams: Sequence[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The division's games between two of ``teams`` that count (not abandoned), each with its
        meeting's teams; and its forfeited meetings between two of them."""
        in_division = meetings.c.round_id.in_(  # the round robin's: playoff games are not in the standings
            sa.select(rounds.c.id).where(rounds.c.division_id == division, rounds.c.stage == ROUND_ROBIN)
        )
        between = sa.and_(in_division, meetings.c.team_a.in_(list(teams)), meetings.c.team_b.in_(list(teams)))
        played = self._all(
            sa.select(meetings.c.team_a, meetings.c.team_b, games.c.points_a, games.c.points_b, games.c.outcome)
            .select_from(games.join(meetings, meetings.c.id == games.c.meeting_id))
            .where(between, games.c.outcome.is_not(None))
        )
        forfeited = self._all(
            sa.select(meetings.c.team_a, meetings.c.team_b, meetings.c.forfeit_team).where(
                between, meetings.c.forfeit_team.is_not(None)
            )
        )
        return played, forfeited

    def events(self) -> list[LeagueEvent]:
        return [
            LeagueEvent(r.id, r.at, r.kind, json.loads(r.payload))
            for r in self.conn.execute(sa.select(events).order_by(events.c.id))
        ]

    def next_id(self, table: sa.Table) -> int:
        return int(self.conn.execute(_largest_id(table)).scalar_one()) + 1


class Writer(Reader):
    """Reads and appends within one transaction that holds the write lock."""

    locked = False
    appended = 0  # league events appended in this transaction

    def lock_league(self) -> None:
        """The league's write lock, for the rest of the transaction: ids are the next free number, so
        a writer waits for the one before it (SQLite's BEGIN IMMEDIATE holds it from the start)."""
        if not self.locked and self.conn.dialect.name == "postgresql":
            self.conn.execute(_LOCK_LEAGUE)
        self.locked = True

    def next_id(self, table: sa.Table) -> int:
        self.lock_league()
        return super().next_id(table)

    def append(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        lines: list[dict[str, Any]] | None = None,
        new: NewGame | None = None,
    ) -> LeagueEvent:
        """Stores the event and writes what follows from it, both or neither: for a game's result, its
        figures and its teams' sums (``write_result``'s ``lines`` and ``new``)."""
        if kind not in ev.KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        self.lock_league()
        self.appended += 1
        at = _now()
        id_ = self.conn.execute(
            sa.insert(events)
            .values(at=at, kind=kind, payload=json.dumps(payload, sort_keys=True))
            .returning(events.c.id)
        ).scalar_one()
        _apply(self.conn, kind, payload)
        if kind in ev.RESULTS:
            write_result(self.conn, payload["game"], lines, new)
        return LeagueEvent(id_, at, kind, payload)


_LOCK_LEAGUE = sa.text("LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE")


def _apply(conn: Connection, kind: str, p: dict[str, Any]) -> None:
    """Writes the derived tables for one event (the statistics' sums apart: ``Writer.append`` writes
    those for a result, a rebuild once for every team)."""
    if kind == ev.LEAGUE_CREATED:
        clock = {k: p[k] for k in ("time_zone", "night_ends") if k in p}  # leagues made before: the defaults
        conn.execute(sa.insert(leagues).values(id=p["league"], name=p["name"], **clock))
    elif kind == ev.SEASON_CREATED:
        conn.execute(
            sa.insert(seasons).values(
                id=p["season"], league_id=p["league"], name=p["name"], settings=json.dumps(p["settings"])
            )
        )
    elif kind == ev.DIVISION_ADDED:
        conn.execute(sa.insert(divisions).values(id=p["division"], season_id=p["season"], name=p["name"]))
    elif kind == ev.TEAM_ADDED:
        conn.execute(
            sa.insert(teams).values(
                id=p["team"],
                division_id=p["division"],
                name=p["name"],
                players=json.dumps(p["players"]),
                substitutes=json.dumps(p["substitutes"]),
            )
        )
        conn.execute(
            sa.insert(team_totals).values(team_id=p["team"], division_id=p["division"], **dict.fromkeys(TOTALS, 0))
        )
    elif kind == ev.VENUE_ADDED:
        conn.execute(sa.insert(venues).values(id=p["venue"], league_id=p["league"], name=p["name"], tables=p["tables"]))
    elif kind == ev.SCHEDULE_MADE:
        for r in p["rounds"]:
            conn.execute(
                sa.insert(rounds).values(id=r["round"], division_id=p["division"], number=r["number"], date=r["date"])
            )
            for m in r["meetings"]:
                conn.execute(
                    sa.insert(meetings).values(
                        id=m["meeting"], round_id=r["round"], team_a=m["a"], team_b=m["b"], venue_id=m["venue"]
                    )
                )
    elif kind == ev.PLAYOFFS_MADE:
        _apply_playoffs(conn, p)
    elif kind == ev.PLAYOFF_ADVANCED:
        _apply_advance(conn, p)
    elif kind == ev.PLAYERS_MERGED:  # a later word on the same name replaces the earlier
        conn.execute(
            sa.delete(player_merges).where(player_merges.c.league_id == p["league"], player_merges.c.name == p["name"])
        )
        row = {"league_id": p["league"], "name": p["name"], "into": p["into"], "into_name": p["into_name"]}
        conn.execute(sa.insert(player_merges).values(**row))
    elif kind == ev.MEETING_MOVED:
        conn.execute(
            sa.update(meetings)
            .where(meetings.c.id == p["meeting"])
            .values(date=p["date"], venue_id=p["venue"], table_number=p["table"])
        )
    elif kind == ev.MEETING_FORFEITED:
        conn.execute(
            sa.update(meetings)
            .where(meetings.c.id == p["meeting"])
            .values(forfeit_team=p["team"], forfeit_reason=p["reason"])
        )
        _count_forfeit(conn, p["meeting"], p["team"])
    elif kind == ev.GAME_RECORDED:
        conn.execute(
            sa.insert(games).values(
                id=p["game"],
                meeting_id=p["meeting"],
                number=p["number"],
                points_a=p["points_a"],
                points_b=p["points_b"],
                outcome=p["outcome"],
            )
        )
        _count_game(conn, p["meeting"], p["points_a"], p["points_b"], p["outcome"], 1)
    elif kind == ev.GAME_PLAYED:
        figures = {k: p[k] for k in ("points_a", "points_b", "outcome", "note")}
        old = conn.execute(sa.select(games).where(games.c.id == p["game"])).first()
        if old is None:
            conn.execute(sa.insert(games).values(**_played_row(p)))
            _count_game(conn, p["meeting"], p["points_a"], p["points_b"], p["outcome"], 1)
        elif old.ruled_reason is None:  # a ruling stands: a later correction at the table changes nothing
            conn.execute(sa.update(games).where(games.c.id == p["game"]).values(**figures))
            _count_game(conn, old.meeting_id, old.points_a, old.points_b, old.outcome, -1)
            _count_game(conn, old.meeting_id, p["points_a"], p["points_b"], p["outcome"], 1)
    elif kind == ev.GAME_RULED:
        old = conn.execute(sa.select(games).where(games.c.id == p["game"])).first()
        if old is not None:  # the ruling replaces the result: the old one is taken back first
            _count_game(conn, old.meeting_id, old.points_a, old.points_b, old.outcome, -1)
            _count_game(conn, old.meeting_id, p["points_a"], p["points_b"], p["outcome"], 1)
        conn.execute(
            sa.update(games)
            .where(games.c.id == p["game"])
            .values(outcome=p["outcome"], points_a=p["points_a"], points_b=p["points_b"], ruled_reason=p["reason"])
        )


def _apply_playoffs(conn: Connection, p: dict[str, Any]) -> None:
    conn.execute(sa.insert(playoffs).values(division_id=p["division"], teams=json.dumps(p["teams"])))
    for r in p["rounds"]:
        conn.execute(
            sa.insert(rounds).values(
                id=r["round"], division_id=p["division"], number=r["number"], date=r["date"], stage=PLAYOFFS
            )
        )
    for m in p["matches"]:
        if m["meeting"] is not None:  # both teams known from the start: seeds, or seeds after byes
            conn.execute(
                sa.insert(meetings).values(
                    id=m["meeting"], round_id=m["round"], team_a=m["a"], team_b=m["b"], venue_id=m["venue"]
                )
            )
        conn.execute(
            sa.insert(playoff_matches).values(
                id=m["match"],
                division_id=p["division"],
                round_id=m["round"],
                playoff_round=m["playoff_round"],
                slot=m["slot"],
                seed_a=m["seed_a"],
                seed_b=m["seed_b"],
                from_a=m["from_a"],
                from_b=m["from_b"],
                next_match=m["next"],
                next_side=m["next_side"],
                venue_id=m["venue"],
                team_a=m["a"],
                team_b=m["b"],
                meeting_id=m["meeting"],
            )
        )


def _apply_advance(conn: Connection, p: dict[str, Any]) -> None:
    conn.execute(sa.update(playoff_matches).where(playoff_matches.c.id == p["match"]).values(winner=p["winner"]))
    nxt = p["next"]
    if nxt is None:  # the final: the winner is the champion
        return
    side = f"team_{nxt['side']}"
    conn.execute(sa.update(playoff_matches).where(playoff_matches.c.id == nxt["match"]).values({side: p["winner"]}))
    new = nxt["new_meeting"]
    if new is not None:  # the match's second team is known now: it becomes a meeting to play
        conn.execute(
            sa.insert(meetings).values(
                id=nxt["meeting"], round_id=new["round"], team_a=new["a"], team_b=new["b"], venue_id=new["venue"]
            )
        )
        conn.execute(
            sa.update(playoff_matches).where(playoff_matches.c.id == nxt["match"]).values(meeting_id=nxt["meeting"])
        )
    elif nxt["meeting"] is not None:  # a ruling changed who went through before the next meeting was played
        conn.execute(sa.update(meetings).where(meetings.c.id == nxt["meeting"]).values({side: p["winner"]}))


def _totals_added(team: int, games_: int, *, won: int, lost: int, tied: int, pf: int, pa: int) -> dict[str, int]:
    """What ``games_`` games (negative: taken back) add to a team's totals, each one won, lost or tied as
    given (1 or 0) and with the given points for and against: the parameters of ``_ADD_TOTALS``."""
    return {
        "at_team": team,
        "add_played": games_,
        "add_won": games_ * won,
        "add_lost": games_ * lost,
        "add_tied": games_ * tied,
        "add_points_for": games_ * pf,
        "add_points_against": games_ * pa,
    }


# Both teams of a game in one statement with a row of parameters each: one round trip, not two.
_ADD_TOTALS = (
    sa.update(team_totals)
    .where(team_totals.c.team_id == sa.bindparam("at_team"))
    .values({k: team_totals.c[k] + sa.bindparam(f"add_{k}") for k in TOTALS})
)


def _count_game(conn: Connection, meeting: int, points_a: int, points_b: int, outcome: str | None, times: int) -> None:
    """Counts a game's result in its two teams' totals (``times`` -1: takes it back); an abandoned
    game (no outcome) counts for nobody."""
    if outcome is None:
        return
    q = (
        sa.select(meetings.c.team_a, meetings.c.team_b, rounds.c.stage)
        .join(rounds, rounds.c.id == meetings.c.round_id)
        .where(meetings.c.id == meeting)
    )
    m = conn.execute(q).first()
    if m is None or m.team_b is None or m.stage != ROUND_ROBIN:  # playoff games are not in the standings
        return
    conn.execute(_ADD_TOTALS, _game_totals(m.team_a, m.team_b, points_a, points_b, outcome, times))


def _game_totals(
    team_a: int, team_b: int, points_a: int, points_b: int, outcome: str | None, times: int
) -> list[dict[str, int]]:
    """What a game's result adds to its two teams' totals (``times`` -1: takes it back), as the
    parameters of ``_ADD_TOTALS``; nothing for a game that counts for nobody."""
    if outcome is None:
        return []
    tied = int(outcome == "tie")
    return [
        _totals_added(team, times, won=int(outcome == side), lost=int(outcome == other), tied=tied, pf=pf, pa=pa)
        for team, side, other, pf, pa in (
            (team_a, "a", "b", points_a, points_b),
            (team_b, "b", "a", points_b, points_a),
        )
    ]


def _played_row(p: dict[str, Any]) -> dict[str, Any]:
    """The ``games`` row of a ``game_played`` event's game, new to the league."""
    return {
        "id": p["game"],
        "meeting_id": p["meeting"],
        "number": p["number"],
        "kiosk_id": p["kiosk"],
        "kiosk_game": p["kiosk_game"],
        **{k: p[k] for k in ("points_a", "points_b", "outcome", "note")},
    }


def _count_forfeit(conn: Connection, meeting: int, forfeiting: int) -> None:
    """Every game of a forfeited meeting is won by the other team, with no points either way."""
    q = (
        sa.select(meetings.c.team_a, meetings.c.team_b, seasons.c.settings, rounds.c.stage)
        .join(rounds, rounds.c.id == meetings.c.round_id)
        .join(divisions, divisions.c.id == rounds.c.division_id)
        .join(seasons, seasons.c.id == divisions.c.season_id)
        .where(meetings.c.id == meeting)
    )
    m = conn.execute(q).first()
    if m is None or m.team_b is None or m.stage != ROUND_ROBIN:
        return
    games_ = int(json.loads(m.settings).get("games_per_meeting", 1))
    loser, winner = (m.team_a, m.team_b) if forfeiting == m.team_a else (m.team_b, m.team_a)
    added = [
        _totals_added(winner, games_, won=1, lost=0, tied=0, pf=0, pa=0),
        _totals_added(loser, games_, won=0, lost=1, tied=0, pf=0, pa=0),
    ]
    conn.execute(_ADD_TOTALS, added)


class Store:
    """The league's database; ``write()`` and ``read()`` open one transaction each."""

    def __init__(self, db: str | None = None, *, migrate: bool = True) -> None:
        self.url = resolve_url(db)
        self.where = self.url.render_as_string(hide_password=True)
        try:
            self.engine = _engine(self.url)
        except (exc.ArgumentError, exc.NoSuchModuleError, OSError) as e:
            raise StoreTrouble(f"cannot open {self.where}: {e}") from None
        # A SQLite file has one writer at a time: this process's writers (the pushes' thread, the
        # results' thread, the pages) take turns here, at once, rather than in SQLite's busy handler,
        # which sleeps in steps of up to 100 ms. PostgreSQL's writers go on side by side.
        self._writers: AbstractContextManager[Any] = threading.RLock() if self.dialect == "sqlite" else nullcontext()
        if migrate:
            self.migrate()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def migrate(self) -> None:
        """Brings the schema up to the newest migration (creates it in an empty database)."""
        from league.store.migrate import upgrade

        with self._trouble(), self.engine.begin() as conn:
            upgrade(conn)

    @contextmanager
    def _trouble(self) -> Iterator[None]:
        try:
            yield
        except exc.OperationalError as e:
            raise StoreUnreachable(f"cannot use {self.where}: {_first_line(e)}") from None
        except exc.DBAPIError as e:
            if isinstance(e, exc.IntegrityError):
                raise
            raise StoreTrouble(f"the database {self.where} refused: {_first_line(e)}") from None

    @contextmanager
    def read(self) -> Iterator[Reader]:
        """Reads. On SQLite, in one transaction: one snapshot of the file. On PostgreSQL, each statement
        on its own (READ COMMITTED gives each its own snapshot anyway): no BEGIN and COMMIT to wait for."""
        with self._trouble(), self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                yield Reader(conn)
                return
            with conn.begin():
                yield Reader(conn)

    @contextmanager
    def write(self, league_lock: bool = True) -> Iterator[Writer]:
        """One transaction that appends events; organiser actions run one at a time. Without
        ``league_lock`` (a kiosk's push, which mostly writes its own game's rows), the league's lock
        is taken only if the transaction comes to append a league event or read the next id."""
        with (
            self._writers,
            self._trouble(),
            self.engine.connect().execution_options(writing=True) as conn,
            conn.begin(),
        ):
            w = Writer(conn)
            if league_lock:
                w.lock_league()
            yield w

    def channel(self, name: str) -> str:
        """PostgreSQL: the notification channel ``name`` of this league: with its schema's digest, so
        leagues sharing a database (each in a schema of its own) never hear each other."""
        if self.dialect != "postgresql":
            return name
        with self.read() as r:
            schema = str(r.conn.exec_driver_sql("SELECT current_schema()").scalar())
        return f"{name}_{hashlib.sha256(schema.encode()).hexdigest()[:16]}"

    def notify(self, channel: str, payload: str) -> None:
        """PostgreSQL: tells every connection listening on ``channel`` (other server processes)."""
        with self._trouble(), self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            conn.execute(sa.text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload})

    def listen(
        self, channel: str, stop: Callable[[], bool], every: float = 5.0, listening: Callable[[], None] | None = None
    ) -> Iterator[str]:
        """PostgreSQL: the payloads sent on ``channel``, as they come, on a connection of their own (not
        the pool's: it is held for as long as this runs); ``stop`` is asked at least every ``every`` s.
        StoreTrouble when the connection is lost."""
        import psycopg
        from psycopg import sql

        conninfo = self.url.set(drivername="postgresql").render_as_string(hide_password=False)
        try:
            with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as conn:
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                if listening is not None:
                    listening()
                while not stop():
                    for note in conn.notifies(timeout=every, stop_after=1):
                        yield note.payload
        except psycopg.Error as e:
            raise StoreTrouble(f"cannot listen on {self.where}: {str(e).strip().splitlines()[0]}") from None

    def rebuild(self) -> int:
        """Empties the derived tables and writes them again from the log, then the statistics' sums from
        the kiosk games' figures as they are (league/organiser/figures.py's rebuild writes those too); returns the
        events replayed."""
        with self.write() as w:
            for table in DERIVED:
                w.conn.execute(sa.delete(table))
            log = w.events()
            for e in log:
                _apply(w.conn, e.kind, e.payload)
            sum_teams(w.conn)  # once for every team, rather than after each game
        return len(log)

    def close(self) -> None:
        self.engine.dispose()


def _first_line(e: exc.DBAPIError) -> str:
    return str(e.orig).strip().splitlines()[0] if e.orig is not None else str(e)
