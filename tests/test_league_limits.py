"""Limits before work on the league's server: what a request without a good key can make the server
hold, measured on a real server process."""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

import pytest

from league.api.app import MOST_BODY
from league.ingest.kiosks import Kiosks
from league.store.core import Store
from tests.league_kiosk_helpers import league_with_schedule
from tests.league_server import LeagueServer

pytestmark = pytest.mark.slow


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_bodies_sent_with_a_wrong_key_are_not_held(tmp_path):
    """300 connections with a wrong key, each sending a body of 1 MiB less a byte and reading nothing
    back: the server answers each 401 without reading the body, and holds little for them."""
    db = str(tmp_path / "league.db")
    store = Store(db)
    league_with_schedule(store)
    store.close()
    server = LeagueServer(db)
    server.start()
    assert server.proc is not None
    conns = []
    try:
        server.api.call("GET", "/api/v1/tonight", key="warm-up")  # the API's modules loaded, as in use
        before = _rss_mb(server.proc.pid)
        body = b"x" * (MOST_BODY - 1)
        head = (
            "POST /api/v1/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-key\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        for _ in range(300):
            c = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            c.setblocking(False)
            c.send(head)
            with contextlib.suppress(BlockingIOError):
                c.send(body)  # as much as the network takes without waiting
            conns.append(c)
        time.sleep(1.0)
        held = _rss_mb(server.proc.pid) - before
        status, answer = server.api.call("GET", "/api/v1/tonight", key="still-not-a-key")
        assert status == 401 and "error" in answer  # the server answers on
    finally:
        for c in conns:
            c.close()
        server.stop()
    print(f"server memory for 300 held bodies: {held:.0f} MB more")
    assert held < 64, f"the server holds {held:.0f} MB more for 300 requests without a good key"


def test_wrong_codes_are_counted_across_server_processes(tmp_path):
    """Two server processes on one league: wrong codes sent to each in turn are one count, so the
    eleventh in a minute waits at either (each process counting its own would hear twenty)."""
    db = str(tmp_path / "league.db")
    store = Store(db)
    world = league_with_schedule(store)
    right = Kiosks(store).make_code(world["venues"][0], 1)
    store.close()
    one, two = LeagueServer(db), LeagueServer(db)
    one.start()
    two.start()
    try:
        for i in range(10):
            status, _ = (one, two)[i % 2].api.call("POST", "/api/v1/enrol", {"code": f"WRONG-{i:05d}"})
            assert status == 403
        for server in (one, two):
            status, answer = server.api.call("POST", "/api/v1/enrol", {"code": right})
            assert status == 429 and answer["error"].startswith("too many wrong codes: try again in ")
    finally:
        one.stop()
        two.stop()
