"""The result pages phones open from the QR code: ``clabber serve``.

A process of its own that opens the database read-only: it can show a game, never change one.
Pages are found by each game's unguessable token; nothing lists games unless the configuration
allows the table's recent games (``/recent``, and their statistics at ``/stats``). Everything else
is a 404. The file is opened again when it is replaced (a restore) and stays readable when the kiosk
is stopped (see ``store.open_reader``). Folding and drawing a game runs in worker threads, so a big
game never holds up other pages; each state of a game is drawn once (``games.py``) and folded once
for the statistics. The server around it (deadlines, limits) is shared/http/server.py.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from kiosk.store import StoreError, is_damage
from kiosk.web.games import GamePages
from kiosk.web.reader import Reader
from kiosk.web.site import Site
from shared.http.headers import Hardened, content_security_policy
from shared.http.server import guarded_server, run
from shared.stats import Tally, as_cells, view

__all__ = ["ResultPages", "Site", "create_app", "serve"]

HERE = Path(__file__).parent
RENDER_THREADS = 2  # games drawn at once; more would only take turns for the same cores
GAME_CACHE = "no-cache"  # a game changes with every hand: ask again, never show a stale sheet
STATIC_CACHE = "public, max-age=3600"
log = logging.getLogger("kiosk.web")

Answer = Callable[[Request], Awaitable[Response]]


class ResultPages:
    """The pages over a read-only connection to the kiosk's database: a game's, the recent games',
    their statistics, the offline viewer."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.templates = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"])
        )
        self.reader = Reader(site.db)
        self.games = GamePages(site, self.templates, self.reader)
        self.tally, self.tallying = Tally(), threading.Lock()  # each game's figures, folded once
        self.reader.on_reopen = self._reopened
        self.render: anyio.CapacityLimiter | None = None  # made in the server's event loop

    def _reopened(self) -> None:  # another file may hold other games under the same numbers
        self.games.clear()
        with self.tallying:
            self.tally.clear()

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.render = anyio.CapacityLimiter(RENDER_THREADS)
        with contextlib.suppress(StoreError):  # not set up yet, damaged: the first page says so
            self.reader.store()
        yield
        self.reader.drop()

    def routes(self) -> list[Route]:
        return [
            Route("/g/{token}", self._guarded(self.game)),
            Route("/recent", self._guarded(self.recent)),
            Route("/stats", self._guarded(self.stats)),
            Route("/view", self.viewer),
        ]

    def _guarded(self, answer: Answer) -> Answer:
        """Answers with the database's trouble in words rather than as a missing page."""

        async def guarded(request: Request) -> Response:
            try:
                return await answer(request)
            except StoreError as e:
                self.reader.drop()
                if is_damage(e):
                    log.error("the database cannot be read: %s", e)
                    return self.page("damaged.html", 503, {"Retry-After": "300"})
                return self.page("busy.html", 503, {"Retry-After": "30"})  # not there yet, locked, replaced

        return guarded

    def _limiter(self) -> anyio.CapacityLimiter:
        assert self.render is not None, "the pages answer inside their lifespan (uvicorn starts it)"
        return self.render

    def page(self, name: str, status: int, headers: dict[str, str] | None = None) -> Response:
        html = self.templates.get_template(name).render(site=self.site)
        return HTMLResponse(html, status_code=status, headers=headers)

    def not_found(self) -> Response:
        return self.page("404.html", 404)

    async def missing(self, request: Request, exc: Exception) -> Response:
        return self.not_found()

    async def game(self, request: Request) -> Response:
        token = request.path_params["token"]
        as_json = token.endswith(".json")
        found = await self.games.page_of(token[:-5] if as_json else token, self._limiter())
        if found is None:
            return self.not_found()
        if found["html"] is None:
            return self.page("attention.html", 503)
        if as_json:
            return Response(found["json"], media_type="application/json", headers={"Cache-Control": GAME_CACHE})
        return Response(found["html"], media_type="text/html; charset=utf-8", headers={"Cache-Control": GAME_CACHE})

    async def recent(self, request: Request) -> Response:
        if not self.site.show_recent:
            return self.not_found()
        rows = self.reader.store().games(limit=30)
        html = self.templates.get_template("recent.html").render(games=rows, site=self.site)
        return HTMLResponse(html, headers={"Cache-Control": GAME_CACHE})

    async def stats(self, request: Request) -> Response:
        if not self.site.show_recent:
            return self.not_found()
        store = self.reader.store()
        versions = store.finished_games()
        logs = [store.events(g) for g in self.tally.stale(versions)]  # SQL here: the connection is this thread's
        q = request.query_params

        def work() -> str:
            with self.tallying:  # one request at a time folds and sums
                for log in logs:
                    if log:
                        self.tally.fold(log)
                teams, players = self.tally.lines(versions)
            page = as_cells(view(teams, players, q.get("sort"), q.get("min"), q.get("all")))
            return self.templates.get_template("stats.html").render(site=self.site, games=len(versions), **page)

        html = await anyio.to_thread.run_sync(work, limiter=self._limiter())
        return HTMLResponse(html, headers={"Cache-Control": GAME_CACHE})

    async def viewer(self, request: Request) -> Response:
        cache = {"Cache-Control": STATIC_CACHE}
        return FileResponse(HERE / "static" / "view.html", media_type="text/html", headers=cache)


def create_app(site: Site) -> Hardened:
    """The web application over a read-only connection to the kiosk's database."""
    pages = ResultPages(site)
    app = Starlette(
        routes=pages.routes(),
        lifespan=pages.lifespan,
        exception_handlers={404: pages.missing, 405: pages.missing},
    )
    app.router.redirect_slashes = False  # "/g/x/" is simply not a page
    sources = [(HERE / "templates" / "base.html").read_text(), (HERE / "static" / "view.html").read_text()]
    return Hardened(app, content_security_policy(sources))


def serve(site: Site, host: str, port: int) -> None:
    """Serves the result pages until stopped."""
    run(*guarded_server(create_app(site), host, port))
