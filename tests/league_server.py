"""``clabber league serve`` as a real uvicorn process on a free port of 127.0.0.1, and a small JSON
and page client for it."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.web_helpers import free_port

CLABBER = Path(sys.executable).with_name("clabber")


class Api:
    """JSON requests and pages from the server on loopback, each bounded by a timeout."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(self, method: str, path: str, body: object = None, key: str | None = None) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        try:
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            r = conn.getresponse()
            return r.status, json.loads(r.read())
        finally:
            conn.close()

    def page(self, path: str) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            return r.status, r.read().decode()
        finally:
            conn.close()


class LeagueServer:
    """``clabber league serve`` on one port of 127.0.0.1 that a test can stop, kill and start again
    (the same port: the kiosk's link stays right)."""

    def __init__(self, db: str, port: int | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (its words; never a pipe a chatty server could fill)
        self.api = Api(self.port)
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert self.proc is None, "the server is running already"
        proc = subprocess.Popen(
            [
                str(CLABBER),
                "league",
                "--db",
                self.db,
                "serve",
                "--port",
                str(self.port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env={**os.environ, "CLABBER_LEAGUE_DB": ""},
        )
        deadline = time.monotonic() + 20
        while True:  # bounded: until it answers, it dies, or 20 s pass
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    proc.wait(timeout=10)
                    self.log.seek(0)
                    pytest.fail(f"the server did not start: {self.log.read().decode()[-3000:]}")
                time.sleep(0.05)
        self.proc = proc

    def stop(self) -> None:
        """SIGTERM, as systemd stops it."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._done()

    def kill(self) -> None:
        """SIGKILL: the server dies wherever it is, a push half-done included."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._done()

    def _done(self) -> None:
        self.proc = None


@contextmanager
def league_server(db: str) -> Iterator[Api]:
    """The server on ``db`` until the block ends (then stopped with SIGTERM, as systemd stops it)."""
    server = LeagueServer(db)
    server.start()
    try:
        yield server.api
    finally:
        server.stop()
