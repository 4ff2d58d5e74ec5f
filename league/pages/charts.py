"""The charts' addresses: each an SVG image that the season's and a team's pages show with ``<img>``.

``/divisions/{id}/race.svg``  the place of each team after each round
``/teams/{id}/points.svg``    the team's game points and its opponents', game by game
``/teams/{id}/makes.svg``     how often each of its players made trump good (games played at a kiosk)
``/leagues/{id}/ratings.svg`` the best eight players' ratings, night by night
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from league.organiser.ratings import ratings_in
from league.organiser.season import read_settings
from league.results import charts
from league.results.standings_view import make_rates, race_of, team_games
from league.store.core import Reader, Store

TREND_PLAYERS = 8  # lines a chart can tell apart by colour and legend


def _id(request: Request, key: str) -> int | None:
    text = request.path_params.get(key, "")
    return int(text) if text.isdigit() and len(text) < 10 else None


class ChartPages:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _chart(self, request: Request, key: str, draw: Callable[[Reader, int], Any | None]) -> Response:
        id_ = _id(request, key)
        with self.store.read() as r:
            chart = draw(r, id_) if id_ is not None else None
        if chart is None:
            return PlainTextResponse("There is no such chart.\n", 404)
        body, policy = charts.rendered(chart)
        headers = {"cache-control": "no-cache", "content-security-policy": policy}
        return Response(body, media_type="image/svg+xml", headers=headers)

    def race(self, request: Request) -> Response:
        def draw(r: Reader, division: int) -> Any | None:
            d = r.division(division)
            season = r.season(d["season_id"]) if d else None
            if season is None:
                return None
            settings = read_settings(json.loads(season["settings"]))
            run = race_of(r, division, settings)
            return charts.race(run["rounds"], run["positions"], run["teams"])

        return self._chart(request, "division", draw)

    def points(self, request: Request) -> Response:
        def draw(r: Reader, team: int) -> Any | None:
            if r.team(team) is None:
                return None
            games = team_games(r, team)
            return charts.points(
                [g["label"] for g in games], [g["scored"] for g in games], [g["conceded"] for g in games]
            )

        return self._chart(request, "team", draw)

    def makes(self, request: Request) -> Response:
        def draw(r: Reader, team: int) -> Any | None:
            if r.team(team) is None:
                return None
            rates = make_rates(r, team)
            return charts.make_rate(rates["labels"], rates["rates"])

        return self._chart(request, "team", draw)

    def ratings(self, request: Request) -> Response:
        def draw(r: Reader, league: int) -> Any | None:
            if r.league(league) is None:
                return None
            best = ratings_in(r, league).table()[:TREND_PLAYERS]
            nights = sorted({night for x in best for night, _ in x.history})
            trend: dict[str, list[float | None]] = {}
            for x in best:
                after = dict(x.history)  # a night's last game wins: the rating as the night ended
                line: list[float | None] = []
                for n in nights:  # a night without a game of theirs: the rating they had
                    line.append(round(after[n], 1) if n in after else (line[-1] if line else None))
                trend[x.name] = line
            return charts.ratings_trend(nights, trend)

        return self._chart(request, "league", draw)

    def routes(self) -> list[Route]:
        return [
            Route("/leagues/{league}/ratings.svg", self.ratings),
            Route("/divisions/{division}/race.svg", self.race),
            Route("/teams/{team}/points.svg", self.points),
            Route("/teams/{team}/makes.svg", self.makes),
        ]
