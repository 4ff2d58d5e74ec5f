"""``clabber league serve``: the kiosk API (``/api/v1/``) and the league's pages in one uvicorn
process, with the result server's connection deadlines, limits and headers (shared/http/guard.py,
shared/http/server.py).

A process keeps nothing another process needs: every push is one transaction, and on PostgreSQL the
venue boards hear of each change through the database (league/board/news.py). So a league that
outgrows one process runs several servers against the same PostgreSQL database, on ports of their
own behind the proxy (``clabber-league@PORT.service``, docs/league-server.md)."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import uvicorn

from league.api.app import create_app
from league.board.feed import Boards
from league.board.news import News
from league.ingest.kiosks import Kiosks
from league.pages import make_app
from league.store.core import WORKER_THREADS, Store
from shared.http.server import ServeError, guarded_server, run

DEFAULT_HOST = "127.0.0.1"  # behind a TLS reverse proxy: kiosk keys never cross a network in clear text
DEFAULT_PORT = 8090

log = logging.getLogger("league.serve")

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "ServeError", "server"]


def site(
    store: Store,
    secure_cookies: bool = False,
    public_url: str | None = None,
    boards: Boards | None = None,
    changed: Callable[[int | None], None] | None = None,
) -> Any:
    """One application: ``/api/...`` for the kiosks, every other path the league's pages. The two share
    the open venue boards: each push that stores events tells them, once it has committed (through
    ``changed`` when given: every server process's boards, league/board/news.py)."""
    boards = boards or Boards()
    tell = changed or boards.changed
    api = create_app(Kiosks(store, published=tell))
    pages = make_app(store, secure_cookies=secure_cookies, boards=boards, public_url=public_url, changed=tell)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        target = api if str(scope.get("path", "")).startswith("/api/") else pages
        await target(scope, receive, send)

    return app


async def _lifespan(receive: Any, send: Any) -> None:
    """Sets the worker threads to the store's connections: anyio's 40 threads on two cores spend
    more time handing the interpreter's lock to each other than answering, and each wants a connection."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def server(
    store: Store,
    host: str,
    port: int,
    secure_cookies: bool = False,
    public_url: str | None = None,
    changed: Callable[[int | None], None] | None = None,
    boards: Boards | None = None,
) -> tuple[uvicorn.Server, socket.socket]:
    """A uvicorn server for the API and the pages, and its bound socket; ServeError when the address
    cannot be had."""
    return guarded_server(site(store, secure_cookies, public_url, boards, changed), host, port, lifespan="on")


def serve(
    store: Store,
    host: str,
    port: int,
    secure_cookies: bool = False,
    public_url: str | None = None,
    listening: Callable[[], None] | None = None,
) -> None:
    """Serves the kiosk API and the pages until stopped; ``listening`` is called once the address is
    had (so that nothing says the server is there before it is). On PostgreSQL the boards' news goes
    through the database, so that the boards of every server process on it hear every change."""
    boards, news = None, None
    if store.dialect == "postgresql":
        boards = Boards()
        news = News(store, boards).start()
    try:
        changed = news.changed if news is not None else None
        srv, sock = server(store, host, port, secure_cookies, public_url, changed=changed, boards=boards)
        if listening is not None:
            listening()
        run(srv, sock)
    finally:
        if news is not None:
            news.stop()
