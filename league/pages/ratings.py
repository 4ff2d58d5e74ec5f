"""A league's players rated (``/leagues/{id}/ratings``): rank, player, rating with its range, games
rated and won, best first; and each player's page (``/leagues/{id}/players/{name}``): their partners
and record with each, and the rating after each game. Links only, no JavaScript, narrow enough for a
phone."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from engine.text import MAX_NAME
from league.organiser.ratings import RANGE, Ratings, league_ratings
from league.organiser.season import LeagueRefused
from league.pages.kit import not_found, number_param, render
from league.store.core import Store
from league.store.rows import LeagueRow


class RatingsPages:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _rated(self, request: Request) -> tuple[LeagueRow, Ratings] | None:
        """The league the address names and its ratings; None for no such league."""
        id_ = number_param(request, "league")
        try:
            return league_ratings(self.store, id_) if id_ is not None else None
        except LeagueRefused:
            return None

    def league(self, request: Request) -> HTMLResponse:
        found = self._rated(request)
        if found is None:
            return not_found(request, "such league")
        league, rated = found
        return render(request, "ratings.html", league=league, players=rated.table(), spread=RANGE)

    def player(self, request: Request) -> HTMLResponse:
        found = self._rated(request)
        if found is None:
            return not_found(request, "such league")
        league, rated = found
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
