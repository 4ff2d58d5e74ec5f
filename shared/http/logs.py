"""The result server's log, rate-limited: what a flood of bad connections provokes is said once.

A phone that opens a thousand sockets, or sends a thousand broken requests, must not fill the
card with a thousand identical lines (an audit saw 1.6 million). Each message (by its logger and
its unformatted text) is written at most once per interval; the next one written says how many
were held back.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable

INTERVAL = 60.0  # seconds
KINDS = 256  # distinct messages remembered; the oldest is forgotten past this
LOGGERS = ("uvicorn", "uvicorn.error", "asyncio", "kiosk.web")


class RateLimit(logging.Filter):
    """Lets each kind of message through at most once per ``interval``."""

    def __init__(self, interval: float = INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self.seen: OrderedDict[tuple[str, int, str], list[float]] = OrderedDict()  # -> [last written, held]

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, str(record.msg))
        now = self.clock()
        entry = self.seen.get(key)
        if entry is not None and now - entry[0] < self.interval:
            entry[1] += 1
            return False
        held = int(entry[1]) if entry is not None else 0
        self.seen[key] = [now, 0]
        self.seen.move_to_end(key)
        while len(self.seen) > KINDS:
            self.seen.popitem(last=False)
        if held:
            record.msg = f"{record.msg} ({held} more like this since it was last written)"
        return True


def rate_limit(interval: float = INTERVAL) -> RateLimit:
    """Puts one rate limit on the loggers a flood can reach; returns it."""
    limit = RateLimit(interval)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, RateLimit)]:
            logger.removeFilter(old)
        logger.addFilter(limit)
    return limit
