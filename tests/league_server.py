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
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CLABBER = Path(sys.executable).with_name("clabber")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


@contextmanager
def league_server(db: str) -> Iterator[Api]:
    """The server on ``db`` until the block ends (then stopped with SIGTERM, as systemd stops it)."""
    port = free_port()
    proc = subprocess.Popen(
        [str(CLABBER), "league", "--db", db, "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "CLABBER_LEAGUE_DB": ""},
    )
    deadline = time.monotonic() + 20
    while True:  # bounded: until it answers, it dies, or 20 s pass
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                _out, err = proc.communicate(timeout=10)
                pytest.fail(f"the server did not start: {err.decode()}")
            time.sleep(0.05)
    try:
        yield Api(port)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
