"""How many connections the result server keeps, and for how long.

uvicorn closes a keep-alive connection that stays silent, but not one that never sends a byte,
nor one that sends its request head a byte at a time: a phone can open a thousand of those and
use up the process's file limit, and then nobody's page loads. This protocol gives every
connection a deadline for its request head (counted from when it connected or its last response
ended, and not put off by each byte that trickles in) and one for its response, and keeps the
connections below a cap under the file limit: a new one past the cap closes the connection that
has waited longest for a request head, or is refused when none is waiting.

A stream (the league's board: server-sent events) is one response that never ends. It asks for
more time itself, through the scope's extension ``LONG_RESPONSE``: each call puts its deadline that
many seconds from now, so a stream that stops getting its bytes out (a client gone without a word)
is still closed, while one that writes keeps going. A server shutting down closes such streams
rather than waiting for them to end.

The protocol is uvicorn's httptools one: llhttp parses the request in C, where h11's pure Python
took a sixth of the league server's time under the bench's load. llhttp sets no bound on a request's
head, so the guard counts its bytes (``MAX_HEAD``).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import weakref
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from shared.http.headers import PLAIN_CSP, SECURITY_HEADERS

HEAD_TIMEOUT = 10.0  # s from connecting (or the end of the last response) to a whole request head
RESPONSE_TIMEOUT = 30.0  # s from a request head to its whole response being written
MAX_CONNECTIONS = 1000  # far above what a bar's phones need; each costs a file and a few kB
BACKLOG = 64  # the listen queue, and so the most connections asyncio accepts in one go
RESERVED_FILES = 64  # the database, its -wal and -shm, the listening socket, standard streams...
LONG_RESPONSE = "clabber.long_response"  # scope["extensions"][...]: a callable(seconds) that puts the deadline off
MAX_HEAD = 8 * 1024  # bytes of a request's target and headers: a page's are a few hundred
WANTED_FILES = 4096  # the open-file limit the server raises its soft limit to, when allowed

log = logging.getLogger("kiosk.web")


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """Raises the soft open-file limit towards ``wanted`` (the hard limit allowing); returns it.

    systemd starts services with a soft limit of 1024 for programs that still use select();
    this one uses epoll, and may take what the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(file_limit: int) -> int:
    """The most connections kept open under an open-file limit.

    asyncio accepts up to a listen queue's worth of connections in one go and hands them to the
    protocol a turn or two of the loop later, and a connection closed to make room gives its file
    back a turn after that: a few queues' worth of files must stay free beside the database's."""
    return max(16, min(MAX_CONNECTIONS, file_limit - 4 * BACKLOG - RESERVED_FILES))


class Guard:
    """The state the connections of one server share: the cap, and who waits for a request head."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.waiting: OrderedDict[GuardedProtocol, None] = OrderedDict()  # longest waiting first


class HeadTooLong(Exception):
    """A request's head past ``MAX_HEAD`` bytes: the parser stops, and the answer is a 400."""


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines, a cap and a bound on the head (the module's docstring)."""

    guard: Guard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._request: object | None = None  # the request whose response the deadline is for
        self._long: object | None = None  # the request whose response asked for more time (a stream)
        self._head = 0  # bytes of the request head being read

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.guard.cap:
            if self.guard.waiting:
                oldest = next(iter(self.guard.waiting))
                oldest.drop()
                log.warning("at the limit of %d connections: closing those that wait longest", self.guard.cap)
            else:
                self.drop()
                log.warning("at the limit of %d connections, all busy: refusing new ones", self.guard.cap)
                return
        self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.guard.waiting.pop(self, None)
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server is stopping: a stream would never end by itself, so it is closed now."""
        if self._long is not None and self._long is self.cycle:
            self.drop()
            return
        super().shutdown()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._note_request()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head = 0

    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)  # ": " and the line's end
        super().on_header(name, value)

    def _count_head(self, size: int) -> None:
        self._head += size
        if self._head > MAX_HEAD:
            raise HeadTooLong(f"a request head of more than {MAX_HEAD} bytes")  # the parser's error: a 400

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start the next request at once (pipelining)
        if self.transport.is_closing():
            return
        if not self._note_request():
            self._wait_for_head()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request it cannot parse, with the site's headers."""
        body = b"Bad request.\n"
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            (b"cache-control", b"no-store"),
            (b"content-security-policy", PLAIN_CSP),
            *SECURITY_HEADERS,
        ]
        head = b"".join(b"%s: %s\r\n" % header for header in headers)
        if self.cycle is None or not self.cycle.response_started:  # else a response had begun: just close
            self.transport.write(STATUS_LINE[400] + head + b"\r\n" + body)
        self.transport.close()

    def drop(self) -> None:
        """Closes the connection now, whatever it was doing."""
        self._disarm()
        self.guard.waiting.pop(self, None)
        if not self.transport.is_closing():
            self.transport.abort()

    def _note_request(self) -> bool:
        """Whether a request is being answered; a new one gets its response deadline."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return False
        if cycle is not self._request:
            self._request = cycle
            self.guard.waiting.pop(self, None)
            self._arm(RESPONSE_TIMEOUT)
            # The app runs on the loop's next turn, with this scope: it may ask for more time.
            scope: Any = cycle.scope
            scope.setdefault("extensions", {})[LONG_RESPONSE] = _PutOff(self, cycle)
        return True

    def _put_off(self, cycle: Any, seconds: float) -> None:
        """The response of ``cycle`` (still this connection's) gets ``seconds`` from now to end or ask again."""
        if cycle is self._request and cycle is self.cycle and not cycle.response_complete:
            self._long = cycle
            if not self.transport.is_closing():
                self._arm(seconds)

    def _wait_for_head(self) -> None:
        self.guard.waiting.pop(self, None)
        self.guard.waiting[self] = None
        self._arm(HEAD_TIMEOUT)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self.drop)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None


class _PutOff:
    """A request's way to ask for more time (its scope's ``LONG_RESPONSE``). It holds its connection and
    its request weakly: a closure over them, kept in the request's own scope, made each request a
    cycle that only the collector of cyclic garbage could free, in pauses that held up every answer."""

    __slots__ = ("_cycle", "_protocol")

    def __init__(self, protocol: GuardedProtocol, cycle: Any) -> None:
        self._protocol = weakref.ref(protocol)
        self._cycle = weakref.ref(cycle)

    def __call__(self, seconds: float) -> None:
        protocol, cycle = self._protocol(), self._cycle()
        if protocol is not None and cycle is not None:
            protocol._put_off(cycle, seconds)


def guarded_protocol(guard: Guard) -> type[GuardedProtocol]:
    """The protocol class for one server, bound to its shared state."""
    return type("GuardedProtocol", (GuardedProtocol,), {"guard": guard})
