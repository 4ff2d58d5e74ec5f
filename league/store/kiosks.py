"""Every SQL statement about kiosks: enrolment codes, keys, the games a kiosk binds to a meeting and
the events it pushes (kept as received; a refused one carries why it was set aside).

Venues and meetings are derived tables that `rebuild` writes again, so they are referred to by id
without a foreign key (the library checks them when it writes)."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from league.store.tables import games, meetings, metadata, rounds, wrong_codes
from shared.events import GameEvent, event_of


def _only_marked(name: str, mark: str, *columns: str) -> sa.Index:
    """An index of the rows whose ``mark`` is set, by ``columns``, on either database (a partial index:
    a row is in it only while its mark is set)."""
    where = sa.text(f"{mark} IS NOT NULL")
    return sa.Index(name, *columns, sqlite_where=where, postgresql_where=where)


enrol_codes = sa.Table(
    "enrol_codes",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("venue_id", sa.Integer, nullable=False),
    sa.Column("table_number", sa.Integer, nullable=False),
    sa.Column("made_at", sa.String(40), nullable=False),
    sa.Column("expires_at", sa.String(40), nullable=False),
    sa.Column("used_at", sa.String(40), nullable=True),
)
kiosks = sa.Table(
    "kiosks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("venue_id", sa.Integer, nullable=False),
    sa.Column("table_number", sa.Integer, nullable=False),
    sa.Column("enrolled_at", sa.String(40), nullable=False),
    sa.Column("revoked_at", sa.String(40), nullable=True),
)
kiosk_games = sa.Table(
    "kiosk_games",
    metadata,
    sa.Column("kiosk_id", sa.Integer, sa.ForeignKey("kiosks.id"), primary_key=True),
    sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("meeting_id", sa.Integer, nullable=False),
    sa.Column("bound_at", sa.String(40), nullable=False),
    sa.Column("ns_team", sa.Integer, nullable=True),  # the meeting's team that sat NS
    sa.Column("league_game", sa.Integer, nullable=True),  # the league's game, once the kiosk's has ended
    sa.Column("note", sa.Text, nullable=True),  # why its result is not in the standings, for the organiser
    sa.Index("kiosk_games_by_meeting", "meeting_id"),  # the board: tonight's meetings' games
    # The few games the organiser must look at, found without reading every game the league holds.
    _only_marked("kiosk_games_noted", "note", "bound_at"),
)
kiosk_events = sa.Table(
    "kiosk_events",
    metadata,
    sa.Column("kiosk_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("event", sa.Text, nullable=False),  # JSON: the event as the kiosk sent it
    sa.Column("received_at", sa.String(40), nullable=False),
    sa.Column("quarantined", sa.Text, nullable=True),  # why the fold refused it; NULL: applied
    sa.ForeignKeyConstraint(["kiosk_id", "game"], ["kiosk_games.kiosk_id", "kiosk_games.game"]),
    _only_marked("kiosk_events_quarantined", "quarantined", "kiosk_id", "game", "seq"),  # the quarantine
)

# A re-delivery that differs from the event held at its seq: kept beside it, never applied.
kiosk_divergences = sa.Table(
    "kiosk_divergences",
    metadata,
    sa.Column("kiosk_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("digest", sa.String(64), primary_key=True),  # of the event: each different version kept once
    sa.Column("event", sa.Text, nullable=False),
    sa.Column("received_at", sa.String(40), nullable=False),
)


def _rows(conn: Connection, q: Any, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows as dicts; ``params`` for a statement built once with bind parameters."""
    return [dict(r._mapping) for r in conn.execute(q, params)]


def _one(conn: Connection, q: Any) -> dict[str, Any] | None:
    r = conn.execute(q).first()
    return dict(r._mapping) if r is not None else None


def add_code(conn: Connection, code_hash: str, venue: int, table: int, made_at: str, expires_at: str) -> None:
    conn.execute(
        sa.insert(enrol_codes).values(
            code_hash=code_hash, venue_id=venue, table_number=table, made_at=made_at, expires_at=expires_at
        )
    )


