"""Kiosks' pushes stored in groups: one commit for all the pushes that arrived while the one before
was being stored.

A push costs little of its own (its events folded, a row each); the rest is the same for one push or
fifty: a worker thread to hand it to, a transaction to begin and commit (SQLite's commit is a flush
to the card), and the statements that read its kiosk, lock its game and find its last seq. So the
API's pushes queue here, and one thread takes every push waiting and stores them together
(``Kiosks.push_all``), each answered as if it came alone. A quiet league sees each push stored at
once, by itself; a busy one, in groups that grow with the load, instead of a queue of transactions.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from typing import Any

from league.kiosks import Kiosk, Kiosks

MOST_A_GROUP = 64  # pushes in one transaction: a group's answers wait for its slowest push
IDLE = 5.0  # seconds with nothing to store before the thread ends (the next push starts another)


class Ingest:
    """The queue of pushes and the thread that stores them (started by a push, ended when idle).

    One thread, so pushes are stored in the order they came: a kiosk's second push never overtakes
    its first. (Two threads were measured no faster: the work is the interpreter's, not the database's.)"""

    def __init__(self, kiosks: Kiosks, most: int = MOST_A_GROUP) -> None:
        self.kiosks = kiosks
        self.most = most
        self._waiting: deque[tuple[Kiosk, Any, asyncio.Future[Any]]] = deque()
        self._lock = threading.Condition()
        self._running = False

    async def push(self, kiosk: Kiosk, body: Any) -> dict[str, Any]:
        """Stores a push with those waiting; its answer, or its refusal raised (as ``Kiosks.push``)."""
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiting.append((kiosk, body, answer))
            if self._running:
                self._lock.notify()
            else:
                self._running = True
                threading.Thread(target=self._store, name="league-ingest", daemon=True).start()
        result: dict[str, Any] = await answer
        return result

    def _store(self) -> None:
        group: list[tuple[Kiosk, Any, asyncio.Future[Any]]] = []
        try:
            while True:
                with self._lock:
                    if not self._waiting:
                        self._lock.wait(IDLE)
                    if not self._waiting:
                        self._running = False
                        return
                    group = [self._waiting.popleft() for _ in range(min(self.most, len(self._waiting)))]
                try:
                    answers: list[Any] = self.kiosks.push_all([(kiosk, body) for kiosk, body, _ in group])
                except Exception as e:  # the database cannot be reached (StoreUnreachable): each push hears it
                    answers = [e] * len(group)
                _settle([(future, answer) for (_, _, future), answer in zip(group, answers, strict=True)])
                group = []
        finally:
            with self._lock:  # ended by anything else: no push is left waiting for an answer
                if self._running:
                    self._running = False
                    lost = RuntimeError("the league's ingest stopped")
                    _settle([(future, lost) for _, _, future in [*group, *self._waiting]])
                    self._waiting.clear()


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
