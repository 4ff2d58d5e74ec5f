"""The headers every result-server response carries, and the last word on errors.

The pages have no third-party anything: the policy allows exactly the inline style and script
blocks the site ships (by their hashes), nothing else, and no framing. A link on a game page must
not tell another site the game's secret address, so no referrer is sent.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
from collections.abc import Iterable
from typing import Any

log = logging.getLogger("kiosk.web")

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors, for browsers that predate it
]  # few: every header costs each response a check of its name and value
PLAIN_CSP = b"default-src 'none'; frame-ancestors 'none'"  # for the server's own plain-text answers
DEFAULT_CACHE = b"no-store"  # errors and anything that did not say otherwise
INLINE = re.compile(r"<(style|script)>(.*?)</\1>", re.S)


def content_security_policy(pages: Iterable[str]) -> bytes:
    """A policy that allows the inline ``<style>`` and ``<script>`` blocks of these pages only."""
    hashes: dict[str, set[str]] = {"style": set(), "script": set()}
    for page in pages:
        for kind, body in INLINE.findall(page):
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            hashes[kind].add(f"'sha256-{digest}'")
    parts = ["default-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]
    for kind, found in hashes.items():
        if found:
            parts.append(f"{kind}-src " + " ".join(sorted(found)))
    return "; ".join(parts).encode()


class Hardened:
    """ASGI wrapper, outermost: adds the headers to every response, and answers an exception that
    got this far with a plain 500, logged (rate-limited) rather than handed to the server.

    A response that carries its own policy keeps it (a page that needs one thing more than the
    others, such as a script of this site's, says so itself); every other response gets ``csp``."""

    def __init__(self, app: Any, csp: bytes) -> None:
        self.app = app
        self.csp = (b"content-security-policy", csp)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_hardened(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                given = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                named = {k.lower() for k, _ in given}
                if b"cache-control" not in named:
                    given.append((b"cache-control", DEFAULT_CACHE))
                if b"content-security-policy" not in named:
                    given.append(self.csp)
                message = {**message, "headers": given + SECURITY_HEADERS}
            await send(message)

        try:
            await self.app(scope, receive, send_hardened)
        except Exception:
            log.exception("a page failed")
            if not started:
                await send_hardened(
                    {
                        "type": "http.response.start",
                        "status": 500,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")],
                    }
                )
                await send_hardened({"type": "http.response.body", "body": b"This page cannot be shown.\n"})