def wrong_codes_since(conn: Connection, since: float) -> list[float]:
    """When each wrong enrolment code came after ``since`` (epoch seconds), the oldest first; older
    ones are forgotten."""
    conn.execute(sa.delete(wrong_codes).where(wrong_codes.c.at <= since))
    return [row.at for row in conn.execute(sa.select(wrong_codes.c.at).order_by(wrong_codes.c.at))]


def add_wrong_code(conn: Connection, at: float) -> None:
    conn.execute(sa.insert(wrong_codes).values(at=at))


def take_code(conn: Connection, code_hash: str, now: str) -> dict[str, Any] | None:
    """Marks an unused, unexpired code used and returns it; None (nothing changed) for any other code."""
    row = _one(conn, sa.select(enrol_codes).where(enrol_codes.c.code_hash == code_hash))
    if row is None or row["used_at"] is not None or row["expires_at"] <= now:
        return None
    done = conn.execute(
        sa.update(enrol_codes)
        .where(enrol_codes.c.code_hash == code_hash, enrol_codes.c.used_at.is_(None))
        .values(used_at=now)
    )
    return row if done.rowcount == 1 else None


def add_kiosk(conn: Connection, key_hash: str, venue: int, table: int, now: str) -> int:
    return int(
        conn.execute(
            sa.insert(kiosks)
            .values(key_hash=key_hash, venue_id=venue, table_number=table, enrolled_at=now)
            .returning(kiosks.c.id)
        ).scalar_one()
    )


def kiosk_by_hash(conn: Connection, key_hash: str) -> dict[str, Any] | None:
    """The kiosk with this key, unless its key was revoked."""
    row = conn.execute(_KIOSK_BY_HASH, {"hash": key_hash}).first()
    return dict(row._mapping) if row is not None else None


# Every push and request of a kiosk reads it: built once (built afresh, a statement costs its
# construction and its cache key on every call).
_KIOSK_BY_HASH = sa.select(kiosks).where(kiosks.c.key_hash == sa.bindparam("hash"), kiosks.c.revoked_at.is_(None))


def kiosk(conn: Connection, id_: int) -> dict[str, Any] | None:
    return _one(conn, sa.select(kiosks).where(kiosks.c.id == id_))


def all_kiosks(conn: Connection) -> list[dict[str, Any]]:
    return _rows(
        conn,
        sa.select(
            kiosks.c.id, kiosks.c.venue_id, kiosks.c.table_number, kiosks.c.enrolled_at, kiosks.c.revoked_at
        ).order_by(kiosks.c.id),
    )


def live_at(conn: Connection, venue: int, table: int) -> list[int]:
    """The kiosks whose keys still work at a venue's table."""
    q = sa.select(kiosks.c.id).where(
        kiosks.c.venue_id == venue, kiosks.c.table_number == table, kiosks.c.revoked_at.is_(None)
    )
    return [int(row.id) for row in conn.execute(q.order_by(kiosks.c.id))]


def revoke(conn: Connection, id_: int, now: str) -> bool:
    done = conn.execute(
        sa.update(kiosks).where(kiosks.c.id == id_, kiosks.c.revoked_at.is_(None)).values(revoked_at=now)
    )
    return done.rowcount == 1


def bound_game(conn: Connection, kiosk_id: int, game: int) -> dict[str, Any] | None:
    """A kiosk game's binding."""
    return _one(conn, sa.select(kiosk_games).where(kiosk_games.c.kiosk_id == kiosk_id, kiosk_games.c.game == game))


def games_locked(conn: Connection, kiosk_id: int, games: list[int]) -> tuple[dict[int, dict[str, Any]], dict[int, int]]:
    """A kiosk's bindings of these games, by game, locked until the transaction ends (in the games'
    order, so two pushes of one game take turns while other games' pushes go on; SQLite's writer holds
    the file's lock anyway); then the highest seq the league holds of each game it holds any of. Two
    statements: on PostgreSQL, a statement that waited for a lock still reads as of its start, so a
    seq read with the lock could miss the events of the push it waited for."""
    if not games:
        return {}, {}
    at = {"kiosk": kiosk_id, "games": games}
    bound = {r["game"]: r for r in _rows(conn, _GAMES_LOCKED, at)}
    return bound, {game: int(last) for game, last in conn.execute(_LAST_SEQS, at)}


