"""The result server under faults and hostile use: a real server on loopback, real sockets.

A flood of idle and slow connections under systemd's default open-file limit, the headers on
every kind of response, a database file replaced or damaged under a running server, and the
kiosk stopped while the server reads the file from a read-only mount (as its unit mounts it).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import re
import resource
import select
import shutil
import socket
import sqlite3
import statistics
import subprocess
import threading
import time
from pathlib import Path

import pytest

from kiosk.backups import back_up
from kiosk.recovery import restore
from shared.http.guard import HEAD_TIMEOUT
from tests.store_helpers import open_table
from tests.web_helpers import Server, fetch, finished_game, free_port

SYSTEMD_NOFILE = 1024  # systemd's default soft limit for a service that sets none
IDLE, SLOW = 1100, 100
SLACK = 2.5  # s past the deadline for the test's own polling on a busy machine


def raise_own_file_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(hard, wanted)))
    except (ValueError, OSError) as e:
        raise AssertionError(f"the flood test needs {wanted} open files (limit {soft}/{hard}): {e}") from None


class Flood:
    """Sockets that connect and say nothing, or trickle a request head a line a second."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.poll = select.poll()
        self.open: dict[int, tuple[socket.socket, float, bool]] = {}  # fd -> (socket, opened at, slow)
        self.lifetimes: list[float] = []  # s from opening to the server closing it
        self.refused = 0

    def add(self, slow: bool) -> None:
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
        except OSError:
            self.refused += 1
            return
        if slow:
            s.sendall(b"GET /g/0123456789abcdef HTTP/1.1\r\nHost: table\r\n")
        s.setblocking(False)
        self.open[s.fileno()] = (s, time.monotonic(), slow)
        self.poll.register(s, select.POLLIN | select.POLLHUP | select.POLLERR)

    def trickle(self) -> None:
        """One more header line on each slow connection still open."""
        for s, _, slow in list(self.open.values()):
            if slow:
                with contextlib.suppress(OSError):  # closed by the server: reap() will see it
                    s.send(b"X-Slow: 1\r\n")

    def reap(self, timeout: float) -> None:
        """Notes the connections the server has closed."""
        for fd, _ in self.poll.poll(timeout * 1000):
            s, opened, _ = self.open[fd]
            try:
                while s.recv(65536):
                    pass  # whatever the server said before closing
            except BlockingIOError:
                continue  # still open
            except OSError:
                pass  # reset: closed
            self.lifetimes.append(time.monotonic() - opened)
            self.poll.unregister(fd)
            del self.open[fd]
            s.close()

    def close(self) -> None:
        for s, _, _ in self.open.values():
            s.close()


@pytest.mark.slow
def test_idle_and_slow_connections_neither_stop_the_pages_nor_stay(tmp_path):
    raise_own_file_limit(IDLE + SLOW + 512)
    table = open_table(tmp_path / "clabber.db")
    game = finished_game(table)
    table.store.close()
    log = tmp_path / "server.log"
    server = Server(tmp_path / "clabber.db", log=log, nofile=SYSTEMD_NOFILE)
    flood = Flood(server.port)
    latencies: list[float] = []
    statuses: list[int | str] = []
    stop = threading.Event()

    def phone() -> None:  # someone at the bar opening the result page, again and again
        while not stop.is_set():
            start = time.monotonic()
            try:
                status, _, _ = fetch(server.port, f"/g/{game.token}", timeout=5)
            except OSError as e:
                status = type(e).__name__
            latencies.append(time.monotonic() - start)
            statuses.append(status)
            time.sleep(0.05)

    phones = threading.Thread(target=phone)
    try:
        assert fetch(server.port, f"/g/{game.token}")[0] == 200  # drawn once before: the flood is measured
        phones.start()
        started = time.monotonic()
        last_trickle = started
        for i in range(IDLE + SLOW):
            if time.monotonic() - started > 60:
                break
            flood.add(slow=i >= IDLE)
            if i % 50 == 0:
                flood.reap(0)
        opened = IDLE + SLOW - flood.refused
        all_open = time.monotonic()
        while flood.open and time.monotonic() < all_open + HEAD_TIMEOUT + SLACK:
            flood.reap(0.1)
            if time.monotonic() - last_trickle >= 1:
                flood.trickle()
                last_trickle = time.monotonic()
        stop.set()
        phones.join(timeout=30)
        still_open = len(flood.open)
        try:
            final: int | str = fetch(server.port, f"/g/{game.token}", timeout=5)[0]
        except OSError as e:
            final = type(e).__name__
    finally:
        stop.set()
        flood.close()
        output = server.close()
    longest = max(flood.lifetimes, default=0.0)
    print(
        f"opened {opened} ({flood.refused} refused); requests {len(latencies)}, "
        f"p50 {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.0f} ms; "
        f"longest-lived flood connection {longest:.1f} s; log {log.stat().st_size} bytes"
    )
    assert opened >= IDLE, f"only {opened} connections could be opened: the flood did not happen"
    assert still_open == 0, f"{still_open} connections still open {HEAD_TIMEOUT + SLACK:.0f} s after the flood"
    assert longest <= HEAD_TIMEOUT + SLACK, f"a connection stayed {longest:.1f} s"
    assert len(latencies) >= 20 and all(s == 200 for s in statuses), statuses[:20]
    p99 = statistics.quantiles(latencies, n=100)[98]
    assert p99 < 1.0, f"p99 {p99 * 1000:.0f} ms while the flood was open"
    assert final == 200
    assert log.stat().st_size < 1_000_000 and "Traceback" not in output, output[-2000:]


