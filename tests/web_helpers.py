"""A real result-page server on loopback, as a process of its own, for the tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``clabber serve`` on 127.0.0.1 and a free port."""

    def __init__(self, db: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        exe = Path(sys.executable).with_name("clabber")
        self.process = subprocess.Popen(
            [str(exe), "serve", "--db", str(db), "--host", "127.0.0.1", "--port", str(self.port),
             "--public-url", self.base],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(self.process.stderr.read()) from None
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
        self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err
