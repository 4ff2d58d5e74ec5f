"""The league's statistics pages: a season's (``/seasons/{id}/stats``) and all a league's seasons'
(``/leagues/{id}/stats``), teams and players as leaderboards sorted by any figure (``?sort=``), with a
minimum of games to be listed (``?min=``, default 3), the first 50 of each unless ``?all=1``. Links
only, no JavaScript; each group of figures is a table narrow enough for a phone."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from league.organiser.season import LeagueRefused
from league.pages.kit import not_found, number_param, render
from league.results.stats import league_stats, season_stats
from league.store.core import Store
from shared.stats import Line, as_cells, view


def _view(request: Request, teams: list[Line], players: list[Line]) -> dict[str, Any]:
    q = request.query_params
    return as_cells(view(teams, players, q.get("sort"), q.get("min"), q.get("all")))


class StatsPages:
    def __init__(self, store: Store) -> None:
        self.store = store

    def season(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "season")
        try:
            if id_ is None:
                raise LeagueRefused("no season")
            about, stats = season_stats(self.store, id_)
        except LeagueRefused:
            return not_found(request, "such season")
        s, league = about["season"], about["league"]
        return render(
            request,
            "stats.html",
            title=f"{league['name']}: {s['name']}",
            back=(f"/seasons/{s['id']}", f"{s['name']}: standings"),
            other=(f"/leagues/{league['id']}/stats", "every season"),
            **_view(request, stats.teams, stats.players),
        )

    def league(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "league")
        try:
            if id_ is None:
                raise LeagueRefused("no league")
            about, stats = league_stats(self.store, id_)
        except LeagueRefused:
            return not_found(request, "such league")
        league = about["league"]
        return render(
            request,
            "stats.html",
            title=f"{league['name']}: every season",
            back=("/", "Leagues"),
            other=None,
            all_time=True,
            **_view(request, stats.teams, stats.players),
        )

    def routes(self) -> list[Route]:
        return [
            Route("/seasons/{season}/stats", self.season),
            Route("/leagues/{league}/stats", self.league),
        ]
