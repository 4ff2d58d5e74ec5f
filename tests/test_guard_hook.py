"""The parts of uvicorn's httptools protocol that ``shared/http/guard.py`` builds on.

The guard subclasses a class uvicorn does not promise to keep: pyproject.toml pins uvicorn to the
range it is tested against, and this test fails, naming the part, when an upgrade changes one of
them. The guard's behaviour (deadlines, the cap, the head's bound) is tested through a real server
in tests/test_web_faults.py and tests/test_league_board.py.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from importlib import metadata

from packaging.specifiers import SpecifierSet
from uvicorn.config import Config
from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from shared.http.guard import GuardedProtocol
from tests.helpers import ROOT

# Each method the guard overrides or calls, with the parameters it passes (self left out).
HOOKED = {
    "connection_made": ["transport"],
    "connection_lost": ["exc"],
    "shutdown": [],
    "data_received": ["data"],
    "on_message_begin": [],
    "on_url": ["url"],
    "on_header": ["name", "value"],
    "on_response_complete": [],
    "send_400_response": ["msg"],
}
# Attributes each protocol holds, which the guard reads: the server's connections, its own loop,
# its transport and the request being answered.
PROTOCOL_STATE = {"connections", "loop", "transport", "cycle"}
CYCLE_STATE = {"scope", "response_started", "response_complete"}


def _pinned() -> SpecifierSet:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    [spec] = re.findall(r'"uvicorn([^"]+)"', text)
    return SpecifierSet(spec)


def _protocol(cls: type[HttpToolsProtocol], loop: asyncio.AbstractEventLoop) -> HttpToolsProtocol:
    """A connection's protocol as uvicorn makes one, on ``loop``."""
    config = Config(app=lambda scope, receive, send: None, http="httptools")
    config.load()
    return cls(config, ServerState(), app_state={}, _loop=loop)


def test_the_installed_uvicorn_is_in_the_pinned_range():
    installed = metadata.version("uvicorn")
    assert installed in _pinned(), f"uvicorn {installed} is outside the range the guard is tested against"


def test_every_method_the_guard_hooks_is_there_with_the_same_parameters():
    changed = []
    for name, parameters in HOOKED.items():
        method = getattr(HttpToolsProtocol, name, None)
        if method is None:
            changed.append(f"HttpToolsProtocol.{name} is gone")
            continue
        got = list(inspect.signature(method).parameters)[1:]
        if got != parameters:
            changed.append(f"HttpToolsProtocol.{name} takes {got}, the guard passes {parameters}")
    assert not changed, "uvicorn changed what shared/http/guard.py hooks: " + "; ".join(changed)


def test_the_state_the_guard_reads_is_kept_where_it_reads_it():
    loop = asyncio.new_event_loop()
    try:
        protocol = _protocol(HttpToolsProtocol, loop)
        missing = {a for a in PROTOCOL_STATE if not hasattr(protocol, a)}
        assert not missing, f"uvicorn's HttpToolsProtocol no longer holds {sorted(missing)}"
        assert protocol.loop is loop and protocol.connections is not None
    finally:
        loop.close()
    cycle_init = inspect.getsource(RequestResponseCycle.__init__)
    missing = {a for a in CYCLE_STATE if f"self.{a} =" not in cycle_init}
    assert not missing, f"uvicorn's RequestResponseCycle no longer holds {sorted(missing)}"


def test_the_status_line_of_a_bad_request_is_where_the_guard_takes_it():
    assert httptools_impl.STATUS_LINE[400].startswith(b"HTTP/1.1 400 ")


def test_the_parser_calls_back_for_the_url_and_each_header():
    # The head's bound counts what llhttp hands to on_url and on_header: a parser that stopped
    # calling them would leave heads unbounded.
    seen: list[tuple[str, bytes]] = []

    class Watching(GuardedProtocol):
        def on_url(self, url: bytes) -> None:
            seen.append(("url", url))

        def on_header(self, name: bytes, value: bytes) -> None:
            seen.append(("header", name))

        def on_headers_complete(self) -> None:
            pass  # no request is answered here: the parse alone is watched

        def on_message_complete(self) -> None:
            pass

    loop = asyncio.new_event_loop()
    try:
        protocol = _protocol(Watching, loop)
        protocol.parser.feed_data(b"GET /a HTTP/1.1\r\nHost: x\r\nX-One: 1\r\n\r\n")
    finally:
        loop.close()
    assert seen == [("url", b"/a"), ("header", b"Host"), ("header", b"X-One")]
