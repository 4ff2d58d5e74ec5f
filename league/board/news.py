"""News for the venue boards across the league server's processes (``clabber league serve
--workers N``, PostgreSQL only).

Each process keeps its own open boards (league/board/feed.py). A change (a push committed, an
organiser's form) is sent to all of them at once as PostgreSQL's ``NOTIFY clabber_boards`` with the
venue (empty: every venue), by a thread of the sending process's own, after the change's commit; each
process listens on a connection of its own and tells its own boards. Every listener hears the same
news in the same order; a listener that lost its connection connects again, and meanwhile the
boards' own refresh (every 30 s) still shows every change.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Protocol

from league.store.core import Store, StoreTrouble

CHANNEL = "clabber_boards"
AGAIN = 5.0  # s before a lost listener connects again

log = logging.getLogger("league.board.tonight")


class Told(Protocol):
    """What is told of a change: a process's open boards (league/board/feed.py's ``Boards``)."""

    def changed(self, venue: int | None = None) -> None: ...


class News:
    """``changed(venue)`` from any thread of any process reaches every process's ``boards``: it only
    hands the news to this process's sender (a push's answer or a form never waits for it)."""

    def __init__(self, store: Store, boards: Told) -> None:
        self.store = store
        self.boards = boards
        self._stop = threading.Event()
        self.listening = threading.Event()  # set once the first LISTEN is in place
        self._outgoing: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._listen, name="league-board-news", daemon=True),
            threading.Thread(target=self._send, name="league-board-send", daemon=True),
        ]

    def start(self) -> News:
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._outgoing.put(None)
        for t in self._threads:
            t.join(timeout=10)

    def changed(self, venue: int | None = None) -> None:
        """A venue's board (None: every venue's) has something new, for every process's boards."""
        self._outgoing.put("" if venue is None else str(venue))

    def _send(self) -> None:
        while (payload := self._outgoing.get()) is not None:
            try:
                self.store.notify(CHANNEL, payload)
            except Exception as e:  # the boards' refresh shows it within 30 s; the push is stored
                log.warning("the other processes' boards were not told: %s", e)
                self.boards.changed(_venue(payload))  # this process's, at least

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                for payload in self.store.listen(CHANNEL, self._stop.is_set, listening=self.listening.set):
                    self.boards.changed(_venue(payload))
            except StoreTrouble as e:
                log.warning("board news: %s; listening again in %.0f s", e, AGAIN)
                self._stop.wait(AGAIN)


def _venue(payload: str) -> int | None:
    """The venue a notification names (empty: every venue)."""
    return int(payload) if payload.isdigit() else None
