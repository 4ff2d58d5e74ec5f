"""``clabber league serve --workers N`` on PostgreSQL: several server processes on one port, the venue
boards told of a push whichever process took it (PostgreSQL's LISTEN/NOTIFY, league/board_news.py),
all stopped together; refused on a SQLite file."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from league.board_news import News
from league.store import Store
from tests.board_helpers import busy_night, push_body, table_game
from tests.league_server import CLABBER, LeagueServer, spawned
from tests.sse import Stream

pg_only = pytest.mark.parametrize("league_db", ["postgresql"], indirect=True)


class Heard:
    """What a process's boards were told (the receiving end of the news; its boards are tested elsewhere)."""

    def __init__(self) -> None:
        self.venues: list[int | None] = []
        self.lock = threading.Lock()

    def changed(self, venue: int | None = None) -> None:
        with self.lock:
            self.venues.append(venue)


def _until(check, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


@pg_only
def test_board_news_reaches_every_process_alike_and_in_the_order_each_sent_it(league_db):
    stores = [Store(league_db), Store(league_db)]  # two processes' stores, each with its own listener
    heard = [Heard(), Heard()]
    news = [News(s, h).start() for s, h in zip(stores, heard, strict=True)]
    try:
        _until(lambda: all(n.listening.is_set() for n in news))
        news[0].changed(7)
        news[1].changed(5)
        news[0].changed(None)
        news[0].changed(3)
        _until(lambda: all(len(h.venues) == 4 for h in heard), 5)
        assert heard[0].venues == heard[1].venues  # every process hears the same news in the same order
        assert [v for v in heard[0].venues if v != 5] == [7, None, 3]  # a process's own, in the order sent
    finally:
        for n in news:
            n.stop()
        for s in stores:
            s.close()


def _serving(pid: int, port: int) -> int:
    """How many established connections on ``port`` the process holds, from /proc (no tool needed)."""
    mine = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            local_port = int(cols[1].rsplit(":", 1)[1], 16)
            if local_port == port and cols[3] == "01" and cols[9] in mine:  # 01: established
                count += 1
    return count


@pg_only
def test_several_processes_serve_one_port_tell_every_board_and_stop_together(league_db, tmp_path):
    store = Store(league_db)
    world = busy_night(store, tables=2)
    store.close()
    events = table_game(tmp_path, world["teams"][0], hands=2)
    served = LeagueServer(league_db, workers=2)
    served.start()
    assert served.proc is not None
    parent = served.proc.pid
    _until(lambda: len(spawned(parent)) == 2)
    workers = spawned(parent)

    async def boards_on_both() -> None:
        streams: list[Stream] = []
        # Boards opened until both processes hold some (the kernel hands each connection to either).
        while not all(_serving(pid, served.port) for pid in workers):
            assert len(streams) < 40, "every board landed on one process"
            stream = await Stream.open(served.port, f"/board/{world['venue']}/events")
            await stream.next_board(5)
            streams.append(stream)
        loop = asyncio.get_running_loop()
        body = push_body(world["meetings"][0], events)
        status, answer = await loop.run_in_executor(
            None, served.api.call, "POST", "/api/v1/push", body, world["keys"][0]
        )
        acked = time.monotonic()
        assert status == 200 and answer["games"][0]["stored"] == len(events)
        for stream in streams:  # whichever process took the push, every board hears of it
            update = await stream.next_board(2.0)
            assert update.at - acked < 1.0
            assert "2 hands" in json.loads(update.data)["tables"]
            stream.close()

    asyncio.run(boards_on_both())
    proc = served.proc
    served.stop()  # SIGTERM to the first process: it stops the others
    assert proc.returncode == 0
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


@pg_only
def test_a_server_process_that_dies_stops_the_service_in_words(league_db):
    Store(league_db).close()
    served = LeagueServer(league_db, workers=2)
    served.start()
    proc = served.proc
    assert proc is not None
    _until(lambda: len(spawned(proc.pid)) == 2)
    lost, other = spawned(proc.pid)
    os.kill(lost, signal.SIGKILL)
    assert proc.wait(timeout=45) == 2  # systemd's Restart= starts the service again, whole
    served.log.seek(0)
    said = served.log.read().decode()
    assert "ended (exit -9): stopped the others" in said and "Traceback" not in said
    assert not Path(f"/proc/{other}").exists()
    served.proc = None


def test_more_server_processes_on_a_sqlite_file_are_refused_in_words(tmp_path):
    db = str(tmp_path / "league.db")
    done = subprocess.run(
        [str(CLABBER), "league", "--db", db, "serve", "--port", "1", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CLABBER_LEAGUE_DB": ""},
    )
    assert done.returncode == 2
    assert "more server processes need PostgreSQL" in done.stderr and "Traceback" not in done.stderr
