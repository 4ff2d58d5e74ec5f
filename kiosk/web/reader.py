"""The result pages' read-only connection to the kiosk's database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kiosk.store import Store, open_reader


class Reader:
    """The read-only connection, used in the event loop's thread only (where requests are
    answered); opened again when the file was replaced or could not be opened before."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store: Store | None = None
        self.generation = 0  # counts the files opened: a game's number means nothing across them
        self.on_reopen: Callable[[], None] = lambda: None

    def store(self) -> Store:
        if self._store is not None and self._store.replaced():
            self.drop()
        if self._store is None:
            self._store = open_reader(self.path)
            self.generation += 1
            self.on_reopen()
        return self._store

    def drop(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
