"""Every SQL statement of the statistics. Two derived tables:

- ``game_figures``: each kiosk game's figures, a row for each team and each named player, written from
  the kiosk's events when the game's result is (league/organiser/figures.py), again by a rebuild;
- ``team_figures``: each team's and player's sums over the games that count (games, wins and ties of
  every game, hand-recorded ones too; the rest from ``game_figures``), written again for a game's two
  teams whenever its figures or its result change, in the same transaction, so that a statistics page
  reads a few hundred rows however many games the season has.

Both are rebuilt from the log and the kiosks' events by ``clabber league rebuild``. Teams and games are
derived tables that ``rebuild`` writes again, so they are referred to by id without a foreign key."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from league.store.kiosks import kiosk_games
from league.store.tables import divisions, games, meetings, metadata, teams
from shared.stats import HAND_FIGURES

TEAM_LINE = ""  # the player of a team's own line

game_figures = sa.Table(
    "game_figures",
    metadata,
    sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),  # the league's game
    sa.Column("team_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.String(40), primary_key=True),  # TEAM_LINE for the team itself
    sa.Column("side", sa.String(1), nullable=False),  # the team is the meeting's a or b
    *(sa.Column(f, sa.Integer, nullable=False) for f in HAND_FIGURES),
    sa.Index("game_figures_by_team", "team_id"),
)
team_figures = sa.Table(
    "team_figures",
    metadata,
    sa.Column("team_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("won", sa.Integer, nullable=False),
    sa.Column("tied", sa.Integer, nullable=False),
    *(sa.Column(f, sa.Integer, nullable=False) for f in HAND_FIGURES),
)
# A team's games are found by its meetings (the sums are written again team by team).
meetings_by_a = sa.Index("meetings_by_team_a", meetings.c.team_a)
meetings_by_b = sa.Index("meetings_by_team_b", meetings.c.team_b)


def write_result(
    conn: Connection, game: int, lines: list[dict[str, Any]] | None = None, new: NewGame | None = None
) -> None:
    """The one writer of a game's figures and its teams' sums, whichever way its result came (recorded
    by hand, played at a kiosk, corrected there, ruled on), in the transaction that wrote the result.

    ``lines``: a kiosk game's rows of ``game_figures`` (each: team_id, player, side and the hand
    figures) in place of those it had; None keeps them. ``new``: the game was written just now, with
    no lines yet and a result new to its teams' sums, which are then added to rather than summed again
    over all their games."""
    if new is not None:
        add_games(conn, [(game, lines or [], new)])
        return
    if lines is not None:
        put_lines(conn, game, lines)
    sum_game(conn, game)


def put_lines(conn: Connection, game: int, lines: Iterable[dict[str, Any]]) -> None:
    """A game's lines in place of those it had, its teams' sums left as they are (a rebuild sums every
    team once after writing every game's lines)."""
    conn.execute(sa.delete(game_figures).where(game_figures.c.game_id == game))
    rows = [{**x, "game_id": game} for x in lines]
    if rows:
        conn.execute(sa.insert(game_figures), rows)


class NewGame(NamedTuple):
    """A league game written just now: its outcome (None: it counts for nobody) and its meeting's teams."""

    outcome: str | None
    team_a: int
    team_b: int | None


Sums = dict[tuple[int, str], dict[str, Any]]  # a team's lines, by (team, player): its own, each player's


def _counted(new: list[tuple[int, list[dict[str, Any]], NewGame]]) -> list[tuple[list[dict[str, Any]], NewGame]]:
    return [(lines, r) for _, lines, r in new if r.outcome is not None and r.team_b is not None]


def _sums_of_games(conn: Connection, new: list[tuple[int, list[dict[str, Any]], NewGame]]) -> Sums:
    """The sums that these new games (as ``add_games`` takes them) add to, as held now."""
    teams = sorted({t for _, r in _counted(new) for t in (r.team_a, r.team_b) if t is not None})
    if not teams:
        return {}  # none counting for anybody: no sum changes, nothing read
    return {(r.team_id, r.player): dict(r._mapping) for r in conn.execute(_SUMS_OF_TEAMS, {"teams": teams})}


def add_games(conn: Connection, new: list[tuple[int, list[dict[str, Any]], NewGame]]) -> None:
    """Games' first lines written, and added to their teams' sums: what ``sum_teams`` would write for
    them, without summing again every game they played; each (game, its lines, its result as just
    written). Only for games new to the sums (no lines yet, their results just written); any other
    change sums again (``write_result``). A few statements for all, whatever their number."""
    held = _sums_of_games(conn, new)
    rows = [{**x, "game_id": game} for game, lines, _ in new for x in lines]
    if rows:
        conn.execute(_ADD_LINES, rows)
    counted = _counted(new)
    if not counted:
        return  # counting for nobody: no sum changes
    fresh: dict[tuple[int, str], dict[str, Any]] = {}
    changed: set[tuple[int, str]] = set()
    for lines, row in counted:
        for key, more in _added(lines, row).items():
            was = held.get(key) or fresh.get(key)
            if was is None:
                fresh[key] = {"team_id": key[0], "player": key[1], **more}
                continue
            for k, v in more.items():
                was[k] = max(was[k], v) if k == "biggest" else was[k] + v
            if key in held:
                changed.add(key)
    if fresh:
        conn.execute(_ADD_SUMS, list(fresh.values()))
    if changed:
        sums = [held[key] for key in sorted(changed)]
        conn.execute(
            _ADD,
            [{"at_team": x["team_id"], "at_player": x["player"], **{f"new_{k}": x[k] for k in _SUMMED}} for x in sums],
        )


def _added(lines: list[dict[str, Any]], row: NewGame) -> dict[tuple[int, str], dict[str, int]]:
    """What a counted game adds to each line of its teams' sums (a team's own, each player's)."""
    result = {"games": 1, "tied": int(row.outcome == "tie")}
    added: dict[tuple[int, str], dict[str, int]] = {}
    for x in lines:  # a player's line counts the game too; a team's line takes its games from the result
        figures = {k: x[k] for k in HAND_FIGURES}
        if x["player"] != TEAM_LINE:
            figures.update(result, won=int(row.outcome == x["side"]))
        added[(x["team_id"], x["player"])] = figures
    for team, side in ((row.team_a, "a"), (row.team_b, "b")):
        assert team is not None
        line = added.setdefault((team, TEAM_LINE), dict.fromkeys(HAND_FIGURES, 0))
        line.update(result, won=int(row.outcome == side))
    return added


_SUMMED = ("games", "won", "tied", *HAND_FIGURES)  # every line added to has all of them
# A batch of results' statements, built once (their lists as expanding parameters), not on every batch.
_ADD_LINES = sa.insert(game_figures)
_ADD_SUMS = sa.insert(team_figures)
_SUMS_OF_TEAMS = sa.select(team_figures).where(team_figures.c.team_id.in_(sa.bindparam("teams", expanding=True)))
_ADD = (
    sa.update(team_figures)
    .where(team_figures.c.team_id == sa.bindparam("at_team"), team_figures.c.player == sa.bindparam("at_player"))
    .values({k: sa.bindparam(f"new_{k}") for k in _SUMMED})
)


def clear(conn: Connection) -> None:
    conn.execute(sa.delete(game_figures))


def sum_game(conn: Connection, game: int) -> None:
    """The sums of a game's two teams, written again (after its result or its figures changed)."""
    row = conn.execute(
        sa.select(meetings.c.team_a, meetings.c.team_b)
        .join(games, games.c.meeting_id == meetings.c.id)
        .where(games.c.id == game)
    ).first()
    if row is not None:
        sum_teams(conn, [t for t in row if t is not None])


def sum_teams(conn: Connection, ids: Sequence[int] | None = None) -> None:
    """Teams' sums (every team's when ``ids`` is None) written again from the games that count and their
    figures: a team's games, wins and ties from every game, the rest from the kiosk games."""
    f, chosen = game_figures.c, list(ids) if ids is not None else None
    if chosen is not None:
        conn.execute(sa.delete(team_figures).where(team_figures.c.team_id.in_(chosen)))
    else:
        conn.execute(sa.delete(team_figures))
    q = (
        sa.select(
            f.team_id,
            f.player,
            sa.func.count().label("games"),
            sa.func.sum(sa.case((games.c.outcome == f.side, 1), else_=0)).label("won"),
            sa.func.sum(sa.case((games.c.outcome == "tie", 1), else_=0)).label("tied"),
            *(sa.func.max(f[k]).label(k) if k == "biggest" else sa.func.sum(f[k]).label(k) for k in HAND_FIGURES),
        )
        .join(games, games.c.id == f.game_id)
        .where(games.c.outcome.is_not(None))
        .group_by(f.team_id, f.player)
    )
    if chosen is not None:
        q = q.where(f.team_id.in_(chosen))
    rows = {(r.team_id, r.player): dict(r._mapping) for r in conn.execute(q)}
    for team, (played, won, tied) in _results(conn, chosen).items():
        empty = {"team_id": team, "player": TEAM_LINE, **dict.fromkeys(HAND_FIGURES, 0)}
        line = rows.setdefault((team, TEAM_LINE), empty)
        line.update(games=played, won=won, tied=tied)
    out = [{k: int(v) if k != "player" else v for k, v in r.items()} for r in rows.values()]
    for start in range(0, len(out), 1000):
        conn.execute(sa.insert(team_figures), out[start : start + 1000])


def _results(conn: Connection, ids: list[int] | None) -> dict[int, tuple[int, int, int]]:
    """Each team's games, games won and games tied, over every game that counts (kiosk or by hand)."""
    out: dict[int, tuple[int, int, int]] = {}
    for side, mine in (("team_a", "a"), ("team_b", "b")):
        team = meetings.c[side]
        q = (
            sa.select(
                team,
                sa.func.count(),
                sa.func.sum(sa.case((games.c.outcome == mine, 1), else_=0)),
                sa.func.sum(sa.case((games.c.outcome == "tie", 1), else_=0)),
            )
            .join(games, games.c.meeting_id == meetings.c.id)
            .where(games.c.outcome.is_not(None))
            .group_by(team)
        )
        if ids is not None:
            q = q.where(team.in_(ids))
        for t, played, won, tied in conn.execute(q):
            was = out.get(t, (0, 0, 0))
            out[t] = (was[0] + played, was[1] + int(won or 0), was[2] + int(tied or 0))
    return out


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


def meeting_teams(conn: Connection, meeting: int) -> tuple[int, int | None] | None:
    row = conn.execute(sa.select(meetings.c.team_a, meetings.c.team_b).where(meetings.c.id == meeting)).first()
    return None if row is None else (row[0], row[1])


def rosters(conn: Connection, ids: Sequence[int]) -> dict[int, list[str]]:
    """Teams by id: their players and substitutes as stored (JSON texts)."""
    if not ids:
        return {}
    return {r.id: [r.players, r.substitutes] for r in conn.execute(_ROSTERS, {"ids": list(ids)})}


_ROSTERS = sa.select(teams.c.id, teams.c.players, teams.c.substitutes).where(
    teams.c.id.in_(sa.bindparam("ids", expanding=True))
)


def season_teams(conn: Connection, seasons: Sequence[int]) -> list[dict[str, Any]]:
    """The seasons' teams: id, name, season."""
    q = (
        sa.select(teams.c.id, teams.c.name, divisions.c.season_id)
        .join(divisions, divisions.c.id == teams.c.division_id)
        .where(divisions.c.season_id.in_(list(seasons)))
        .order_by(teams.c.id)
    )
    return [dict(r._mapping) for r in conn.execute(q)]


def sums(conn: Connection, team_ids: Sequence[int]) -> list[dict[str, Any]]:
    """The teams' own lines and their players' (``player`` TEAM_LINE for a team's own)."""
    q = sa.select(team_figures).where(team_figures.c.team_id.in_(list(team_ids)))
    return [dict(r._mapping) for r in conn.execute(q)]
