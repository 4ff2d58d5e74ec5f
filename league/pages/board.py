"""The venue board on the bar's TV: ``/board/{venue}``, drawn by the server at load, then kept live by
server-sent events (``/board/{venue}/events``) that a small script of this site's (``/board.js``)
swaps in. No login, no reload: the page's script reconnects by itself after a drop, and each
connection is sent the whole board first.

The page's policy adds to the league pages' only what it needs: this site's script and a connection
back to this site for the events.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from league.board.feed import Boards, TooManyBoards
from league.board.tonight import Board
from league.organiser.night import night_at
from league.pages.kit import environment, not_found, render
from league.store.core import Store
from shared.http.guard import LONG_RESPONSE
from shared.http.headers import PLAIN_CSP, content_security_policy
from shared.share import qr_svg

TEMPLATES = Path(__file__).parent.parent / "templates"
SCRIPT = Path(__file__).parent.parent / "static" / "board.js"
HEARTBEAT = 15.0  # s between comments on a quiet stream: proxies and the script see it is alive
STREAM_DEADLINE = 3 * HEARTBEAT  # s a stream may go without getting a message out before it is closed
RETRY_MS = 2000  # how soon the browser connects again after a drop
# The longest a stream stays open: then it ends and the browser connects again by itself. A client
# that reads nothing keeps its stream only this long, even while the network's buffers still take
# the heartbeats (the write deadline closes it sooner once they are full).
STREAM_LIFETIME = 600.0


def board_policy() -> bytes:
    """The league pages' policy for the board's own style block, with this site's script and
    events allowed (and nothing else more)."""
    csp = content_security_policy([(TEMPLATES / "board.html").read_text()])
    return csp + b"; script-src 'self'; connect-src 'self'"


def columns(tables: int) -> int:
    """Columns of the table grid: as square as the screen allows, up to five (20 tables)."""
    return 1 if tables <= 1 else 2 if tables <= 4 else 3 if tables <= 9 else 4 if tables <= 16 else 5


def tonight(request: Request, store: Store, venue: int | None) -> str | None:
    """The night the board shows: ``?date=`` (a date like 2026-01-06), else the venue's league night
    now, by the league's clock."""
    text = request.query_params.get("date")
    if text is None:
        with store.read() as r:
            return night_at(r, venue if venue is not None else 0, dt.datetime.now(dt.UTC)).isoformat()
    try:
        return dt.date.fromisoformat(text).isoformat() if len(text) == 10 else None
    except ValueError:
        return None