# Built once, with the games as an expanding parameter: every push reads them.
_GAMES_LOCKED = (
    sa.select(kiosk_games)
    .where(
        kiosk_games.c.kiosk_id == sa.bindparam("kiosk"), kiosk_games.c.game.in_(sa.bindparam("games", expanding=True))
    )
    .order_by(kiosk_games.c.game)
    .with_for_update()
)
_LAST_SEQS = (
    sa.select(kiosk_events.c.game, sa.func.max(kiosk_events.c.seq))
    .where(
        kiosk_events.c.kiosk_id == sa.bindparam("kiosk"), kiosk_events.c.game.in_(sa.bindparam("games", expanding=True))
    )
    .group_by(kiosk_events.c.game)
)


def events_at(conn: Connection, kiosk_id: int, game: int, seqs: list[int]) -> dict[int, str]:
    """The events held at these seqs of a kiosk's game, as stored (JSON), by seq."""
    q = sa.select(kiosk_events.c.seq, kiosk_events.c.event).where(
        kiosk_events.c.kiosk_id == kiosk_id, kiosk_events.c.game == game, kiosk_events.c.seq.in_(seqs)
    )
    return {seq: event for seq, event in conn.execute(q)}


def bind_game(conn: Connection, row: dict[str, Any]) -> None:
    """Binds a kiosk game to a meeting: a row of kiosk_id, game, meeting_id, bound_at and ns_team."""
    conn.execute(sa.insert(kiosk_games), row)


def set_result(conn: Connection, kiosk_id: int, game: int, league_game: int | None, note: str | None) -> None:
    """The league game a kiosk game became, or why it did not."""
    conn.execute(
        sa.update(kiosk_games)
        .where(kiosk_games.c.kiosk_id == kiosk_id, kiosk_games.c.game == game)
        .values(league_game=league_game, note=note)
    )


def add_divergence(conn: Connection, kiosk_id: int, game: int, seq: int, event: str, digest: str, now: str) -> None:
    """Keeps a differing re-delivery once (the same version sent again is not kept twice)."""
    held = conn.execute(
        sa.select(kiosk_divergences.c.seq).where(
            kiosk_divergences.c.kiosk_id == kiosk_id,
            kiosk_divergences.c.game == game,
            kiosk_divergences.c.seq == seq,
            kiosk_divergences.c.digest == digest,
        )
    ).first()
    if held is None:
        conn.execute(
            sa.insert(kiosk_divergences).values(
                kiosk_id=kiosk_id, game=game, seq=seq, digest=digest, event=event, received_at=now
            )
        )


def divergences(conn: Connection) -> list[dict[str, Any]]:
    """Every differing re-delivery, for the organiser."""
    return _rows(
        conn,
        sa.select(kiosk_divergences).order_by(
            kiosk_divergences.c.kiosk_id, kiosk_divergences.c.game, kiosk_divergences.c.seq
        ),
    )


def noted_games(conn: Connection) -> list[dict[str, Any]]:
    """Kiosk games whose result is not in the standings by itself, for the organiser."""
    return _rows(
        conn,
        sa.select(kiosk_games)
        .where(kiosk_games.c.note.is_not(None))
        .order_by(kiosk_games.c.bound_at, kiosk_games.c.kiosk_id, kiosk_games.c.game),
    )


def game_events(conn: Connection, kiosk_id: int, game: int) -> list[dict[str, Any]]:
    """A kiosk's game as stored, in seq order."""
    return _rows(
        conn,
        sa.select(kiosk_events)
        .where(kiosk_events.c.kiosk_id == kiosk_id, kiosk_events.c.game == game)
        .order_by(kiosk_events.c.seq),
    )


