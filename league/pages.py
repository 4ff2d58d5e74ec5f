"""The league's web pages: public, read-only standings, schedules and each team's games, and the
organiser's signed-in pages (league/organiser_pages.py, league/kiosk_pages.py). ``make_app`` builds
the Starlette app that ``clabber league serve`` mounts.

Everything shown is escaped (team and player names are anyone's input); no page needs JavaScript.
Every response carries the result server's security headers, with a policy that allows the one
inline style block of these pages and forms posted to this site only.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from kiosk.web.headers import Hardened, content_security_policy
from league import kiosk_store as ks
from league.game_page import game_view
from league.organiser import Organiser
from league.season import read_settings
from league.standings_view import division_view, make_rates, team_games
from league.store import Reader, Store, StoreTrouble

if TYPE_CHECKING:
    from league.board_feed import Boards

TEMPLATES = Path(__file__).with_name("templates")
log = logging.getLogger("league.pages")
PAGE_CACHE = b"no-cache"  # results change on league nights: ask again each time
RANKING = {"games_won": "games won (a tie counts half)", "game_points": "game points"}
ON_ITS_WAY = (
    "This game is on its way to the league: the table sends it as soon as its network lets it. "
    "Open this page again in a minute."
)
NOT_ENDED = "Its result shows here once the table has ended it."
TIE_BREAKER = {"game_points": "game points", "point_difference": "point difference", "head_to_head": "head to head"}

environment = Environment(
    loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True), auto_reload=False
)


def policy() -> bytes:
    """The result server's policy for the inline style of base.html, with forms allowed to post here."""
    csp = content_security_policy([(TEMPLATES / "base.html").read_text()])
    return csp.replace(b"form-action 'none'", b"form-action 'self'")


CHART_POLICY = policy() + b"; img-src 'self'"  # the pages with charts: images of this site


def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    body = environment.get_template(name).render(**context)
    return HTMLResponse(body, status, headers={"cache-control": PAGE_CACHE.decode()})


def not_found(request: Request, what: str) -> HTMLResponse:
    return render(request, "message.html", 404, heading="Not found", message=f"There is no {what}.", back="/")


def unavailable(request: Request, _trouble: Exception) -> HTMLResponse:
    """Any page whose database cannot be used now (down, restarted, locked): a 503 in words, retried
    by the browser's reload; the reason goes to the log, not to the public."""
    log.warning("a page could not use the database: %s", _trouble)
    response = render(
        request,
        "message.html",
        503,
        heading="Try again in a minute",
        message="The league's database cannot be used just now.",
        back="/",
    )
    response.headers["retry-after"] = "60"
    response.headers["cache-control"] = "no-store"
    return response


def _int(request: Request, key: str) -> int | None:
    text = request.path_params.get(key, "")
    return int(text) if text.isdigit() and len(text) < 10 else None


def result_text(outcome: str | None, a: str, b: str) -> str:
    return {"a": f"{a} won", "b": f"{b} won", "tie": "tied", None: "abandoned, counts for nobody"}.get(
        outcome, "abandoned"
    )


def meeting_view(r: Reader, m: dict[str, Any], names: dict[int, str], venues: dict[int, str]) -> dict[str, Any]:
    """What the pages show of one meeting (a bye, or two teams with their games and any forfeit)."""
    a, b = names.get(m["team_a"], "?"), names.get(m["team_b"], "?")
    view: dict[str, Any] = {"id": m["id"], "a": a, "a_id": m["team_a"], "bye": m["team_b"] is None}
    if view["bye"]:
        return view
    view |= {
        "b": b,
        "b_id": m["team_b"],
        "date": m["date"] or m["round_date"],
        "moved": "" if not m["date"] or m["date"] == m["round_date"] else f"from {m['round_date']}",
        "venue": venues.get(m["venue_id"], ""),
        "venue_id": m["venue_id"],
        "table": m["table_number"],
        "forfeit": names.get(m["forfeit_team"], "") if m["forfeit_team"] is not None else "",
        "forfeit_reason": m["forfeit_reason"] or "",
        "games": [
            {
                "id": g["id"],
                "number": g["number"],
                "points_a": g["points_a"],
                "points_b": g["points_b"],
                "result": result_text(g["outcome"], a, b),
                "ruled": g["ruled_reason"] or "",
                "note": g["note"] or "",
            }
            for g in r.games(m["id"])
        ],
    }
    return view


