"""A real result-page server on loopback, as a process of its own, for the tests."""

from __future__ import annotations

import http.client
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from kiosk.table import Table
from shared.game_state import GameState
from tests.store_helpers import QUICK_HANDS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``clabber serve`` on 127.0.0.1 and a free port.

    ``log`` sends the server's standard error to a file (a pipe nobody reads while the test runs
    would stall a server that writes a lot); ``nofile`` runs it under that open-file limit, soft
    and hard, as ``ulimit -n`` or systemd's ``LimitNOFILE`` would; ``wrap`` is a command the
    server is started through (one that ends by running its arguments)."""

    def __init__(
        self,
        db: Path,
        env: dict[str, str] | None = None,
        log: Path | None = None,
        nofile: int | None = None,
        wrap: list[str] | None = None,
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        exe = Path(sys.executable).with_name("clabber")

        def limit() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self._log_file = open(log, "w") if log is not None else None  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(
            [
                *(wrap or []),
                str(exe),
                "serve",
                "--db",
                str(db),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--public-url",
                self.base,
            ],
            stdout=subprocess.PIPE,
            stderr=self._log_file or subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            preexec_fn=limit if nofile is not None else None,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(self.close()) from None
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def get(self, path_or_url: str) -> tuple[int, str, str]:
        """Status, content type and body of a GET (errors included)."""
        url = path_or_url if path_or_url.startswith("http") else self.base + path_or_url
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return r.status, r.headers.get("content-type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("content-type", ""), e.read().decode()

    def close(self) -> str:
        """Stops the server; returns what it wrote on standard error."""
        self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        if self._log_file is not None:
            self._log_file.close()
            return self.log.read_text(errors="replace")
        return err


def fetch(port: int, path: str, method: str = "GET", timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names; a repeated one joined by a newline) and body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path)
        r = conn.getresponse()
        headers: dict[str, str] = {}
        for name, value in r.getheaders():
            key = name.lower()
            headers[key] = f"{headers[key]}\n{value}" if key in headers else value
        return r.status, headers, r.read()
    finally:
        conn.close()


def finished_game(table: Table, teams: tuple[str, str] = ("Ruminers", "Mackeys"), hands: int = 0) -> GameState:
    """A game played to its end (after ``hands`` ordinary hands), through the controller."""
    g = table.new_game(list(teams), ["Ron", "Elbert", "Carolyn", "Walter"], first_dealer="N")
    for i in range(hands):
        g = table.add_hand(g.id, QUICK_HANDS[i % 2] if g.sheet.totals[0] < 200 else {"passed_out": True})
    while g.status == "open":
        g = table.add_hand(g.id, {"trump": "S", "maker": "N", "points": {"NS": 162, "EW": 0}})
    return g
