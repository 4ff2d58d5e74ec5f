"""The result pages phones open from the QR code: ``clabber serve``.

A process of its own that opens the database read-only: it can show a game, never change one.
Pages are found by each game's unguessable token; nothing lists games unless the configuration
allows the table's recent games (``/recent``, and their statistics at ``/stats``). Everything else
is a 404. The file is opened again when it is replaced (a restore) and stays readable when the kiosk
is stopped (see ``store.open_reader``). Folding and drawing a game runs in worker threads, so a big
game never holds up other pages; each state of a game is drawn once (and folded once for the
statistics). The server around it (deadlines, limits) is in server.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from engine.seats import SEAT_NAMES
from kiosk.store import Store, StoreError, is_damage, open_reader
from shared.events import GameEvent
from shared.game_state import GameState
from shared.http.headers import Hardened, content_security_policy
from shared.http.server import guarded_server, run
from shared.present import corrections_of, hand_summary, page_lines
from shared.present import rows as sheet_rows
from shared.share import qr_svg, result_of, result_url, viewer_link
from shared.stats import Tally, as_cells, view

HERE = Path(__file__).parent
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CACHE_GAMES = 256
RENDER_THREADS = 2  # games drawn at once; more would only take turns for the same cores
GAME_CACHE = "no-cache"  # a game changes with every hand: ask again, never show a stale sheet
STATIC_CACHE = "public, max-age=3600"

log = logging.getLogger("kiosk.web")


@dataclass(frozen=True)
class Site:
    """What the result pages need to know about the kiosk."""

    db: Path
    base_url: str  # where phones reach these pages
    viewer_url: str  # the static viewer that reads a result from the link itself
    table_name: str = ""
    show_recent: bool = False


class Reader:
    """The read-only connection, used in the event loop's thread only (where requests are
    answered); opened again when the file was replaced or could not be opened before."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store: Store | None = None
        self.generation = 0  # counts the files opened: a game's number means nothing across them
        self.on_reopen: Callable[[], None] = lambda: None

    def store(self) -> Store:
        if self._store is not None and self._store.replaced():
            self.drop()
        if self._store is None:
            self._store = open_reader(self.path)
            self.generation += 1
            self.on_reopen()
        return self._store

    def drop(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def create_app(site: Site) -> Hardened:
    """The web application over a read-only connection to the kiosk's database."""
    templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    games: OrderedDict[tuple[int, int, int], dict[str, Any]] = OrderedDict()  # (file, id, last_seq) -> page
    drawing: dict[tuple[int, int, int], asyncio.Future[dict[str, Any]]] = {}  # being drawn now
    reader = Reader(site.db)
    tally, tallying = Tally(), threading.Lock()  # the statistics' figures of each game, folded once

    def reopened() -> None:  # another file may hold other games under the same numbers
        games.clear()
        with tallying:
            tally.clear()

    reader.on_reopen = reopened
    threads: dict[str, anyio.CapacityLimiter] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        threads["render"] = anyio.CapacityLimiter(RENDER_THREADS)
        with contextlib.suppress(StoreError):  # not set up yet, damaged: the first page says so
            reader.store()
        yield
        reader.drop()

    def draw(events: list[GameEvent]) -> dict[str, Any]:
        """A game's page and record (in a worker thread: pure, no database)."""
        try:
            game = GameState.from_events(events)
            page = view_of(game, site)
            page["html"] = templates.get_template("game.html").render(**page, site=site).encode()
            page["json"] = json.dumps(page["json_record"], ensure_ascii=False).encode()
        except Exception as e:  # a log the fold refuses: the owner must look at it, the page says so
            log.error("game %d cannot be shown: %s", events[0].game if events else 0, e)
            return {"html": None, "why": str(e)}
        return page

    async def page_of(token: str) -> dict[str, Any] | None:
        """A game's page, drawn once for each state of the game (a new hand shows at once)."""
        if not TOKEN.match(token):
            return None
        store = reader.store()
        version = store.game_version(token)
        if version is None:
            return None
        key = (reader.generation, *version)
        if key in games:
            games.move_to_end(key)
            return games[key]
        pending = drawing.get(key)
        if pending is None:
            events = store.events(version[0])  # SQL here: the connection belongs to this thread
            pending = asyncio.ensure_future(anyio.to_thread.run_sync(draw, events, limiter=threads["render"]))
            drawing[key] = pending
            pending.add_done_callback(lambda _: drawing.pop(key, None))
        page = await asyncio.shield(pending)  # a phone that gives up does not cancel the others' page
        games[key] = page
        while len(games) > CACHE_GAMES:
            games.popitem(last=False)
        return page

    def page(name: str, status: int, headers: dict[str, str] | None = None) -> Response:
        return HTMLResponse(templates.get_template(name).render(site=site), status_code=status, headers=headers)

    async def guarded(request: Request, answer: Callable[[Request], Awaitable[Response]]) -> Response:
        """Answers with the database's trouble in words rather than as a missing page."""
        try:
            return await answer(request)
        except StoreError as e:
            reader.drop()
            if is_damage(e):
                log.error("the database cannot be read: %s", e)
                return page("damaged.html", 503, {"Retry-After": "300"})
            return page("busy.html", 503, {"Retry-After": "30"})  # not there yet, locked, being replaced

    async def game_page(request: Request) -> Response:
        return await guarded(request, _game_page)

    async def _game_page(request: Request) -> Response:
        token = request.path_params["token"]
        as_json = token.endswith(".json")
        found = await page_of(token[:-5] if as_json else token)
        if found is None:
            return not_found()
        if found["html"] is None:
            return page("attention.html", 503)
        if as_json:
            return Response(found["json"], media_type="application/json", headers={"Cache-Control": GAME_CACHE})
        return Response(found["html"], media_type="text/html; charset=utf-8", headers={"Cache-Control": GAME_CACHE})

    async def recent(request: Request) -> Response:
        return await guarded(request, _recent)

    async def _recent(request: Request) -> Response:
        if not site.show_recent:
            return not_found()
        rows = reader.store().games(limit=30)
        html = templates.get_template("recent.html").render(games=rows, site=site)
        return HTMLResponse(html, headers={"Cache-Control": GAME_CACHE})

    async def stats(request: Request) -> Response:
        return await guarded(request, _stats)

    async def _stats(request: Request) -> Response:
        if not site.show_recent:
            return not_found()
        store = reader.store()
        versions = store.finished_games()
        logs = [store.events(g) for g in tally.stale(versions)]  # SQL here: the connection belongs to this thread
        q = request.query_params

        def work() -> str:
            with tallying:  # one request at a time folds and sums
                for log in logs:
                    if log:
                        tally.fold(log)
                teams, players = tally.lines(versions)
            page = as_cells(view(teams, players, q.get("sort"), q.get("min"), q.get("all")))
            return templates.get_template("stats.html").render(site=site, games=len(versions), **page)

        html = await anyio.to_thread.run_sync(work, limiter=threads["render"])
        return HTMLResponse(html, headers={"Cache-Control": GAME_CACHE})

    async def viewer(request: Request) -> Response:
        cache = {"Cache-Control": STATIC_CACHE}
        return FileResponse(HERE / "static" / "view.html", media_type="text/html", headers=cache)

    def not_found() -> Response:
        return page("404.html", 404)

    async def missing(request: Request, exc: Exception) -> Response:
        return not_found()

    routes = [
        Route("/g/{token}", game_page),
        Route("/recent", recent),
        Route("/stats", stats),
        Route("/view", viewer),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: missing, 405: missing})
    app.router.redirect_slashes = False  # "/g/x/" is simply not a page
    sources = [(HERE / "templates" / "base.html").read_text(), (HERE / "static" / "view.html").read_text()]
    return Hardened(app, content_security_policy(sources))


def view_of(game: GameState, site: Site) -> dict[str, Any]:
    """Everything the result page shows of a game."""
    url = result_url(site.base_url, game.token)
    result = result_of(game, site.table_name)
    hands = [
        {
            "number": row.number,
            "lines": page_lines(entry.hand, game.rules),
            "summary": hand_summary(row),
            "corrected": bool(entry.corrections),
        }
        for row, entry in zip(game.sheet.rows, game.hands, strict=True)
    ]
    record = game.record()
    corrections = corrections_of(game)
    return {
        "game": game,
        "result": result,
        "rows": sheet_rows(game),
        "hands": hands,
        "url": url,
        "qr": qr_svg(url),
        "offline": viewer_link(site.viewer_url, result),
        "record": record,
        "corrections": corrections,
        "json_record": {**record, "corrections": corrections} if corrections else record,
        "players": [(s, game.players[s]) for s in SEAT_NAMES if s in game.players],
    }


def serve(site: Site, host: str, port: int) -> None:
    """Serves the result pages until stopped."""
    run(*guarded_server(create_app(site), host, port))
