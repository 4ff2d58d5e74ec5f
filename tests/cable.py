"""A cable between the kiosks and the league, on loopback, that a test can cut: a TCP relay in front
of a port. While it is cut, connections under way are reset (a push in flight is lost on the way, its
answer never comes) and new ones are reset as soon as they are made; the league behind it runs on."""

from __future__ import annotations

import contextlib
import functools
import socket
import struct
import threading


def _reset(conn: socket.socket) -> None:
    """Closes with a reset (RST), as a dropped network looks to the other side, waking a thread that waits
    on it."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RD)
    conn.close()


class Cable:
    """Relays every connection to ``127.0.0.1:port``; ``cut()`` and ``mend()`` the network."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.lock = threading.Lock()
        self.up = True
        self.live: set[socket.socket] = set()
        self.cut_off = 0  # connections reset in the middle, over all cuts
        self.refused = 0  # connections reset as soon as they came, while cut
        self.open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def busy(self) -> int:
        """Connections under way through the cable now."""
        with self.lock:
            return len(self.live) // 2

    def cut(self) -> None:
        with self.lock:
            self.up = False
            live, self.live = self.live, set()
            self.cut_off += len(live) // 2  # each connection is two sockets here
        for conn in live:
            _reset(conn)

    def mend(self) -> None:
        with self.lock:
            self.up = True

    def close(self) -> None:
        self.open = False
        self.sock.close()
        self.cut()

    def _accept(self) -> None:
        while self.open:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                up = self.up
                if not up:
                    self.refused += 1
            if not up:
                _reset(conn)
                continue
            try:
                league = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:  # the league itself is down: the kiosk sees its connection dropped
                _reset(conn)
                continue
            league.settimeout(None)
            with self.lock:
                self.live |= {conn, league}
            done = threading.Barrier(2, action=functools.partial(self._forget, conn, league))
            for a, b in ((conn, league), (league, conn)):
                threading.Thread(target=self._pump, args=(a, b, done), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, done: threading.Barrier) -> None:
        """One direction of a connection, until its end; the other side is told with a half-close."""
        with contextlib.suppress(OSError):  # a reset (the league killed, the cable cut) ends it as an end does
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
        with contextlib.suppress(threading.BrokenBarrierError):
            done.wait(timeout=60)

    def _forget(self, conn: socket.socket, league: socket.socket) -> None:
        with self.lock:
            self.live -= {conn, league}
        conn.close()
        league.close()