def add_events(conn: Connection, rows: list[dict[str, Any]], now: str) -> None:
    """New events of a game, each a row's columns but the time received."""
    if rows:
        conn.execute(_ADD_EVENTS, [{**r, "received_at": now} for r in rows])


_ADD_EVENTS = sa.insert(kiosk_events)


def applied_events(conn: Connection, kiosk_id: int, game: int) -> list[GameEvent]:
    """A kiosk game's events the fold accepted (not those set aside), in seq order."""
    c = kiosk_events.c
    q = sa.select(c.event).where(c.kiosk_id == kiosk_id, c.game == game, c.quarantined.is_(None)).order_by(c.seq)
    return [event_of(game, json.loads(r[0])) for r in conn.execute(q)]


def quarantine(conn: Connection) -> list[dict[str, Any]]:
    """Every event set aside, for the organiser."""
    return _rows(
        conn,
        sa.select(kiosk_events)
        .where(kiosk_events.c.quarantined.is_not(None))
        .order_by(kiosk_events.c.kiosk_id, kiosk_events.c.game, kiosk_events.c.seq),
    )


def rulings_of(conn: Connection, kiosk_id: int) -> list[dict[str, Any]]:
    """The organiser's rulings on a kiosk's games (those that became league games), by its game number."""
    q = (
        sa.select(
            kiosk_games.c.game,
            kiosk_games.c.ns_team,
            games.c.id.label("league_game"),
            games.c.outcome,
            games.c.points_a,
            games.c.points_b,
            games.c.ruled_reason,
            meetings.c.id.label("meeting"),
            meetings.c.team_a,
            meetings.c.team_b,
        )
        .join(games, games.c.id == kiosk_games.c.league_game)
        .join(meetings, meetings.c.id == games.c.meeting_id)
        .where(kiosk_games.c.kiosk_id == kiosk_id, games.c.ruled_reason.is_not(None))
        .order_by(kiosk_games.c.game)
    )
    return _rows(conn, q)


_meeting_night = sa.func.coalesce(meetings.c.date, rounds.c.date)  # a moved meeting's new date, or its round's
_MEETINGS_ON = (  # built once: every kiosk asks every few minutes
    sa.select(meetings, rounds.c.number.label("round"), rounds.c.division_id, _meeting_night.label("night"))
    .join(rounds, rounds.c.id == meetings.c.round_id)
    .where(
        meetings.c.venue_id == sa.bindparam("venue"),
        _meeting_night == sa.bindparam("date"),
        meetings.c.team_b.is_not(None),
    )
    .order_by(meetings.c.table_number, meetings.c.id)
)


def meetings_on(conn: Connection, venue: int, date: str) -> list[dict[str, Any]]:
    """The meetings (not byes) at a venue on a night, moved ones included by their new date."""
    return _rows(conn, _MEETINGS_ON, {"venue": venue, "date": date})


def game_of(conn: Connection, kiosk_id: int, game: int) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """A kiosk game's binding and its events as stored, for its page."""
    return bound_game(conn, kiosk_id, game), game_events(conn, kiosk_id, game)


def games_at_meetings(conn: Connection, meeting_ids: list[int]) -> list[dict[str, Any]]:
    """The kiosk games bound to these meetings, each with its kiosk's table and how many events the
    league holds of it (``held``), in the order they were bound."""
    if not meeting_ids:
        return []
    held = (  # by the primary key's index, one game at a time: never the whole table
        sa.select(sa.func.count())
        .where(kiosk_events.c.kiosk_id == kiosk_games.c.kiosk_id, kiosk_events.c.game == kiosk_games.c.game)
        .scalar_subquery()
    )
    q = (
        sa.select(kiosk_games, kiosks.c.table_number, held.label("held"))
        .join(kiosks, kiosks.c.id == kiosk_games.c.kiosk_id)
        .where(kiosk_games.c.meeting_id.in_(meeting_ids))
        .order_by(kiosk_games.c.bound_at, kiosk_games.c.kiosk_id, kiosk_games.c.game)
    )
    return _rows(conn, q)
