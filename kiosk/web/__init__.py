"""The result pages phones open from the QR code: ``clabber serve``.

A process of its own that opens the database read-only: it can show a game, never change one.
Pages are found by each game's unguessable token; nothing lists games unless the configuration
allows the table's recent games. Everything else is a 404.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from engine.seats import SEAT_NAMES
from kiosk.game_state import GameState, Unfoldable
from kiosk.replay import replay_text
from kiosk.share import qr_svg, result_of, result_url, viewer_link
from kiosk.store import Store, StoreError

HERE = Path(__file__).parent
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CACHE_GAMES = 256


@dataclass(frozen=True)
class Site:
    """What the result pages need to know about the kiosk."""

    db: Path
    base_url: str  # where phones reach these pages
    viewer_url: str  # the static viewer that reads a result from the link itself
    table_name: str = ""
    show_recent: bool = False


def create_app(site: Site) -> Starlette:
    """The web application over a read-only connection to the kiosk's database."""
    templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    games: OrderedDict[tuple[int, int], dict[str, Any]] = OrderedDict()  # (id, last_seq) -> page
    state: dict[str, Store] = {}

    def store() -> Store:
        """The read-only connection, opened in the event loop's thread, where every request is
        answered; opened again if it could not be yet (the kiosk creates the file and its log)."""
        if "store" not in state:
            state["store"] = Store(site.db, readonly=True)
        return state["store"]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        with contextlib.suppress(StoreError):  # the kiosk is not running yet: the first page opens it
            store()
        yield
        if "store" in state:
            state["store"].close()

    def page_of(token: str) -> dict[str, Any] | None:
        """A game's page, rendered once for each state of the game (a new hand shows at once)."""
        if not TOKEN.match(token):
            return None
        store_ = store()
        row = store_.game_version(token)
        if row is None:
            return None
        if row not in games:
            try:
                game = GameState.from_events(store_.events(row[0]))
            except Unfoldable:  # an altered entry in its log: said once, not a traceback per request
                page = {"html": templates.get_template("attention.html").render(site=site).encode(),
                        "json": b'{"error": "this game needs the owner\'s attention"}', "status": 503}  # fmt: skip
            else:
                page = view_of(game, site)
                page["html"] = templates.get_template("game.html").render(**page, site=site).encode()
                page["json"] = json.dumps(page["record"], ensure_ascii=False).encode()
            games[row] = page
            while len(games) > CACHE_GAMES:
                games.popitem(last=False)
        games.move_to_end(row)
        return games[row]

    async def game_page(request: Request) -> Response:
        try:
            return await _game_page(request)
        except (StoreError, sqlite3.OperationalError):
            state.pop("store", None)
            html = templates.get_template("busy.html").render(site=site)
            return HTMLResponse(html, status_code=503, headers={"Retry-After": "30"})

    async def _game_page(request: Request) -> Response:
        token = request.path_params["token"]
        if token.endswith(".json"):
            page = page_of(token[:-5])
            if page is None:
                return not_found()
            return Response(page["json"], status_code=page.get("status", 200), media_type="application/json")
        page = page_of(token)
        if page is None:
            return not_found()
        return Response(page["html"], status_code=page.get("status", 200), media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})  # fmt: skip

    async def recent(request: Request) -> Response:
        if not site.show_recent:
            return not_found()
        rows = store().games(limit=30)
        html = templates.get_template("recent.html").render(games=rows, site=site)
        return HTMLResponse(html)

    async def viewer(request: Request) -> Response:
        return FileResponse(HERE / "static" / "view.html", media_type="text/html")

    def not_found() -> Response:
        return HTMLResponse(templates.get_template("404.html").render(site=site), status_code=404)

    async def missing(request: Request, exc: Exception) -> Response:
        return not_found()

    async def failed(request: Request, exc: Exception) -> Response:
        # A page that cannot be shown is, to a phone, a page that is not there.
        return not_found()

    routes = [
        Route("/g/{token}", game_page),
        Route("/recent", recent),
        Route("/view", viewer),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: missing, 405: missing,
                                                                        Exception: failed})  # fmt: skip
    app.router.redirect_slashes = False  # "/g/x/" is simply not a page
    return app


def view_of(game: GameState, site: Site) -> dict[str, Any]:
    """Everything the result page shows of a game."""
    url = result_url(site.base_url, game.token)
    result = result_of(game, site.table_name)
    hands = []
    for row, entry in zip(game.sheet.rows, game.hands, strict=True):
        s = row.score
        cells = [s.marks[t] or str(s.score[t]) for t in (0, 1)]
        summary = f"{SEAT_NAMES[row.dealer]} dealt · NS {cells[0]} · EW {cells[1]}"
        if s.passed_out or s.misdeal or s.void:
            summary = f"{SEAT_NAMES[row.dealer]} dealt · " + ("passed out" if s.passed_out else "no score")
        hands.append({"number": row.number, "text": replay_text(entry.hand, game.rules), "summary": summary})
    return {
        "game": game, "result": result, "hands": hands, "url": url, "qr": qr_svg(url),
        "offline": viewer_link(site.viewer_url, result), "record": game.record(),
        "players": [(s, game.players[s]) for s in SEAT_NAMES if s in game.players],
    }  # fmt: skip
