"""How many wrong enrolment codes the server hears before it stops listening for a while.

A code is 50 random bits, valid minutes and once, so guessing is hopeless anyway; the allowance keeps
a guesser from costing the database a lookup per try. It is for the site, not per address (behind a
proxy every client has the proxy's address), and lives in the process: a restart forgets it, which
a code's ten minutes make harmless."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

WRONG_CODES = 10  # in a minute, before the next has to wait
WINDOW = 60.0  # seconds


class Allowance:
    """At most ``most`` failures in any ``window`` seconds; then every attempt waits its turn."""

    def __init__(self, most: int = WRONG_CODES, window: float = WINDOW, clock: Callable[[], float] = time.monotonic):
        self.most, self.window, self.clock = most, window, clock
        self._failures: deque[float] = deque()
        self._lock = threading.Lock()  # attempts are answered in worker threads

    def wait(self) -> int:
        """Seconds (whole, at least 1) until an attempt is heard again; 0 when it is heard now."""
        with self._lock:
            now = self.clock()
            while self._failures and self._failures[0] <= now - self.window:
                self._failures.popleft()
            if len(self._failures) < self.most:
                return 0
            return max(1, math.ceil(self._failures[0] + self.window - now))

    def failed(self) -> None:
        with self._lock:
            self._failures.append(self.clock())
