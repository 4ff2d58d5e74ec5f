"""Venue-board benchmark: 100 open boards (server-sent event streams on loopback) on one venue of a
real ``clabber league serve`` (SQLite), 12 tables playing; a kiosk pushes a hand, and each board's
time from the push's acknowledgement to that board getting the new state is measured. 30 pushes,
one every 0.3 s, each from the next table in turn.

Run with ``./run bench board``. Prints the median, the 99th
percentile and the most over the 3,000 deliveries (target: the most ≤ 1 s), and the time to draw
the 12-table board; asserts nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from league.board.tonight import Board
from league.store.core import Store
from tests.board_helpers import TONIGHT, busy_night, push_body, table_game
from tests.league_server import LeagueServer
from tests.sse import Stream

BOARDS = 100
PUSHES = 30
TABLES = 12


async def deliveries(server: LeagueServer, night: dict, games: list[list[dict]]) -> list[float]:
    loop = asyncio.get_running_loop()
    path = f"/board/{night['venue']}/events"
    streams = await asyncio.gather(*(Stream.open(server.port, path) for _ in range(BOARDS)))
    await asyncio.gather(*(s.next_board(30) for s in streams))  # each has the whole board
    waits: list[float] = []
    sent = [5] * len(games)  # events each table has pushed
    for n in range(PUSHES):
        t = n % TABLES
        events = games[t][sent[t] : sent[t] + 2]  # the next hand: entered, confirmed
        sent[t] += 2
        body = push_body(night["meetings"][t], events)
        call = (server.api.call, "POST", "/api/v1/push", body, night["keys"][t])
        status, answer = await loop.run_in_executor(None, *call)
        acked = time.monotonic()
        assert status == 200 and answer["games"][0]["stored"] == 2, answer
        got = await asyncio.gather(*(s.next_board(10) for s in streams))
        waits += [e.at - acked for e in got]
        await asyncio.sleep(0.3)
    for s in streams:
        s.close()
    return waits


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = str(folder / "league.db")
        store = Store(db)
        night = busy_night(store, tables=TABLES)
        # Each table's game of five hands: started and two hands pushed before the boards open, the
        # other three hands pushed while they watch (the fifth ends the game).
        games = [table_game(folder, teams, hands=5) for teams in night["teams"]]
        server = LeagueServer(db)
        server.start()
        try:
            for t, events in enumerate(games):
                body = push_body(night["meetings"][t], events[:5])
                assert server.api.call("POST", "/api/v1/push", body, night["keys"][t])[0] == 200
            waits = asyncio.run(deliveries(server, night, games))
        finally:
            server.stop()
        board = Board(store)
        started = time.perf_counter()
        view = board.tonight(night["venue"], TONIGHT)
        cold = time.perf_counter() - started
        warm = []
        for _ in range(20):
            started = time.perf_counter()
            board.tonight(night["venue"], TONIGHT)
            warm.append(time.perf_counter() - started)
        assert view is not None and len(view["tables"]) == TABLES
        store.close()
    waits.sort()
    ms = [w * 1000 for w in waits]
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"Clabber venue-board benchmark: {BOARDS} open boards, {TABLES} tables, {PUSHES} pushes, loopback")
    print(
        f"  from a push's acknowledgement to each board: median {statistics.median(ms):.0f} ms, "
        f"p99 {p99:.0f} ms, max {ms[-1]:.0f} ms over {len(ms)} deliveries (target: max <= 1000 ms)"
    )
    print(
        f"  drawing the {TABLES}-table board: {cold * 1000:.1f} ms folding every game, "
        f"median {statistics.median(warm) * 1000:.1f} ms with the games kept folded"
    )


if __name__ == "__main__":
    main()
