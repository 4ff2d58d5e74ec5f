"""``clabber league serve``: the kiosk API (``/api/v1/``) and the league's pages under uvicorn, with
the result server's connection deadlines, limits and headers (kiosk/web/guard.py, kiosk/web/server.py)."""

from __future__ import annotations

import socket
from typing import Any

import uvicorn

from kiosk.web.guard import BACKLOG, MAX_HEAD, Guard, connection_cap, guarded_protocol, raise_file_limit
from kiosk.web.logs import rate_limit
from kiosk.web.server import KEEP_ALIVE, ServeError, listening_socket
from league.api import create_app
from league.kiosks import Kiosks
from league.pages import make_app
from league.store import Store

DEFAULT_HOST = "127.0.0.1"  # behind a TLS reverse proxy: kiosk keys never cross a network in clear text
DEFAULT_PORT = 8090

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "ServeError", "server"]


def site(store: Store, secure_cookies: bool = False) -> Any:
    """One application: ``/api/...`` for the kiosks, every other path the league's pages."""
    api = create_app(Kiosks(store))
    pages = make_app(store, secure_cookies=secure_cookies)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        target = api if str(scope.get("path", "")).startswith("/api/") else pages
        await target(scope, receive, send)

    return app


def server(store: Store, host: str, port: int, secure_cookies: bool = False) -> tuple[uvicorn.Server, socket.socket]:
    """A uvicorn server for the API and its bound socket; ServeError when the address cannot be had."""
    guard = Guard(connection_cap(raise_file_limit()))
    try:
        sock = listening_socket(host, port)
    except OSError as e:
        raise ServeError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    config = uvicorn.Config(
        site(store, secure_cookies),
        log_level="warning",
        access_log=False,
        http=guarded_protocol(guard),
        ws="none",
        lifespan="off",
        backlog=BACKLOG,
        timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=MAX_HEAD,
        server_header=False,
        date_header=True,
        proxy_headers=False,
    )
    return uvicorn.Server(config), sock


def serve(store: Store, host: str, port: int, secure_cookies: bool = False) -> None:
    """Serves the kiosk API and the pages until stopped."""
    srv, sock = server(store, host, port, secure_cookies)
    rate_limit()
    srv.run(sockets=[sock])
