"""A Starlette application under uvicorn with the limits of guard.py: the kiosk's result pages
(``clabber serve``) and the league server (``clabber league serve``) both run this way."""

from __future__ import annotations

import socket
from typing import Any, Literal

import uvicorn

from shared.http.guard import BACKLOG, Guard, connection_cap, guarded_protocol, raise_file_limit
from shared.http.logs import rate_limit

KEEP_ALIVE = 5  # s a connection may stay silent after a response (the head deadline still applies)
LISTEN_QUEUE = 1024  # connections the kernel holds until they are accepted


class ServeError(RuntimeError):
    """The server cannot start; the message says why."""


class _DeepQueue(socket.socket):
    """A listening socket whose kernel queue stays deep whatever backlog asyncio asks for.

    asyncio uses one number for the listen queue and for how many connections it accepts in one
    go. Accepting few at a time keeps a flood from taking all the process's files before the
    guard sees it; a deep queue lets phones wait their turn in a flood instead of having their
    connection dropped by the kernel (a second lost to the retry)."""

    def listen(self, backlog: int = LISTEN_QUEUE) -> None:
        super().listen(max(backlog, LISTEN_QUEUE))


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound; OSError (with the reason) when the address cannot be had."""
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that
    # say they are TCP, and with it on every small response waits 40 ms for a delayed ACK.
    sock = _DeepQueue(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def bound_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound; ServeError (with the reason) when the address cannot be had."""
    try:
        return listening_socket(host, port)
    except OSError as e:
        raise ServeError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


def guarded_server(
    app: Any, host: str, port: int, lifespan: Literal["on", "off"] = "on"
) -> tuple[uvicorn.Server, socket.socket]:
    """A uvicorn server for ``app`` with the guard's deadlines and limits, and its bound socket;
    ServeError when the address cannot be had. The result pages and the league share it."""
    guard = Guard(connection_cap(raise_file_limit()))
    sock = bound_socket(host, port)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        http=guarded_protocol(guard),
        ws="none",
        lifespan=lifespan,
        backlog=BACKLOG,
        timeout_keep_alive=KEEP_ALIVE,
        server_header=False,
        date_header=True,
        proxy_headers=False,
    )
    return uvicorn.Server(config), sock


def run(server: uvicorn.Server, sock: socket.socket) -> None:
    """Runs a guarded server until stopped (the config sets up logging; the rate limit goes on after it)."""
    rate_limit()
    server.run(sockets=[sock])
