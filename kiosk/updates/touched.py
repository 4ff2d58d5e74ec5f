"""The kiosk's word that someone is at the table: a file in its runtime folder (memory, not the card)
touched at a touch or a dealer button, at most once every ``every`` seconds, whose age the updater
reads before it writes a slot or restarts (kiosk/updates/agent.py)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

EVERY = 30.0  # the updater waits minutes; a touch a frame would be writes for nothing


class Touches:
    def __init__(self, path: Path, every: float = EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self.every = every
        self.clock = clock
        self.last = -every

    def touch(self) -> None:
        now = self.clock()
        if now - self.last < self.every:
            return
        self.last = now
        # No runtime folder (a desktop, a test): nothing marked, and the updater counts the table as quiet.
        with contextlib.suppress(OSError):
            self.path.touch()  # made, or its time moved on


def touches_here(env: dict[str, str] | None = None) -> Touches | None:
    """The kiosk's marker where its unit gives it one (``CLABBER_TOUCHED``), else None."""
    env = dict(os.environ) if env is None else env
    found = env.get("CLABBER_TOUCHED")
    return Touches(Path(found)) if found else None