class BoardPages:
    """The board's page, its events and its script, over one store and one set of open boards."""

    def __init__(
        self,
        store: Store,
        boards: Boards | None = None,
        public_url: str | None = None,
        lifetime: float | None = None,
    ) -> None:
        self.board = Board(store)
        self.lifetime = lifetime or STREAM_LIFETIME
        self.boards = boards or Boards(self.draw)
        self.boards.draw = self.draw
        self.public_url = public_url.rstrip("/") if public_url else None
        self.policy = board_policy().decode()
        self.script_text = SCRIPT.read_bytes()

    def parts(self, view: dict[str, Any]) -> dict[str, Any]:
        """The board's live parts as HTML (escaped: team names are anyone's input)."""
        context = _context(view)
        return {
            "cols": columns(len(view["tables"])),
            "tables": environment.get_template("_board_tables.html").render(**context),
            "side": environment.get_template("_board_side.html").render(**context),
        }

    def draw(self, venue: int, night: str) -> str:
        """A board's message: its live parts as one line of JSON."""
        view = self.board.tonight(venue, night)
        if view is None:
            return json.dumps({"gone": True})
        return json.dumps(self.parts(view), separators=(",", ":"))

    def _standings_path(self, view: dict[str, Any]) -> str:
        seasons = [d["season"] for d in view["standings"]]
        return f"/seasons/{seasons[0]}" if seasons else "/"

    def page(self, request: Request) -> Response:
        venue = _venue(request)
        night = tonight(request, self.board.store, venue)
        view = self.board.tonight(venue, night) if venue is not None and night is not None else None
        if view is None:
            return not_found(request, "such venue or night")
        base = self.public_url or str(request.base_url).rstrip("/")
        path = self._standings_path(view)
        events = f"/board/{venue}/events" + (f"?date={night}" if "date" in request.query_params else "")
        response = render(
            request,
            "board.html",
            # qr_svg draws the modules as one path: no text of anyone's in it.
            qr=Markup(qr_svg(base + path)),
            standings_url=base + path,
            events=events,
            drawn=dt.datetime.now().strftime("%H:%M"),
            **_context(view),
        )
        response.headers["content-security-policy"] = self.policy
        return response

    async def events(self, request: Request) -> Response:
        """The board's server-sent events: a ``board`` event with the whole board at once and after
        each change, a comment every ``HEARTBEAT`` s when nothing happens."""
        venue = _venue(request)
        night = await run_in_threadpool(tonight, request, self.board.store, venue)
        if venue is None or night is None or not await run_in_threadpool(self._venue_known, venue):
            return PlainTextResponse("There is no such venue or night.\n", 404, headers={"cache-control": "no-store"})
        address = client_address(request)
        if self.boards.full(venue, address) is not None:
            return PlainTextResponse(
                "Too many boards are open: this one tries again in a minute.\n",
                503,
                headers={"retry-after": "60", "cache-control": "no-store"},
            )
        put_off = request.scope.get("extensions", {}).get(LONG_RESPONSE)
        return StreamingResponse(
            self._stream(venue, night, address, put_off),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},  # no proxy may hold it back
        )

    async def _stream(self, venue: int, night: str, address: str, put_off: Any) -> AsyncIterator[str]:
        try:
            w = self.boards.watch((venue, night), address)
        except TooManyBoards:  # the last places went while this one was answered: it tries again
            yield f"retry: {60_000}\n\n"
            return
        try:
            if put_off is not None:
                put_off(STREAM_DEADLINE)
            yield f"retry: {RETRY_MS}\n\n"
            ends = asyncio.get_running_loop().time() + self.lifetime
            while (left := ends - asyncio.get_running_loop().time()) > 0:
                try:
                    message = await asyncio.wait_for(w.queue.get(), min(HEARTBEAT, left))
                    chunk = f"event: board\ndata: {message}\n\n"
                except TimeoutError:
                    chunk = ": still here\n\n"
                yield chunk
                # Back here only once the last chunk went out: a stream stuck on a client that
                # reads nothing asks for no more time, and is closed by the server's deadline.
                if put_off is not None:
                    put_off(STREAM_DEADLINE)
        finally:
            self.boards.leave(w)

    def _venue_known(self, venue: int) -> bool:
        with self.board.store.read() as r:
            return r.venue(venue) is not None

    async def script(self, request: Request) -> Response:
        return Response(
            self.script_text,
            media_type="text/javascript",
            headers={"cache-control": "no-cache", "content-security-policy": PLAIN_CSP.decode()},
        )

    def routes(self) -> list[Route]:
        return [
            Route("/board/{venue}", self.page),
            Route("/board/{venue}/events", self.events),
            Route("/board.js", self.script),
        ]


def _context(view: dict[str, Any]) -> dict[str, Any]:
    """What the board's templates are given: the view, the grid's columns, the meetings not at a table."""
    waiting = [m for m in view["meetings"] if not m["tables"]]
    return {"b": view, "cols": columns(len(view["tables"])), "waiting": waiting}


def client_address(request: Request) -> str:
    """Where a request comes from: the peer, or where the peer is this machine (the TLS proxy in front
    of the server), the address the proxy added last to X-Forwarded-For."""
    peer = request.client.host if request.client else ""
    forwarded = request.headers.get("x-forwarded-for")
    if forwarded and peer in ("127.0.0.1", "::1"):
        return forwarded.rsplit(",", 1)[-1].strip()[:64]
    return peer


def _venue(request: Request) -> int | None:
    text = request.path_params.get("venue", "")
    return int(text) if text.isdigit() and len(text) < 10 else None
