"""The kiosk's few words with the league server: JSON over HTTP(S), each call bounded by a timeout.
Standard library only: nothing more to install on a Pi for it."""

from __future__ import annotations

import http.client
import json
import ssl
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

MOST_ANSWER = 4 * 1024 * 1024  # bytes: tonight's meetings or a push's answer are far less
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class Unreachable(Exception):
    """The league could not be asked or did not answer (the network, a timeout, a proxy's error page);
    ``status`` when something answered with a server error (5xx), ``retry_after`` when it said when."""

    def __init__(self, why: str, status: int | None = None, retry_after: int | None = None) -> None:
        super().__init__(why)
        self.status = status
        self.retry_after = retry_after


class Refused(Exception):
    """The league answered with a refusal: its status and its words."""

    def __init__(self, status: int, why: str, retry_after: int | None = None) -> None:
        super().__init__(why)
        self.status = status
        self.why = why
        self.retry_after = retry_after


def league_url(text: str) -> str:
    """The league's address as typed, checked: https, or http only to this machine (a league server
    on the same Pi); no path beyond the site. ValueError with why otherwise."""
    url = text.strip().rstrip("/")
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError(f"{text!r} is not a web address like https://league.example.org")
    if parts.scheme == "http" and parts.hostname not in LOOPBACK:
        raise ValueError("the league's address must start with https:// (the kiosk's key must not travel in clear)")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{text!r}: give the league's address alone, like https://league.example.org")
    return url


def call(
    url: str, method: str, path: str, body: Any = None, key: str | None = None, timeout: float = 10.0
) -> dict[str, Any]:
    """The league's JSON answer to one request; Refused for a 4xx, Unreachable for anything else."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return _json(r.read(MOST_ANSWER + 1), url)
    except urllib.error.HTTPError as e:
        try:
            answer = e.read(MOST_ANSWER + 1)
        except (OSError, http.client.HTTPException):  # the refusal's words were cut short
            answer = b""
        retry = e.headers.get("Retry-After", "")
        wait = int(retry) if retry.isdigit() and len(retry) < 10 else None
        if 400 <= e.code < 500:
            why = _error(answer) or f"the league refused the request ({e.code})"
            raise Refused(e.code, why, wait) from None
        why = f"the league answered {e.code}: {_error(answer) or 'try again later'}"
        raise Unreachable(why, e.code, wait) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError, ssl.SSLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise Unreachable(f"cannot reach the league at {url}: {reason}") from None
    except http.client.HTTPException as e:  # an answer cut short or not HTTP (the server died mid-answer)
        reason = f"{type(e).__name__} {e}".strip()
        raise Unreachable(f"cannot reach the league at {url}: {reason}") from None


def _json(raw: bytes, url: str) -> dict[str, Any]:
    if len(raw) > MOST_ANSWER:
        raise Unreachable(f"the answer from {url} is too long to be the league's")
    try:
        answer = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise Unreachable(f"{url} did not answer as a league server does (is the address right?)") from None
    if not isinstance(answer, dict):
        raise Unreachable(f"{url} did not answer as a league server does (is the address right?)")
    return answer


def _error(raw: bytes) -> str | None:
    try:
        answer = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    why = answer.get("error") if isinstance(answer, dict) else None
    return str(why)[:300] if why else None
