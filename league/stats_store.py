"""Every SQL statement of the statistics: each kiosk game's figures a team and a player (``game_figures``,
derived from the kiosk's events: written when the game's result is, written again by a rebuild), and the
sums over a season's games that count.

Games, wins and ties are not kept here: they come from ``games`` as it stands (a ruling counts as
ruled), for hand-recorded games too. Teams and games are derived tables that ``rebuild`` writes again,
so they are referred to by id without a foreign key."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from kiosk.stats import HAND_FIGURES
from league.kiosk_store import kiosk_events, kiosk_games
from league.store import divisions, games, meetings, metadata, rounds, teams

TEAM_LINE = ""  # the player of a team's own line

game_figures = sa.Table(
    "game_figures",
    metadata,
    sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),  # the league's game
    sa.Column("team_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.String(40), primary_key=True),  # TEAM_LINE for the team itself
    *(sa.Column(f, sa.Integer, nullable=False) for f in HAND_FIGURES),
)


def replace_game(conn: Connection, game: int, lines: Iterable[dict[str, Any]]) -> None:
    """A game's lines (each: team_id, player and the hand figures) in place of those it had."""
    conn.execute(sa.delete(game_figures).where(game_figures.c.game_id == game))
    rows = [{**x, "game_id": game} for x in lines]
    if rows:
        conn.execute(sa.insert(game_figures), rows)


def clear(conn: Connection) -> None:
    conn.execute(sa.delete(game_figures))


def finished_kiosk_games(conn: Connection) -> list[dict[str, Any]]:
    """Kiosk games that became a league game: kiosk, game, league game, meeting, who sat NS.
    (Columns by name: a migration runs this on the schema as it was then.)"""
    c = kiosk_games.c
    q = (
        sa.select(c.kiosk_id, c.game, c.league_game, c.meeting_id, c.ns_team)
        .where(c.league_game.is_not(None))
        .order_by(c.kiosk_id, c.game)
    )
    return [dict(r._mapping) for r in conn.execute(q)]


def applied_events(conn: Connection, kiosk_id: int, game: int) -> list[str]:
    """A kiosk game's events the fold accepted, as stored (JSON), in seq order."""
    c = kiosk_events.c
    q = sa.select(c.event).where(c.kiosk_id == kiosk_id, c.game == game, c.quarantined.is_(None)).order_by(c.seq)
    return [r[0] for r in conn.execute(q)]


def meeting_teams(conn: Connection, meeting: int) -> tuple[int, int | None] | None:
    row = conn.execute(sa.select(meetings.c.team_a, meetings.c.team_b).where(meetings.c.id == meeting)).first()
    return None if row is None else (row[0], row[1])


def team_names(conn: Connection, ids: Sequence[int]) -> dict[int, tuple[str, list[str]]]:
    """Teams by id: name, and the players and substitutes as stored (JSON texts)."""
    q = sa.select(teams.c.id, teams.c.name, teams.c.players, teams.c.substitutes).where(teams.c.id.in_(list(ids)))
    return {r[0]: (r[1], [r[2], r[3]]) for r in conn.execute(q)}


def season_teams(conn: Connection, seasons: Sequence[int]) -> list[dict[str, Any]]:
    """The seasons' teams: id, name, season."""
    q = (
        sa.select(teams.c.id, teams.c.name, divisions.c.season_id)
        .join(divisions, divisions.c.id == teams.c.division_id)
        .where(divisions.c.season_id.in_(list(seasons)))
        .order_by(teams.c.id)
    )
    return [dict(r._mapping) for r in conn.execute(q)]


def _counted(seasons: Sequence[int]) -> Any:
    """The games that count of the seasons' divisions (every stage), with their meeting's teams."""
    return (
        sa.select(games.c.id, games.c.outcome, meetings.c.team_a, meetings.c.team_b)
        .join(meetings, meetings.c.id == games.c.meeting_id)
        .join(rounds, rounds.c.id == meetings.c.round_id)
        .join(divisions, divisions.c.id == rounds.c.division_id)
        .where(divisions.c.season_id.in_(list(seasons)), games.c.outcome.is_not(None))
        .subquery("counted")
    )


def team_results(conn: Connection, seasons: Sequence[int]) -> dict[int, tuple[int, int, int]]:
    """Each team's games, games won and games tied, over every game that counts (kiosk or by hand)."""
    g = _counted(seasons)
    out: dict[int, tuple[int, int, int]] = {}
    for side, mine in (("team_a", "a"), ("team_b", "b")):
        q = sa.select(
            g.c[side],
            sa.func.count(),
            sa.func.sum(sa.case((g.c.outcome == mine, 1), else_=0)),
            sa.func.sum(sa.case((g.c.outcome == "tie", 1), else_=0)),
        ).group_by(g.c[side])
        for team, played, won, tied in conn.execute(q):
            was = out.get(team, (0, 0, 0))
            out[team] = (was[0] + played, was[1] + int(won or 0), was[2] + int(tied or 0))
    return out


def sums(conn: Connection, seasons: Sequence[int]) -> list[dict[str, Any]]:
    """Every team's and player's hand figures summed over the seasons' kiosk games that count, a row
    each (``player`` is TEAM_LINE for a team's own), with the games, wins and ties of each line."""
    g = _counted(seasons)
    f = game_figures.c
    won = sa.or_(
        sa.and_(g.c.outcome == "a", g.c.team_a == f.team_id), sa.and_(g.c.outcome == "b", g.c.team_b == f.team_id)
    )
    figures = [sa.func.max(f[k]).label(k) if k == "biggest" else sa.func.sum(f[k]).label(k) for k in HAND_FIGURES]
    q = (
        sa.select(
            f.team_id,
            f.player,
            sa.func.count().label("games"),
            sa.func.sum(sa.case((won, 1), else_=0)).label("won"),
            sa.func.sum(sa.case((g.c.outcome == "tie", 1), else_=0)).label("tied"),
            *figures,
        )
        .join(g, g.c.id == f.game_id)
        .group_by(f.team_id, f.player)
    )
    return [dict(r._mapping) for r in conn.execute(q)]


def count_lines(conn: Connection) -> int:
    return int(conn.execute(sa.select(sa.func.count()).select_from(game_figures)).scalar_one())
