"""The open boards and what they are sent: one small queue an open board, in this process.

A change at a venue (a kiosk's push, once its transaction has committed; an organiser's form) is
handed to the event loop from whatever thread made it; the loop draws that venue's board once, in a
worker thread, and offers the same text to every board open on it. A board that cannot keep up is
sent only the newest state (each message is the whole board, so nothing between matters). Drawing is
never done twice at once for one board: changes that come while it is drawn are drawn once after.
A board that opens is sent the last drawing while nothing has changed since, else a new one.

Changes made by another process (``clabber league`` on the same database) are not announced: every
``REFRESH`` seconds each open board is drawn again and sent when it differs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("league.board")

QUEUE = 4  # messages held for one board; past that the oldest goes (the newest says it all)
MOST_BOARDS = 300  # open at once: a connection each, well under the server's cap of connections
# One venue, or one address, can take only part of them, so that a flood of streams at one venue
# (or from one machine) leaves every other venue's TV its board. A bar has a TV or two, and the
# phones of a table or two that open the board too; behind one address sit a bar's TVs and phones.
MOST_AT_VENUE = 40
MOST_FROM_ADDRESS = 12
REFRESH = 30.0  # s between drawings of every open board, for changes no one announced

Key = tuple[int, str]  # venue, night


class TooManyBoards(RuntimeError):
    """No more boards can be opened now."""


@dataclass(eq=False)
class Watcher:
    """One open board: its venue and night, where it is watched from, and the messages waiting for it."""

    key: Key
    address: str = ""
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE))
    primed: bool = False  # has had a whole board since it opened

    def offer(self, message: str) -> None:
        if self.queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()  # a board that cannot keep up: the older state is worth nothing now
        self.queue.put_nowait(message)
        self.primed = True


def _nothing_to_draw(venue: int, night: str) -> str:
    raise RuntimeError("these boards were given nothing to draw them with")


class Boards:
    """The open boards of one server; ``draw(venue, night)`` makes a board's message (it reads the
    database, and runs in a worker thread; the board's pages give it when they are made)."""

    def __init__(
        self,
        draw: Callable[[int, str], str] = _nothing_to_draw,
        most: int = MOST_BOARDS,
        refresh: float = REFRESH,
        most_at_venue: int = MOST_AT_VENUE,
        most_from_address: int = MOST_FROM_ADDRESS,
    ) -> None:
        self.draw = draw
        self.most = most
        self.most_at_venue = most_at_venue
        self.most_from_address = most_from_address
        self.from_address: dict[str, int] = {}
        self.refresh = refresh
        self.loop: asyncio.AbstractEventLoop | None = None
        self.watchers: dict[Key, set[Watcher]] = {}
        self.sent: dict[Key, str] = {}  # the last drawing of each watched board
        self.stale: set[Key] = set()  # changed since it was last drawn
        self.drawing: set[Key] = set()
        self.again: set[Key] = set()  # changed while it was being drawn
        self._refresher: asyncio.Task[None] | None = None

    @property
    def open(self) -> int:
        return sum(len(w) for w in self.watchers.values())

    # ---- any thread --------------------------------------------------------------------------------

    def changed(self, venue: int | None = None) -> None:
        """Something a venue's board shows has changed (None: any venue's). Safe from any thread:
        the push runs in a worker thread, the boards live on the event loop."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return  # no board was ever opened in this process
        with contextlib.suppress(RuntimeError):  # the loop closed between the look and the call
            loop.call_soon_threadsafe(self._changed, venue)

    # ---- the event loop ----------------------------------------------------------------------------

    def full(self, venue: int, address: str) -> str | None:
        """Why no more boards can open now for ``venue`` from ``address``, or None."""
        if self.open >= self.most:
            return f"{self.most} boards are open already"
        if sum(len(w) for k, w in self.watchers.items() if k[0] == venue) >= self.most_at_venue:
            return f"{self.most_at_venue} boards of this venue are open already"
        if self.from_address.get(address, 0) >= self.most_from_address:
            return f"{self.most_from_address} boards are open from this address already"
        return None

    def watch(self, key: Key, address: str = "") -> Watcher:
        """A board opens: it is sent the board as it is now, then each change."""
        why = self.full(key[0], address)
        if why is not None:
            raise TooManyBoards(why)
        self.loop = asyncio.get_running_loop()
        w = Watcher(key, address)
        self.watchers.setdefault(key, set()).add(w)
        self.from_address[address] = self.from_address.get(address, 0) + 1
        if key in self.sent and key not in self.stale:
            w.offer(self.sent[key])
        elif key not in self.drawing or key in self.stale:
            self._draw(key)
        # else: the drawing under way is of the board as it is now, and reaches this one too
        if self._refresher is None or self._refresher.done():
            self._refresher = self.loop.create_task(self._refresh())
        return w

    def leave(self, w: Watcher) -> None:
        """A board closed (or its connection was lost)."""
        watching = self.watchers.get(w.key)
        if watching is None or w not in watching:
            return
        watching.discard(w)
        left = self.from_address.pop(w.address, 1) - 1
        if left:
            self.from_address[w.address] = left
        if not watching:  # nobody looks: changes are no longer followed, so the drawing is forgotten
            del self.watchers[w.key]
            self.sent.pop(w.key, None)
            self.stale.discard(w.key)

    def _changed(self, venue: int | None) -> None:
        for key in list(self.watchers):
            if venue is None or key[0] == venue:
                self.stale.add(key)
                self._draw(key)

    def _draw(self, key: Key) -> None:
        if key in self.drawing:
            self.again.add(key)
            return
        self.drawing.add(key)
        assert self.loop is not None
        self.loop.create_task(self._drawn(key))

    async def _drawn(self, key: Key) -> None:
        try:
            while key in self.watchers:
                self.again.discard(key)
                self.stale.discard(key)
                try:
                    message = await asyncio.to_thread(self.draw, *key)
                except Exception:
                    log.exception("the board of venue %d on %s cannot be drawn", *key)
                    return
                changed = message != self.sent.get(key)
                if key in self.watchers:
                    self.sent[key] = message
                for w in list(self.watchers.get(key, ())):
                    if changed or not w.primed:
                        w.offer(message)
                if key not in self.again:
                    return
        finally:
            self.drawing.discard(key)

    async def _refresh(self) -> None:
        while self.watchers:
            await asyncio.sleep(self.refresh)
            for key in list(self.watchers):
                self._draw(key)
