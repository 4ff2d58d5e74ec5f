"""A league's players rated (``/leagues/{id}/ratings``): rank, player, rating with its range, games
rated and won, best first; and each player's page (``/leagues/{id}/players/{name}``): their partners
and record with each, and the rating after each game. Links only, no JavaScript, narrow enough for a
phone."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from engine.text import MAX_NAME
from league.organiser.ratings import RANGE, league_ratings
from league.organiser.season import LeagueRefused
from league.pages.kit import not_found, number_param, render
from league.store.core import Store


class RatingsPages:
    def __init__(self, store: Store) -> None:
        self.store = store

    def league(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "league")
        try:
            if id_ is None:
                raise LeagueRefused("no league")
            league, rated = league_ratings(self.store, id_)
        except LeagueRefused:
            return not_found(request, "such league")
        return render(request, "ratings.html", league=league, players=rated.table(), spread=RANGE)

    def player(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "league")
        try:
            if id_ is None:
                raise LeagueRefused("no league")
            league, rated = league_ratings(self.store, id_)
        except LeagueRefused:
            return not_found(request, "such league")
        line = rated.player(request.path_params["player"][:MAX_NAME])
        if line is None:
            return not_found(request, "such player in this league")
        partners = sorted(
            ((rated.name_of(k), games, won) for k, (games, won) in line.partners.items()), key=lambda x: (-x[1], x[0])
        )
        return render(request, "player.html", league=league, player=line, partners=partners, spread=RANGE)

    def routes(self) -> list[Route]:
        return [
            Route("/leagues/{league}/ratings", self.league),
            Route("/leagues/{league}/players/{player:path}", self.player),  # a name may hold a slash
        ]