def division_context(r: Reader, division: int) -> dict[str, Any] | None:
    """The division, its season and league, team and venue names, and its rounds with their meetings."""
    d = r.division(division)
    if d is None:
        return None
    season = r.season(d["season_id"])
    assert season is not None  # a division is written after its season
    names = {t["id"]: t["name"] for t in r.teams(division)}
    venues = {v["id"]: v["name"] for v in r.venues(season["league_id"])}
    rounds: dict[int, dict[str, Any]] = {
        x["number"]: {"number": x["number"], "date": x["date"], "stage": x["stage"], "meetings": []}
        for x in r.rounds(division)
    }
    for m in r.meetings(division):
        rounds[m["round"]]["meetings"].append(meeting_view(r, m, names, venues))
    return {"division": d, "season": season, "names": names, "rounds": list(rounds.values())}


class Pages:
    """The public pages over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.organiser = Organiser(store)

    def index(self, request: Request) -> HTMLResponse:
        with self.store.read() as r:
            leagues = [{"id": lg["id"], "name": lg["name"], "seasons": r.seasons(lg["id"])} for lg in r.leagues()]
        return render(request, "index.html", leagues=leagues)

    def season(self, request: Request) -> HTMLResponse:
        id_ = _int(request, "season")
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
            tie_breakers=", ".join(TIE_BREAKER.get(t, t) for t in settings.tie_breakers) or "nothing",
            games_per_meeting=settings.games_per_meeting,
        )
        response.headers["content-security-policy"] = CHART_POLICY.decode()
        return response

    def schedule(self, request: Request) -> HTMLResponse:
        id_ = _int(request, "division")
        with self.store.read() as r:
            context = division_context(r, id_) if id_ is not None else None
        if context is None:
            return not_found(request, "such division")
        return render(request, "schedule.html", **context)

    def playoffs(self, request: Request) -> HTMLResponse:
        id_ = _int(request, "division")
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
        id_ = _int(request, "team")
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
        id_ = _int(request, "game")
        with self.store.read() as r:
            view = game_view(r, id_) if id_ is not None else None
        if view is None:
            return not_found(request, "such game")
        return render(request, "game.html", g=view)

    def kiosk_game(self, request: Request) -> Response:
        """Where a kiosk's game-over QR code leads: the league's page of the game once it is a league
        game; until then a page saying it is on its way (the table sends it when the network lets it)."""
        kiosk, game = _int(request, "kiosk"), _int(request, "game")
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


def make_app(
    store: Store,
    *,
    secure_cookies: bool = False,
    clock: Callable[[], float] | None = None,
    boards: Boards | None = None,
    public_url: str | None = None,
    changed: Callable[[int | None], None] | None = None,
) -> Any:
    """The public and the organiser's pages as one ASGI app, with the security headers on every response.

    ``secure_cookies``: the site is reached over https (behind a TLS proxy), so cookies say Secure.
    ``boards``: the open venue boards, which the kiosk API's pushes also tell (``clabber league serve``
    shares one between the two); ``public_url``: where phones reach this site, for the board's QR code
    (default: the address the board was opened at); ``changed``: what an organiser's form tells of a
    change (default: these boards; with several server processes, every process's, league/board_news.py).
    """
    from league.board_pages import BoardPages
    from league.chart_pages import ChartPages
    from league.export_pages import ExportPages
    from league.kiosk_pages import KioskPages
    from league.kiosks import Kiosks
    from league.organiser_pages import OrganiserPages
    from league.stats_pages import StatsPages

    board = BoardPages(store, boards, public_url)
    tell = changed or board.boards.changed
    organiser = OrganiserPages(store, secure_cookies=secure_cookies, clock=clock, changed=lambda: tell(None))
    charts = ChartPages(store)
    routes = [
        *Pages(store).routes(),
        *organiser.routes(),
        *KioskPages(organiser, Kiosks(store)).routes(),
        *board.routes(),
        *charts.routes(),
        *StatsPages(store).routes(),
        *ExportPages(store).routes(),
    ]
    return Hardened(Starlette(routes=routes, exception_handlers={StoreTrouble: unavailable}), policy())
