"""``clabber league serve``: the kiosk API (``/api/v1/``) and the league's pages under uvicorn, with
the result server's connection deadlines, limits and headers (kiosk/web/guard.py, kiosk/web/server.py)."""

from __future__ import annotations

import socket
from typing import Any

import anyio.to_thread
import uvicorn

from kiosk.web.server import ServeError, guarded_server, run
from league.api import create_app
from league.board_feed import Boards
from league.kiosks import Kiosks
from league.pages import make_app
from league.store import WORKER_THREADS, Store

DEFAULT_HOST = "127.0.0.1"  # behind a TLS reverse proxy: kiosk keys never cross a network in clear text
DEFAULT_PORT = 8090

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "ServeError", "server"]


def site(store: Store, secure_cookies: bool = False, public_url: str | None = None) -> Any:
    """One application: ``/api/...`` for the kiosks, every other path the league's pages. The two share
    the open venue boards: each push that stores events tells them, once it has committed."""
    boards = Boards()
    api = create_app(Kiosks(store, published=boards.changed))
    pages = make_app(store, secure_cookies=secure_cookies, boards=boards, public_url=public_url)

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
    store: Store, host: str, port: int, secure_cookies: bool = False, public_url: str | None = None
) -> tuple[uvicorn.Server, socket.socket]:
    """A uvicorn server for the API and the pages, and its bound socket; ServeError when the address
    cannot be had."""
    return guarded_server(site(store, secure_cookies, public_url), host, port, lifespan="on")


def serve(store: Store, host: str, port: int, secure_cookies: bool = False, public_url: str | None = None) -> None:
    """Serves the kiosk API and the pages until stopped."""
    run(*server(store, host, port, secure_cookies, public_url))
