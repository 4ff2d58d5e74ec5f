"""A small client of server-sent events over loopback, for the board's tests and its benchmark: a GET
on a raw socket, the chunked body undone, each event (or comment) handed over with when it came."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field


@dataclass
class Event:
    kind: str  # the event's name ("message" when unnamed); "comment" for a line starting with ":"
    data: str
    at: float = field(default_factory=time.monotonic)
    retry: int | None = None


class Stream:
    """One open stream of events from ``GET path`` on 127.0.0.1:``port``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int, headers: dict) -> None:
        self.reader, self.writer = reader, writer
        self.status, self.headers = status, headers
        self._text = ""
        self._pending: list[Event] = []

    @classmethod
    async def open(cls, port: int, path: str, timeout: float = 10) -> Stream:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
        return cls(reader, writer, status, headers)

    async def _chunk(self) -> str:
        """The next piece of the body ('' once it has ended)."""
        if self.headers.get("transfer-encoding") != "chunked":
            return (await self.reader.read(65536)).decode()
        size = int((await self.reader.readline()).strip() or b"0", 16)
        if size == 0:
            return ""
        data = await self.reader.readexactly(size)
        await self.reader.readexactly(2)
        return data.decode()

    async def next(self, timeout: float = 10) -> Event:
        """The next event or comment; TimeoutError after ``timeout`` s, EOFError when the stream ends."""
        deadline = time.monotonic() + timeout
        while not self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no event in {timeout} s")
            piece = await asyncio.wait_for(self._chunk(), left)
            if not piece:
                raise EOFError("the stream ended")
            self._text += piece
            while "\n\n" in self._text:
                block, self._text = self._text.split("\n\n", 1)
                self._pending.append(_parse(block))
        return self._pending.pop(0)

    async def next_board(self, timeout: float = 10) -> Event:
        """The next ``board`` event, comments and the like passed over."""
        deadline = time.monotonic() + timeout
        while True:
            e = await self.next(max(0.001, deadline - time.monotonic()))
            if e.kind == "board":
                return e

    def close(self) -> None:
        self.writer.close()


def _parse(block: str) -> Event:
    kind, data, retry = "message", [], None
    for line in block.split("\n"):
        if line.startswith(":"):
            return Event("comment", line[1:].strip())
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            kind = value
        elif name == "data":
            data.append(value)
        elif name == "retry":
            retry = int(value)
    return Event(kind if data or retry is None else "retry", "\n".join(data), retry=retry)
