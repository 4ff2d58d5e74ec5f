"""The public pages, read-only: the leagues and their seasons, a division's standings, schedule and
playoffs, each team's games, and a game's result (with its sheet and replay for a kiosk game)."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from league.organiser.actions import Organiser
from league.organiser.ratings import KeptRatings
from league.organiser.season import read_settings
from league.pages.kit import (
    CHART_POLICY,
    NOT_ENDED,
    ON_ITS_WAY,
    RANKING,
    TIE_BREAKER,
    division_context,
    not_found,
    number_param,
    render,
    result_text,
)
from league.results.game_page import game_view
from league.results.standings_view import division_view, make_rates, team_games
from league.store import kiosks as ks
from league.store.core import Store


class Pages:
    """The public pages over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.organiser = Organiser(store)
        self.ratings = KeptRatings(store)

    def index(self, request: Request) -> HTMLResponse:
        with self.store.read() as r:
            leagues = [{**lg, "seasons": r.seasons(lg["id"])} for lg in r.leagues()]
        return render(request, "index.html", leagues=leagues)

    def season(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "season")
        with self.store.read() as r:
            season = r.season(id_) if id_ is not None else None
            if season is None:
                return not_found(request, "such season")
            league = r.league(season["league_id"])
            settings = read_settings(json.loads(season["settings"]))
            shown = [
                division_view(r, d, settings) | {"playoffs": r.playoffs(d["id"]) is not None}
                for d in r.divisions(season["id"])
            ]
        response = render(
            request,
            "season.html",
            season=season,
            league=league,
            divisions=shown,
            ranking=RANKING.get(settings.ranking, settings.ranking),
            # A tie-breaker that is the ranking itself decides nothing more: not said again.
            tie_breakers=", ".join(TIE_BREAKER.get(t, t) for t in settings.tie_breakers if t != settings.ranking)
            or "nothing",
            games_per_meeting=settings.games_per_meeting,
        )
        response.headers["content-security-policy"] = CHART_POLICY.decode()
        return response

    def schedule(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "division")
        with self.store.read() as r:
            context = division_context(r, id_) if id_ is not None else None
            pairs = {t["id"]: json.loads(t["players"]) for t in r.teams(id_)} if context and id_ else {}
        if context is None:
            return not_found(request, "such division")
        rated = self.ratings.of(context["season"]["league_id"])
        for round_ in context["rounds"]:
            for m in round_["meetings"]:
                if m["bye"] or m["games"] or m["forfeit"]:
                    continue  # only a meeting still to play: who the ratings favour, once they know anyone
                a, b = pairs.get(m["a_id"], []), pairs.get(m["b_id"], [])
                m["chance"] = rated.shares(a, b)
        return render(request, "schedule.html", **context)

    def playoffs(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "division")
        with self.store.read() as r:
            division = r.division(id_) if id_ is not None else None
            if division is None:
                return not_found(request, "such division")
            season = r.season(division["season_id"])
            made = r.playoffs(division["id"]) is not None
        assert season is not None  # a division is written after its season
        if not made:
            back = f"/seasons/{season['id']}"
            message = f"{division['name']} has no playoffs."
            return render(request, "message.html", 404, heading="No playoffs", message=message, back=back)
        view = self.organiser.bracket(division["id"])
        for round_ in view["rounds"]:
            for m in round_["matches"]:
                for g in m["games"]:
                    g["result"] = result_text(g["outcome"], m["a"]["name"] or "?", m["b"]["name"] or "?")
        return render(request, "playoffs.html", **(view | {"season": season, "division": division}))

    def team(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "team")
        with self.store.read() as r:
            team = r.team(id_) if id_ is not None else None
            if team is None:
                return not_found(request, "such team")
            context = division_context(r, team["division_id"])
            assert context is not None
            settings = read_settings(json.loads(context["season"]["settings"]))
            line = next(
                x for x in division_view(r, context["division"], settings)["rows"] if x["line"].team == team["id"]
            )
            games = team_games(r, team["id"])
            makers = make_rates(r, team["id"])
        mine = [
            (round_["number"], m)
            for round_ in context["rounds"]
            for m in round_["meetings"]
            if team["id"] in (m["a_id"], m.get("b_id"))
        ]
        response = render(
            request,
            "team.html",
            team=team,
            players=" and ".join(json.loads(team["players"])),
            substitutes=", ".join(json.loads(team["substitutes"])),
            season=context["season"],
            division=context["division"],
            meetings=mine,
            line=line,
            charted=bool(games),
            makers=makers,
        )
        response.headers["content-security-policy"] = CHART_POLICY.decode()
        return response

    def game(self, request: Request) -> HTMLResponse:
        id_ = number_param(request, "game")
        with self.store.read() as r:
            view = game_view(r, id_) if id_ is not None else None
        if view is None:
            return not_found(request, "such game")
        return render(request, "game.html", g=view)

    def kiosk_game(self, request: Request) -> Response:
        """Where a kiosk's game-over QR code leads: the league's page of the game once it is a league
        game; until then a page saying it is on its way (the table sends it when the network lets it)."""
        kiosk, game = number_param(request, "kiosk"), number_param(request, "game")
        if kiosk is None or game is None:
            return not_found(request, "such kiosk game")
        with self.store.read() as r:
            known = ks.kiosk(r.conn, kiosk)
            bound = ks.bound_game(r.conn, kiosk, game) if known is not None else None
        if known is None:
            return not_found(request, "such kiosk game")
        if bound is not None and bound["league_game"] is not None:
            return RedirectResponse(f"/games/{bound['league_game']}", 303, headers={"cache-control": "no-cache"})
        if bound is None:
            heading, message = "On its way", ON_ITS_WAY
        else:
            heading, message = "At the league", f"This game has reached the league. {bound['note'] or NOT_ENDED}"
        return render(request, "message.html", heading=heading, message=message, back="/")

    def routes(self) -> list[Route]:
        return [
            Route("/", self.index),
            Route("/seasons/{season}", self.season),
            Route("/divisions/{division}/schedule", self.schedule),
            Route("/divisions/{division}/playoffs", self.playoffs),
            Route("/teams/{team}", self.team),
            Route("/games/{game}", self.game),
            Route("/k/{kiosk}/{game}", self.kiosk_game),
        ]