# ---- headers on every response --------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("headers")
    table = open_table(folder / "clabber.db")
    game = finished_game(table)
    table.store.close()
    empty = folder / "empty.db"
    empty.write_bytes(b"")  # a file the kiosk has not set up: the "table is restarting" page
    damaged = folder / "damaged.db"
    damaged.write_bytes(b"this is not an SQLite database, it was overwritten" * 200)
    servers = {"ok": Server(folder / "clabber.db"), "empty": Server(empty), "damaged": Server(damaged)}
    yield {"game": game, **servers}
    for name, server in servers.items():
        out = server.close()
        assert "Traceback" not in out, (name, out)


def assert_hardened(status: int, headers: dict[str, str], what: str) -> None:
    csp = headers.get("content-security-policy", "")
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp, (what, status, headers)
    assert headers.get("x-content-type-options") == "nosniff", (what, headers)
    assert headers.get("referrer-policy") == "no-referrer", (what, headers)
    assert headers.get("x-frame-options") == "DENY", (what, headers)
    assert headers.get("cache-control"), (what, headers)
    assert "server" not in headers, (what, headers["server"])
    assert "\n" not in "".join(headers.values()), (what, "a header sent twice", headers)


def test_every_response_carries_the_security_headers(served):
    port, token = served["ok"].port, served["game"].token
    expect = {
        f"/g/{token}": (200, "no-cache"),
        f"/g/{token}.json": (200, "no-cache"),
        "/view": (200, "max-age"),
        "/": (404, "no-store"),
        "/recent": (404, "no-store"),
        "/stats": (404, "no-store"),
        "/g/nothing-here-at-all": (404, "no-store"),
        "/g/" + "x" * 40 + ".json": (404, "no-store"),
    }
    for path, (status, cache) in expect.items():
        got, headers, _ = fetch(port, path)
        assert got == status, path
        assert_hardened(got, headers, path)
        assert cache in headers["cache-control"], (path, headers["cache-control"])
    got, headers, _ = fetch(port, f"/g/{token}", method="POST")
    assert got == 404
    assert_hardened(got, headers, "POST")
    got, headers, body = fetch(served["empty"].port, f"/g/{token}")
    assert got == 503 and b"restarting" in body
    assert_hardened(got, headers, "busy")
    got, headers, body = fetch(served["damaged"].port, f"/g/{token}")
    assert got == 503 and b"cannot be read" in body
    assert_hardened(got, headers, "damaged")


