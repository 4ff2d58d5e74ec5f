"""Several ``clabber league serve`` processes on one PostgreSQL database (as several units behind the
proxy): the venue boards told of a push whichever process took it (PostgreSQL's LISTEN/NOTIFY,
league/board/news.py), and a game pushed in turns to both stored once."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
import sqlalchemy as sa

from league.board.news import News
from league.store.core import Store
from tests.board_helpers import busy_night, push_body, table_game
from tests.league_server import LeagueServer
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


@pg_only
def test_two_server_processes_tell_each_others_boards_and_store_a_game_pushed_to_both_once(league_db, tmp_path):
    store = Store(league_db)
    world = busy_night(store, tables=2)
    events = table_game(tmp_path, world["teams"][0], hands=2)
    servers = [LeagueServer(league_db), LeagueServer(league_db)]
    for served in servers:
        served.start()
    try:

        async def boards_on_both() -> None:
            streams = [await Stream.open(served.port, f"/board/{world['venue']}/events") for served in servers]
            for stream in streams:
                await stream.next_board(5)
            loop = asyncio.get_running_loop()
            half = len(events) // 2
            for served, part in ((servers[0], events[:half]), (servers[1], events)):  # the second: a resend too
                body = push_body(world["meetings"][0], part)
                status, answer = await loop.run_in_executor(
                    None, served.api.call, "POST", "/api/v1/push", body, world["keys"][0]
                )
                acked = time.monotonic()
                assert status == 200 and answer["games"][0]["acked"] == len(part)
                for stream in streams:  # whichever process took the push, every board hears of it
                    update = await stream.next_board(2.0)
                    assert update.at - acked < 1.0
            assert answer["games"][0]["duplicates"] == half and answer["games"][0]["stored"] == len(events) - half
            assert "2 hands" in json.loads(update.data)["tables"]
            for stream in streams:
                stream.close()

        asyncio.run(boards_on_both())
    finally:
        for served in servers:
            served.stop()
    with store.read() as r:
        held = r.conn.execute(sa.text("SELECT count(*), count(DISTINCT seq) FROM kiosk_events")).one()
    store.close()
    assert tuple(held) == (len(events), len(events))
