"""The result server's limits as numbers: the connection cap and the log's rate limit."""

from __future__ import annotations

import logging

from shared.http.guard import BACKLOG, MAX_CONNECTIONS, connection_cap
from shared.http.logs import RateLimit


def test_the_cap_stays_below_the_file_limit_with_room_for_a_burst_and_the_database():
    assert connection_cap(4096) == MAX_CONNECTIONS
    for limit in (1024, 2048):
        cap = connection_cap(limit)
        assert cap > 0 and cap + 4 * BACKLOG < limit


def record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("kiosk.web", logging.WARNING, __file__, 1, msg, args, None)


def test_each_message_is_written_once_per_interval_and_says_how_many_were_held():
    now = [0.0]
    limit = RateLimit(interval=60, clock=lambda: now[0])
    written = []
    for i in range(10_000):
        now[0] = i * 0.01  # 100 a second for 100 s
        r = record("at the limit of %d connections", 832)
        if limit.filter(r):
            written.append(r.getMessage())
    assert written == [
        "at the limit of 832 connections",
        "at the limit of 832 connections (5999 more like this since it was last written)",
    ]
    assert limit.filter(record("game %d cannot be shown: %s", 3, "points"))  # another message: its own count


def test_the_limit_forgets_the_oldest_of_very_many_kinds_of_message():
    limit = RateLimit(interval=60, clock=lambda: 0.0)
    for i in range(5000):
        limit.filter(record(f"message {i}"))
    assert len(limit.seen) <= 256