def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """A request sent as these bytes: the answer's status, headers and body (read to the close, or
    to the end of a kept-alive answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        raw = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                raw += chunk
                if b"connection: close" not in raw.lower():
                    head, _, body = raw.partition(b"\r\n\r\n")
                    length = re.search(rb"content-length: *(\d+)", head, re.I)
                    if length and len(body) >= int(length.group(1)):
                        break  # a kept-alive answer, whole
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


@pytest.mark.slow
def test_a_request_the_server_cannot_parse_gets_the_headers_too(served):
    status, headers, _ = _raw(served["ok"].port, b"THIS IS NOT HTTP\r\n\r\n")
    assert status == 400
    assert_hardened(status, headers, "400")


def test_a_request_head_past_the_bound_is_refused_with_the_headers_and_one_within_it_is_answered(served):
    port, token = served["ok"].port, served["game"].token
    cookie = "c=" + "x" * 7000  # a big head, but within the bound: a page
    status, _, body = _raw(port, f"GET /g/{token} HTTP/1.1\r\nHost: t\r\nCookie: {cookie}\r\n\r\n".encode())
    assert status == 200 and b"Ruminers" in body
    many = "\r\n".join(f"X-Pad-{i}: {'y' * 90}" for i in range(100))
    for head in (f"Cookie: c={'x' * 9000}", many):  # one long line, and many lines
        big = f"GET /g/{token} HTTP/1.1\r\nHost: t\r\n{head}\r\n\r\n"
        status, headers, body = _raw(port, big.encode())
        assert status == 400 and body == b"Bad request.\n", (status, body[:200])
        assert_hardened(status, headers, "a head too long")
    status, _, _ = _raw(port, f"GET /{'p' * 9000} HTTP/1.1\r\nHost: t\r\n\r\n".encode())  # a target too long
    assert status == 400


def test_the_policy_allows_exactly_the_inline_blocks_the_pages_use(served):
    port, token = served["ok"].port, served["game"].token
    for path in (f"/g/{token}", "/view", "/nothing"):
        _, headers, body = fetch(port, path)
        csp = headers["content-security-policy"]
        blocks = re.findall(r"<(style|script)>(.*?)</\1>", body.decode(), re.S)
        assert blocks, path
        for kind, text in blocks:
            digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in csp.split(f"{kind}-src", 1)[1].split(";")[0], (path, kind)
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


def test_a_damaged_file_is_said_once_in_the_log_not_per_request(tmp_path):
    damaged = tmp_path / "clabber.db"
    damaged.write_bytes(b"this is not an SQLite database, it was overwritten" * 200)
    server = Server(damaged, log=tmp_path / "server.log")
    try:
        for _ in range(30):
            status, _, body = fetch(server.port, "/g/0123456789abcdef0123")
            assert status == 503 and b"damaged" in body
    finally:
        out = server.close()
    assert out.count("cannot be read") == 1 and "Traceback" not in out, out


# ---- the file replaced, damaged, or left without its writer ---------------------------------------


def hands_on_page(html: str) -> int:
    return len(re.findall(r"<summary>Hand \d+", html))


@pytest.mark.slow
def test_a_restored_file_is_read_under_a_running_server(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    game = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    game = table.add_hand(game.id, {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}})
    backup = back_up(table.store, tmp_path / "backups", keep=3)  # one hand on the sheet
    while game.status == "open":
        game = table.add_hand(game.id, {"trump": "S", "maker": "N", "points": {"NS": 162, "EW": 0}})
    table.store.close()
    server = Server(db)
    try:
        status, _, html = server.get(f"/g/{game.token}")
        assert status == 200 and hands_on_page(html) == len(game.hands) > 1
        restore(db, backup, tmp_path / "damaged")  # the kiosk stopped, the owner restores a backup
        table = open_table(db)
        newer = table.new_game(["Pinochlers", "Bellmen"], first_dealer="E")
        table.store.close()
        status, _, html = server.get(f"/g/{game.token}")
        assert status == 200 and hands_on_page(html) == 1 and "The game is not over." in html
        status, _, html = server.get(f"/g/{newer.token}")
        assert status == 200 and "Pinochlers" in html
    finally:
        assert "Traceback" not in server.close()


def read_only_mount(folder: Path) -> list[str]:
    """A command prefix that runs its arguments with ``folder`` mounted read-only, as the web
    unit's ``ReadOnlyPaths=`` does (a private mount namespace; works as root and as a user)."""
    if shutil.which("unshare") is None:
        raise AssertionError("this test needs unshare (util-linux)")
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", script, str(folder), "true"], capture_output=True, text=True)
    assert probe.returncode == 0, f"cannot mount read-only in a namespace: {probe.stderr}"
    return ["unshare", "-rm", "sh", "-c", script, str(folder)]


@pytest.mark.slow
def test_finished_games_stay_readable_with_the_kiosk_stopped(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    game = finished_game(table)
    table.store.close()  # the kiosk stops: the last connection takes the -wal and -shm with it
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    server = Server(db, wrap=read_only_mount(tmp_path))
    try:
        for path in (f"/g/{game.token}", f"/g/{game.token}.json"):
            status, _, body = server.get(path)
            assert status == 200, (path, status, body[:200])
        # The kiosk starts again and saves a hand: the server reads it at once, not a stale copy.
        table = open_table(db)
        playing = table.new_game(["Later", "Still"], first_dealer="N")
        playing = table.add_hand(playing.id, {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}})
        status, _, html = server.get(f"/g/{playing.token}")
        assert status == 200 and hands_on_page(html) == 1
        playing = table.add_hand(playing.id, {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}})
        status, _, html = server.get(f"/g/{playing.token}")
        assert status == 200 and hands_on_page(html) == 2
        table.store.close()  # and stops again, with the server reading
        assert server.get(f"/g/{game.token}")[0] == 200
    finally:
        assert "Traceback" not in server.close()
    server = Server(db, wrap=read_only_mount(tmp_path))  # a server started after all that
    try:
        assert server.get(f"/g/{game.token}")[0] == 200
        status, _, html = server.get(f"/g/{playing.token}")
        assert status == 200 and hands_on_page(html) == 2
    finally:
        assert "Traceback" not in server.close()


