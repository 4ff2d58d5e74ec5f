"""``clabber league serve``: the kiosk API (``/api/v1/``) and the league's pages under uvicorn, with
the result server's connection deadlines, limits and headers (shared/http/guard.py, shared/http/server.py)."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import uvicorn

from league.api import create_app
from league.board_feed import Boards
from league.board_news import News
from league.kiosks import Kiosks
from league.pages import make_app
from league.results_process import ResultsProcess, quiet_collector
from league.store import WORKER_THREADS, Store
from shared.http.server import ServeError, bound_socket, guarded_server, handed, run

DEFAULT_HOST = "127.0.0.1"  # behind a TLS reverse proxy: kiosk keys never cross a network in clear text
DEFAULT_PORT = 8090
MOST_WORKERS = 32
STOP_SECONDS = 35  # a worker's graceful stop: its responses' 30 s deadline, and a little more

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
    ``changed`` when given: several processes' boards, league/board_news.py)."""
    boards = boards or Boards()
    tell = changed or boards.changed
    kiosks = Kiosks(store, published=tell)
    # On PostgreSQL the results are written by a process of their own: an interpreter of their own.
    url = store.url.render_as_string(hide_password=False)
    results = ResultsProcess(url, kiosks.folds) if store.dialect == "postgresql" else None
    api = create_app(kiosks, results=results)
    pages = make_app(store, secure_cookies=secure_cookies, boards=boards, public_url=public_url, changed=tell)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send, kiosks, results)
            return
        target = api if str(scope.get("path", "")).startswith("/api/") else pages
        await target(scope, receive, send)

    return app


async def _lifespan(receive: Any, send: Any, kiosks: Kiosks, results: ResultsProcess | None) -> None:
    """Sets the worker threads to the store's connections: anyio's 40 threads on two cores spend
    more time handing the interpreter's lock to each other than answering, and each wants a connection.
    And the collector of cyclic garbage to its few pauses (``quiet_collector``). Starts the results'
    process, if any. Then writes, beside the first requests, the results a stop left due
    (league/ingest.py). At the stop, ends the results' process once its batch is written."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
            quiet_collector()
            if results is not None:
                results.start()
            threading.Thread(target=_finish_results, args=(kiosks,), name="league-results-due", daemon=True).start()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if results is not None:
                await anyio.to_thread.run_sync(results.close)
            await send({"type": "lifespan.shutdown.complete"})
            return


def _finish_results(kiosks: Kiosks) -> None:
    try:
        due = kiosks.finish_results()
    except Exception as e:  # the database cannot be used now: the game's next push writes it
        log.warning("the results left due by a stop are not written: %s", e)
        return
    if due:
        log.warning("wrote %d result(s) left due by a stop between a game's events and its result", due)


def server(
    store: Store, host: str, port: int, secure_cookies: bool = False, public_url: str | None = None
) -> tuple[uvicorn.Server, socket.socket]:
    """A uvicorn server for the API and the pages, and its bound socket; ServeError when the address
    cannot be had."""
    return guarded_server(site(store, secure_cookies, public_url), host, port, lifespan="on")


def serve(
    store: Store, host: str, port: int, secure_cookies: bool = False, public_url: str | None = None, workers: int = 1
) -> None:
    """Serves the kiosk API and the pages until stopped; ``workers`` processes on one socket (PostgreSQL)."""
    if workers == 1:
        run(*server(store, host, port, secure_cookies, public_url))
        return
    if not 2 <= workers <= MOST_WORKERS:
        raise ServeError(f"--workers: 1 to {MOST_WORKERS} server processes, not {workers}")
    if store.dialect != "postgresql":
        raise ServeError("--workers: a SQLite file takes one writer at a time; more server processes need PostgreSQL")
    sock = bound_socket(host, port)
    plain = socket.socket(sock.family, sock.type, sock.proto, fileno=os.dup(sock.fileno()))  # what can be handed
    supervise(sock, workers, (store.url.render_as_string(hide_password=False), plain, secure_cookies, public_url))


def _worker(url: str, sock: socket.socket, secure_cookies: bool, public_url: str | None) -> None:
    """One server process of several: its own store and boards, the boards' news shared through the database."""
    sock = handed(sock)
    store = Store(url, migrate=False)  # the first process brought the schema up to date
    boards = Boards()
    news = News(store, boards).start()
    try:
        app = site(store, secure_cookies, public_url, boards=boards, changed=news.changed)
        run(guarded_server(app, "", 0, lifespan="on", sock=sock)[0], sock)
    finally:
        news.stop()
        store.close()


def supervise(sock: socket.socket, workers: int, args: tuple[Any, ...]) -> None:
    """Starts ``workers`` processes serving ``sock`` and waits. SIGTERM or SIGINT stops them all (each
    finishes what it is answering); one that ends by itself stops the rest, with ServeError, so that
    systemd starts the service again whole."""
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter each: no threads or connections copied
    procs = [ctx.Process(target=_worker, args=args, name=f"league-server-{i + 1}") for i in range(workers)]
    stopping = threading.Event()

    def stop(_signum: int, _frame: Any) -> None:
        stopping.set()
        for p in procs:
            if p.is_alive():
                p.terminate()  # SIGTERM: uvicorn's graceful stop

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for p in procs:
            if not stopping.is_set():  # a stop while starting: the rest are not started
                p.start()
        ended = multiprocessing.connection.wait([p.sentinel for p in procs])
        if not stopping.is_set():
            lost = next(p for p in procs if p.sentinel in ended)
            lost.join(timeout=5)  # its exit status: the sentinel can come a moment before it
            stop(signal.SIGTERM, None)
            raise ServeError(f"server process {lost.name} ended (exit {lost.exitcode}): stopped the others")
    finally:
        started = [p for p in procs if p.pid is not None]
        for p in started:
            if p.is_alive():
                p.terminate()  # whatever ended the wait, none is left serving
        for p in started:
            p.join(timeout=STOP_SECONDS)
            if p.is_alive():
                p.kill()
                p.join()
        for s, handler in previous.items():
            signal.signal(s, handler)
        sock.close()
