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
from tests.league_db import pg_schema
from tests.league_server import LeagueServer
from tests.sse import Stream

pg_only = pytest.mark.parametrize("league_db", [pytest.param("postgresql", marks=pytest.mark.slow)], indirect=True)


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


def _covered(sent: list[int | None], heard: list[int | None]) -> bool:
    """Whether every venue sent was heard, by itself or as news for every venue."""
    return None in heard or set(sent) <= set(heard)


@pg_only
def test_board_news_reaches_every_process_alike_and_in_the_same_order(league_db):
    stores = [Store(league_db), Store(league_db)]  # two processes' stores, each with its own listener
    heard = [Heard(), Heard()]
    news = [News(s, h).start() for s, h in zip(stores, heard, strict=True)]
    try:
        _until(lambda: all(n.listening.is_set() for n in news))
        news[0].changed(7)
        news[1].changed(5)
        news[0].changed(3)
        _until(lambda: all(_covered([7, 5, 3], h.venues) for h in heard), 5)
        time.sleep(0.2)  # anything still on its way
        assert heard[0].venues == heard[1].venues  # every process hears the same news in the same order
        assert len(heard[0].venues) == len(set(heard[0].venues))  # each change told once
        news[1].changed(None)
        _until(lambda: all(h.venues[-1:] == [None] for h in heard), 5)
    finally:
        for n in news:
            n.stop()
        for s in stores:
            s.close()


@pg_only
def test_changes_queued_while_one_is_sent_go_in_one_notification(league_db):
    store = Store(league_db)
    heard = Heard()
    news = News(store, heard).start()
    try:
        _until(news.listening.is_set)
        sent = [v % 20 + 1 for v in range(400)]  # a busy night: 400 pushes at 20 venues
        for venue in sent:
            news.changed(venue)
        _until(lambda: set(sent) <= set(heard.venues), 5)
        time.sleep(0.2)
    finally:
        news.stop()
        store.close()
    assert len(heard.venues) < len(sent) / 4, len(heard.venues)  # far fewer notifications than pushes


@pg_only
def test_leagues_sharing_a_database_never_hear_each_others_news(league_db):
    with pg_schema() as other:
        ours, theirs = Store(league_db), Store(other)
        heard = [Heard(), Heard()]
        news = [News(ours, heard[0]).start(), News(theirs, heard[1]).start()]
        try:
            _until(lambda: all(n.listening.is_set() for n in news))
            news[0].changed(4)
            news[1].changed(9)
            _until(lambda: heard[0].venues and heard[1].venues, 5)
            time.sleep(0.3)
            assert (heard[0].venues, heard[1].venues) == ([4], [9])
        finally:
            for n in news:
                n.stop()
            ours.close()
            theirs.close()


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
