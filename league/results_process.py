"""A league server's results written by a process of their own (on PostgreSQL).

A game's result is the costliest write a push causes (league/ingest.py): some 14 statements and 3 to
4 ms of the interpreter's time. Written by a thread of the server's own process, it takes turns with
the pushes' thread and the event loop for the one interpreter's lock, and each of its round trips to
the database waits for that lock again when it comes back; so do theirs. In a process of its own it
has an interpreter of its own, and the server's is left to the pushes and the answers (measured in
``./run bench league``).

The process is spawned (a fresh interpreter: no threads or connections copied) when the server
starts, and again when it has died. It is handed the (kiosk, game) pairs whose results are due,
writes them with the library (``Kiosks.write_results``, ``finish_results``) and answers with those it
could not write. A process that dies before it has heard a batch is started again and hears it; one
that dies while writing leaves the batch's results due (each result is one transaction: written
whole or not at all), its pushes hear 503, and the next batch writes every result still due first.

A SQLite file keeps the results' thread in the server's process: its writers take turns on a lock of
the process's own, which another process would not see.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from typing import Any

from sqlalchemy.engine import make_url

from league.kiosks import FoldCache, Kiosks, Where
from league.store import Store, StoreTrouble, StoreUnreachable

STOP_SECONDS = 10  # a stop waits this long for a batch being written, then ends the process
APPLICATION = "clabber league results"  # its connection's name in pg_stat_activity, with the server's pid

log = logging.getLogger("league.results")
YOUNG_COLLECTED_EVERY = 50_000  # allocations between the collector's looks at the youngest objects


class ResultsProcess:
    """The results' writer in a process of its own, called from the server's results thread (one call
    at a time): ``write_results`` and ``finish_results`` as ``Kiosks`` has them."""

    def __init__(self, url: str, folds: FoldCache | None = None) -> None:
        """``url``: the database, as the server's store opened it; ``folds``: the server's folded games,
        handed over with the games whose results are due (the process takes one only if it ends at the
        seq the database holds, as the server's own results would)."""
        self.url = url
        self.folds = folds
        self._lock = threading.Lock()
        self._proc: Any = None  # multiprocessing's spawned process
        self._conn: multiprocessing.connection.Connection | None = None

    def start(self) -> ResultsProcess:
        """Started now, so that the first result does not wait for it; one that cannot be started now
        (too many processes, say) is said in the log, and the first batch tries again."""
        with self._lock:
            if not self.running:
                try:
                    self._spawn()
                except OSError as e:
                    log.warning("the results' process cannot be started now (%s): the first results will try", e)
        return self

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def write_results(self, due: list[Where]) -> list[Where]:
        """The results of these pairs written, in this order; those that could not be (still due)."""
        folded = [(where, kept) for where in due if self.folds and (kept := self.folds.kept(*where))]
        failed = [(k, g) for k, g in self._ask(("write", (due, folded)))]
        if self.folds is not None:
            self.folds.forget([where for where in due if where not in failed])  # as Kiosks.write_results does
        return failed

    def finish_results(self) -> int:
        """Every result still due written, in the order the games ended; how many were due."""
        return int(self._ask(("finish", None)))

    def close(self) -> None:
        """Stops the process: a batch it is writing is let finish (up to ``STOP_SECONDS``), then it ends
        (a batch cut short leaves its results due, written at the next start)."""
        idle = self._lock.acquire(timeout=STOP_SECONDS)  # held while a batch is written
        try:
            proc = self._proc
            if idle and self._conn is not None:
                self._conn.close()  # it hears the end of its pipe and ends
            if proc is not None:
                proc.join(STOP_SECONDS if idle else 0)
                if proc.is_alive():
                    proc.terminate()  # the batch's answer then fails: its pushes hear 503
                    proc.join(STOP_SECONDS)
            if idle:
                self._proc = self._conn = None
        finally:
            if idle:
                self._lock.release()

    @property
    def name(self) -> str:
        """What PostgreSQL shows of its connection (``pg_stat_activity.application_name``)."""
        return f"{APPLICATION} of {os.getpid()}"

    def _spawn(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe()
        url = make_url(self.url)
        if "application_name" not in url.query:
            url = url.update_query_dict({"application_name": self.name})
        args = (url.render_as_string(hide_password=False), theirs)
        proc = ctx.Process(target=_serve, args=args, name="league-results", daemon=True)
        proc.start()
        theirs.close()  # only the process holds its end now: its death is the end of the pipe here
        self._proc, self._conn = proc, ours

    def _forget(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None:
            self._proc.join(1)
        self._proc = self._conn = None

    def _ask(self, ask: tuple[str, Any]) -> Any:
        with self._lock:
            for _ in range(2):  # a process found dead before it heard the batch: once more, with a new one
                if not self.running:
                    self._forget()
                    self._spawn()
                assert self._conn is not None
                try:
                    self._conn.send(ask)
                except OSError:
                    self._forget()
                    continue
                try:
                    kind, answer = self._conn.recv()
                except (EOFError, OSError):
                    self._forget()
                    raise StoreTrouble(
                        "the results' process stopped while writing: the results it had not written stay due"
                    ) from None
                if kind == "unreachable":
                    raise StoreUnreachable(answer)
                if kind == "trouble":
                    raise StoreTrouble(answer)
                return answer
            raise StoreTrouble("the results' process cannot be started")


def _serve(url: str, conn: multiprocessing.connection.Connection) -> None:
    """The process: writes each batch it is handed and answers, until the server's end of the pipe is
    closed (a stop, or the server gone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the server, whose stop ends this
    store = Store(url, migrate=False)
    kiosks = Kiosks(store)  # no boards here: the server tells its own once a batch is written
    quiet_collector()  # as in the server: a full collection would hold up a batch's answer
    try:
        while True:
            try:
                what, asked = conn.recv()
            except (EOFError, OSError):
                return
            try:
                if what == "write":
                    due, folded = asked
                    kiosks.folds.keep(folded)  # the games as the server folded them: no need to read them again
                    answer: tuple[str, Any] = ("written", kiosks.write_results(due))
                else:
                    answer = ("written", kiosks.finish_results())
            except StoreUnreachable as e:
                answer = ("unreachable", str(e))
            except StoreTrouble as e:
                answer = ("trouble", str(e))
            except Exception as e:  # said in the server's log; the results stay due
                log.exception("the results' process failed a batch")
                answer = ("trouble", f"the results' process failed: {e}")
            try:
                conn.send(answer)
            except OSError:
                return
    finally:
        store.close()


def quiet_collector() -> None:
    """Fewer and shorter pauses of Python's collector of cyclic garbage, which stops every thread while
    it looks through the objects it tracks: what the process holds once started (modules, the app,
    the pool) is left out of every look from now on, and the youngest objects are looked at every
    50,000 allocations rather than 700, so that a push's short-lived objects are gone before then.
    Measured under the league bench's paced run: 16 full collections of 60 to 130 ms each in 8 s
    before, 1 after."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTED_EVERY, 20, 100)
