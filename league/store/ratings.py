"""Every SQL statement the players' ratings read: a league's games that count, in the order they
were played, each with who sat for each side (the kiosk game's seats, else the team's two players)."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from league.store.stats import TEAM_LINE, game_figures
from league.store.tables import divisions, events, games, meetings, player_merges, rounds, seasons, teams

_GAMES = (
    sa.select(
        games.c.id,
        games.c.outcome,
        games.c.points_a,
        games.c.points_b,
        sa.func.coalesce(meetings.c.date, rounds.c.date).label("night"),
        meetings.c.team_a,
        meetings.c.team_b,
        seasons.c.id.label("season"),
    )
    .join(meetings, meetings.c.id == games.c.meeting_id)
    .join(rounds, rounds.c.id == meetings.c.round_id)
    .join(divisions, divisions.c.id == rounds.c.division_id)
    .join(seasons, seasons.c.id == divisions.c.season_id)
    .where(seasons.c.league_id == sa.bindparam("league"), games.c.outcome.is_not(None), meetings.c.team_b.is_not(None))
    .order_by(sa.func.coalesce(meetings.c.date, rounds.c.date), games.c.id)
)


def rated_games(conn: Connection, league: int) -> list[dict[str, Any]]:
    """The league's games that count (round robin and playoffs, rulings as ruled), oldest first: id,
    outcome (a, b or tie), points_a, points_b, night, season, and ``players``: the names that sat for
    team a and for team b (a kiosk game's seats as the league keeps them; a game recorded by hand,
    its teams' two registered players)."""
    rows = [dict(r._mapping) for r in conn.execute(_GAMES, {"league": league})]
    seated: dict[int, dict[str, list[str]]] = {}
    ids = [r["id"] for r in rows]
    for start in range(0, len(ids), 1000):
        q = sa.select(game_figures.c.game_id, game_figures.c.side, game_figures.c.player).where(
            game_figures.c.game_id.in_(ids[start : start + 1000]), game_figures.c.player != TEAM_LINE
        )
        for game, side, player in conn.execute(q.order_by(game_figures.c.game_id, game_figures.c.player)):
            seated.setdefault(game, {"a": [], "b": []})[side].append(player)
    pairs = {t.id: json.loads(t.players) for t in conn.execute(sa.select(teams.c.id, teams.c.players))}
    for r in rows:
        sat = seated.get(r["id"])
        if sat is None or not sat["a"] or not sat["b"]:
            sat = {"a": list(pairs.get(r["team_a"], [])), "b": list(pairs.get(r["team_b"], []))}
        r["players"] = (sat["a"], sat["b"])
    return rows


def version(conn: Connection) -> int:
    """The league's newest event. The ratings read a game's result and who sat: a result comes and
    changes only with an event, and who sat at a kiosk game is fixed when it starts (its first event
    at the league comes with its result's); a rebuild writes the same from the same events. So
    ratings worked out at one version hold until the next."""
    return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(events.c.id), 0))).scalar_one())


def merges(conn: Connection, league: int) -> dict[str, tuple[str, str]]:
    """The organiser's merges in a league: each name (as compared) -> the player it is (as compared,
    and as the organiser spelled them)."""
    c = player_merges.c
    q = sa.select(c.name, c.into, c.into_name).where(c.league_id == league)
    return {r.name: (r.into, r.into_name) for r in conn.execute(q)}
