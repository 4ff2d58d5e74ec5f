"""Kiosks' pushes stored in groups: one commit for all the pushes that arrived while the one before
was being stored; the results of the games they end written just after, by a thread of their own.

A push costs little of its own (its events folded, a row each); the rest is the same for one push or
fifty: a worker thread to hand it to, a transaction to begin and commit (SQLite's commit is a flush
to the card), and the statements that read its kiosk, lock its game and find its last seq. So the
API's pushes queue here, and one thread takes every push waiting and stores them together
(``Kiosks.push_events``), each answered as if it came alone. A quiet league sees each push stored at
once, by itself; a busy one, in groups that grow with the load, instead of a queue of transactions.

A game's result costs far more than its events (14 statements under the league's lock, once every
30 events or so). The events are stored with the result marked due, in their own transaction; the
pushes that ended no game are answered at once, and those that did are handed to the results thread
(``Kiosks.write_results``), which answers each once its games are in the standings. So a push is
never answered as stored before what it changed can be seen, while the results of one group are
written as the next group's events are stored. The mark is cleared with the result. A result that
cannot be written now is a 503 for its push (the events are kept; the kiosk sends them again, and
that push writes it); the next batch first writes every result still due, in the order the games
ended, as does a server's start (``Kiosks.finish_results``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from league.kiosks import Kiosk, Kiosks, Where
from league.store import StoreTrouble

MOST_A_GROUP = 64  # pushes in one transaction: a group's answers wait for its slowest push
IDLE = 5.0  # seconds with nothing to do before a thread ends (the next push starts another)
log = logging.getLogger("league.ingest")
Item = TypeVar("Item")


class _Worker(Generic[Item]):
    """A queue and the one thread that works through it, all that waits at a time (started when
    something is queued, ended when idle). Whatever ends the thread, no push is left unanswered."""

    def __init__(self, name: str, work: Callable[[list[Item]], None], lost: Callable[[list[Item]], None]) -> None:
        self.name, self.work, self.lost = name, work, lost
        self._waiting: deque[Item] = deque()
        self._lock = threading.Condition()
        self._running = False

    def put(self, items: list[Item]) -> None:
        with self._lock:
            self._waiting.extend(items)
            if self._running:
                self._lock.notify()
            else:
                self._running = True
                threading.Thread(target=self._run, name=self.name, daemon=True).start()

    def _run(self) -> None:
        taken: list[Item] = []
        try:
            while True:
                with self._lock:
                    if not self._waiting:
                        self._lock.wait(IDLE)
                    if not self._waiting:
                        self._running = False
                        return
                    taken = [self._waiting.popleft() for _ in range(min(MOST_A_GROUP, len(self._waiting)))]
                self.work(taken)
                taken = []
        finally:
            with self._lock:
                if self._running:
                    self._running = False
                    self.lost([*taken, *self._waiting])
                    self._waiting.clear()


class Results(Protocol):
    """Who writes the results left due: the library itself (``Kiosks``, in this thread) or a process of
    their own (league/results_process.py)."""

    def write_results(self, due: list[Where]) -> list[Where]: ...

    def finish_results(self) -> int: ...


Arrived = tuple[Kiosk, Any, "asyncio.Future[Any]"]  # a push as it came: its key, its body, who waits
Ended = tuple["asyncio.Future[Any]", dict[str, Any], list[Where]]  # a push stored: its answer, its results due


class Ingest:
    """The queue of pushes and the thread that stores them; the queue of pushes that ended games and
    the thread that writes their results.

    One thread each, so pushes are stored in the order they came (a kiosk's second push never
    overtakes its first; two threads were measured no faster: the work is the interpreter's), and
    results are written in the order their games ended."""

    def __init__(self, kiosks: Kiosks, results: Results | None = None) -> None:
        """``results``: who writes the results (by default the library, in the results' thread)."""
        self.kiosks = kiosks
        self.results: Results = results or kiosks
        self._pushes = _Worker[Arrived]("league-ingest", self._store, self._lost)
        self._results = _Worker[Ended]("league-results", self._count, self._lost_results)
        # Results may be due that no push here waits for (a stop before this start, a failure): the
        # next batch writes all that are due first, in the order their games ended.
        self._behind = True

    async def push(self, kiosk: Kiosk, body: Any) -> dict[str, Any]:
        """Stores a push with those waiting; its answer, or its refusal raised (as ``Kiosks.push``)."""
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pushes.put([(kiosk, body, answer)])
        result: dict[str, Any] = await answer
        return result

    def _store(self, group: list[Arrived]) -> None:
        try:
            stored = self.kiosks.push_events([(kiosk, body) for kiosk, body, _ in group])
        except Exception as e:  # the database cannot be reached (StoreUnreachable): each push hears it
            _settle([(future, e) for _, _, future in group])
            return
        now, ended = [], []
        for (_, _, future), (answer, due) in zip(group, stored, strict=True):
            if due and not isinstance(answer, Exception):
                ended.append((future, answer, due))
            else:
                now.append((future, answer))
        _settle(now)
        if ended:
            self._results.put(ended)

    def _count(self, ended: list[Ended]) -> None:
        """Writes the results the pushes left due, then answers them; a push whose result cannot be
        written now is answered 503 (its events are kept, its result stays due, and the kiosk's retry,
        or the next batch, writes it)."""
        wanted = [where for _, _, due in ended for where in due]
        try:
            if self._behind:  # every result that is due, theirs among them, in the order the games ended
                self.results.finish_results()
                self._behind = False
                failed = set()
            else:
                failed = set(self.results.write_results(wanted))
            if self.results is not self.kiosks and not failed.issuperset(wanted):
                self.kiosks.results_written()  # written in another process: this one's boards are told
        except StoreTrouble as e:
            log.warning("the results of %d pushes are not written yet (%s): they stay due", len(ended), e)
            failed = set(wanted)
        except Exception:
            log.exception("the results of %d pushes are not written yet: they stay due", len(ended))
            failed = set(wanted)
        if failed:
            self._behind = True
        later = StoreTrouble("the game's result cannot be written now: its events are kept; send it again later")
        _settle([(future, later if failed.intersection(due) else answer) for future, answer, due in ended])

    @staticmethod
    def _lost(pushes: list[Arrived]) -> None:
        _settle([(future, RuntimeError("the league's ingest stopped")) for _, _, future in pushes])

    @staticmethod
    def _lost_results(ended: list[Ended]) -> None:
        lost = StoreTrouble("the league's results stopped: the events are kept; send them again")
        _settle([(future, lost) for future, _, _ in ended])  # stored; the results stay due for the retry


def _settle(answered: list[tuple[asyncio.Future[Any], Any]]) -> None:
    """Hands each answer to its push's event loop: one wake-up of each loop for the whole group."""
    loops: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
    for future, answer in answered:
        loops.setdefault(future.get_loop(), []).append((future, answer))
    for loop, theirs in loops.items():
        with contextlib.suppress(RuntimeError):  # that loop has closed (its server stopped): nobody waits
            loop.call_soon_threadsafe(_answer, theirs)


def _answer(answered: list[tuple[asyncio.Future[Any], Any]]) -> None:
    for future, answer in answered:
        if future.cancelled():
            continue  # the kiosk went away; its push is stored all the same, and acknowledged next time
        if isinstance(answer, BaseException):
            future.set_exception(answer)
        else:
            future.set_result(answer)
