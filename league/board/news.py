"""News for the venue boards across the league's server processes (several ``clabber league serve``
on one PostgreSQL database).

Each process keeps its own open boards (league/board/feed.py). A change (a push committed, an
organiser's form) is sent to all of them as PostgreSQL's ``NOTIFY`` on the league's channel (its
name carries the league's schema, so leagues sharing a database never hear each other), by a thread
of the sending process's own, after the change's commit; each process listens on a connection of its
own and tells its own boards. A notification follows a change at once, and the next waits ``GATHER``:
what changed meanwhile goes in it together (the venues, comma-separated; empty: every venue), so a
busy night's hundreds of pushes a second cost ten notifications a second. Every
listener hears the same news in the same order; a listener that lost its connection connects again,
and meanwhile the boards' own refresh (every 30 s) still shows every change.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Protocol

from league.store.core import Store, StoreTrouble

CHANNEL = "clabber_boards"  # with the schema's name: Store.channel
MOST_VENUES = 200  # venues named in one notification (PostgreSQL takes 8,000 bytes); more: every venue
AGAIN = 5.0  # s before a lost listener connects again
LOOK = 0.5  # s between the listener's looks at whether to stop: a server stops at once
GATHER = 0.1  # s after a notification before the next: what changes meanwhile goes in one

log = logging.getLogger("league.board")


class Told(Protocol):
    """What is told of a change: a process's open boards (league/board/feed.py's ``Boards``)."""

    def changed(self, venue: int | None = None) -> None: ...


class News:
    """``changed(venue)`` from any thread of any process reaches every process's ``boards``: it only
    hands the news to this process's sender (a push's answer or a form never waits for it)."""

    def __init__(self, store: Store, boards: Told) -> None:
        self.store = store
        self.boards = boards
        self.channel = store.channel(CHANNEL)
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
        while (first := self._outgoing.get()) is not None:
            venues, stopping = self._queued_behind(first)
            payload = _payload(venues)
            try:
                self.store.notify(self.channel, payload)
            except Exception as e:  # the boards' refresh shows it within 30 s; the push is stored
                log.warning("the other processes' boards were not told: %s", e)
                for venue in _venues(payload):  # this process's, at least
                    self.boards.changed(venue)
            if stopping:
                return
            self._stop.wait(GATHER)

    def _queued_behind(self, first: str) -> tuple[set[str], bool]:
        """``first`` and every change queued behind it (one notification); whether a stop came too."""
        venues = {first}
        while True:
            try:
                more = self._outgoing.get_nowait()
            except queue.Empty:
                return venues, False
            if more is None:
                return venues, True
            venues.add(more)

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                for payload in self.store.listen(self.channel, self._stop.is_set, LOOK, self.listening.set):
                    for venue in _venues(payload):
                        self.boards.changed(venue)
            except StoreTrouble as e:
                log.warning("board news: %s; listening again in %.0f s", e, AGAIN)
                self._stop.wait(AGAIN)


def _payload(venues: set[str]) -> str:
    """One notification's text for the venues queued (empty: every venue)."""
    if "" in venues or len(venues) > MOST_VENUES:
        return ""
    return ",".join(sorted(venues, key=int))


def _venues(payload: str) -> list[int | None]:
    """The venues a notification names (None: every venue)."""
    named: list[int | None] = [int(v) for v in payload.split(",") if v.isdigit()]
    return named if named else [None]
