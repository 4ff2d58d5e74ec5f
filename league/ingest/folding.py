"""Kiosk games folded as the league holds them: one game's applied events and the state they fold to,
added to one event at a time, and the games most recently pushed kept folded for their next push."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from league.store import kiosks as ks
from shared.events import UNDONE, GameEvent
from shared.game_state import FOLD_ERRORS, ActionRefused, GameState


@dataclass
class Folding:
    """A game's applied events and the state they fold to (None before it has begun), as of the
    league's ``last`` seq of the game (set-aside events count in the seq, not in the log)."""

    log: list[GameEvent]
    state: GameState | None
    last: int = 0

    @classmethod
    def of(cls, log: list[GameEvent], last: int) -> Folding:
        try:
            return cls(log, GameState.from_events(log) if log else None, last)
        except ActionRefused:
            return cls(log, None, last)  # each was accepted when it came; kept as not begun if not now

    def copy(self) -> Folding:
        return Folding(list(self.log), self.state, self.last)

    def add(self, e: GameEvent) -> str | None:
        """Folds one more event and returns None, or leaves everything as it was and says why not.

        One step of the fold, not the whole game again, so a push costs its own events however
        long the game; an undo (or a game not begun) folds the log whole, as the kiosk does."""
        try:
            if self.state is None or e.kind == UNDONE:
                new = GameState.from_events([*self.log, e])
            else:
                new = self.state.apply(e)
        except FOLD_ERRORS as err:
            try:
                GameState.from_events([*self.log, e])  # the fold's own words for why
            except ActionRefused as refused:
                return str(getattr(refused, "why", None) or refused)
            return f"{type(err).__name__}: {err}"
        self.log.append(e)
        self.state = new
        return None


# The games kept folded: those in play at the biggest league night (200 tables, a game each) with
# room to spare. Each is a few thousand objects that the interpreter's collector walks in each full
# collection, so keeping ten times as many as are in play made every such pause ten times longer.
GAMES_FOLDED = 256


class FoldCache:
    """Recently pushed games, folded as far as the league holds them, so that the next push of a game
    folds only its own events instead of reading and folding the whole game again. A game is taken
    from here only when it ends at the seq the database holds (another server process may have
    added to it); otherwise it is folded from the database."""

    def __init__(self, most: int = GAMES_FOLDED) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[int, int], Folding] = OrderedDict()
        self._lock = threading.Lock()  # pushes are answered in worker threads

    def at(self, conn: Any, kiosk: int, game: int, last: int) -> Folding:
        """The game folded up to ``last``, a copy of its own for the push to add to."""
        with self._lock:
            kept = self._kept.get((kiosk, game))
        if kept is not None and kept.last == last:
            return kept.copy()
        if last == 0:
            return Folding([], None, 0)  # nothing held of it yet: nothing to read
        return Folding.of(ks.applied_events(conn, kiosk, game), last)

    def keep(self, folded: list[tuple[tuple[int, int], Folding]]) -> None:
        """Keeps a stored push's games (the least recently pushed go when there are too many)."""
        with self._lock:
            for key, folding in folded:
                self._kept[key] = folding
                self._kept.move_to_end(key)
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)