@pytest.mark.slow
def test_a_game_whose_log_cannot_be_folded_says_so_and_is_logged_once(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    game = finished_game(table, hands=1)
    table.store.close()
    conn = sqlite3.connect(db)  # one digit altered behind the kiosk's back, as the audit did
    conn.execute("DROP TRIGGER events_append_only_update")
    seq = conn.execute("SELECT seq FROM events WHERE game = ? AND kind = 'hand_entered' ORDER BY seq", (game.id,))
    first = seq.fetchone()[0]
    conn.execute(
        "UPDATE events SET payload = replace(payload, '\"NS\": 70', '\"NS\": 79') WHERE game = ? AND seq = ?",
        (game.id, first),
    )
    conn.commit()
    conn.close()
    log = tmp_path / "server.log"
    server = Server(db, log=log)
    try:
        for _ in range(20):
            status, _, html = server.get(f"/g/{game.token}")
            assert status == 503 and "needs the owner" in html
    finally:
        out = server.close()
    assert out.count(f"game {game.id} cannot be shown") == 1 and "Traceback" not in out, out


@pytest.mark.slow
def test_a_page_on_a_kept_alive_connection_is_not_held_back(served):
    """Each response goes out at once (TCP_NODELAY): with Nagle's algorithm on, the second write
    of a response waits for the phone's delayed ACK, 40 ms a page."""
    conn = http.client.HTTPConnection("127.0.0.1", served["ok"].port, timeout=10)
    times = []
    try:
        for _ in range(30):
            start = time.monotonic()
            conn.request("GET", f"/g/{served['game'].token}")
            r = conn.getresponse()
            r.read()
            times.append(time.monotonic() - start)
            assert r.status == 200
    finally:
        conn.close()
    assert statistics.median(times) < 0.025, f"median {statistics.median(times) * 1000:.0f} ms"


@pytest.mark.slow  # draws big games while pages are timed
def test_drawing_big_games_does_not_hold_up_other_pages(tmp_path):
    table = open_table(tmp_path / "clabber.db")
    # A game of four thousand hands, nearly all passed out (the same dealer deals again): a page that
    # takes a while to fold and draw, made by import as one transaction rather than hand by hand.
    record = finished_game(table).record()
    record["hands"] = [{"dealer": record["hands"][0]["dealer"], "passed_out": True}] * 4000 + record["hands"]
    big, *copies = [table.import_game(record) for _ in range(3)]  # one copy for each render thread
    table.store.close()
    server = Server(tmp_path / "clabber.db")
    try:
        start = time.monotonic()
        assert fetch(server.port, f"/g/{big.token}")[0] == 200
        one = time.monotonic() - start  # folding and drawing one big game, cold
        results: list[int] = []
        drawers = [
            threading.Thread(target=lambda t=g.token: results.append(fetch(server.port, f"/g/{t}")[0])) for g in copies
        ]
        for t in drawers:
            t.start()
        small = []
        while any(t.is_alive() for t in drawers) and len(small) < 200:
            start = time.monotonic()
            assert fetch(server.port, "/nothing-here")[0] == 404
            small.append(time.monotonic() - start)
        for t in drawers:
            t.join(timeout=30)
    finally:
        assert "Traceback" not in server.close()
    assert results == [200] * len(copies)
    print(
        f"one big game {one * 1000:.0f} ms; small pages meanwhile: {len(small)}, "
        f"median {statistics.median(small) * 1000:.1f} ms"
    )
    assert len(small) >= 3 and statistics.median(small) < one / 3, (one, small)


def test_answered_requests_leave_nothing_for_the_collector_of_cyclic_garbage():
    """Each request's objects are freed as its answer ends, not left in a cycle for Python's collector
    of cyclic garbage, which stops the whole server while it looks (on a busy league night, pauses of
    tens of milliseconds every few seconds, and of half a second now and then). The guard's own
    request objects included (its deadline's ``LONG_RESPONSE``)."""
    import gc

    from shared.http import guard
    from shared.http.server import guarded_server

    async def app(scope, receive, send):
        put_off = scope["extensions"][guard.LONG_RESPONSE]
        put_off(5.0)  # a request that asks for more time, as the TV board's stream does
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    port = free_port()
    srv, sock = guarded_server(app, "127.0.0.1", port, lifespan="off")
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.02)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage, to be counted
    try:
        for _ in range(2):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            for _ in range(100):  # one keep-alive connection, as a kiosk's worker has
                connection.request("GET", "/")
                answer = connection.getresponse()
                assert (answer.status, answer.read()) == (200, b"ok")
            connection.close()
        time.sleep(0.2)  # the server has seen the connections close
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        srv.should_exit = True
        thread.join(10)
    cycles = left.count("RequestResponseCycle")
    assert cycles <= 2, f"{cycles} of 200 requests were left to the collector"  # at most each connection's last
