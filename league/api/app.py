"""The kiosk API: JSON over HTTP under ``/api/v1/``, a thin layer over league/api/kiosks.py.

POST /api/v1/enrol    {"code"}                       -> {"kiosk", "key", "venue", "table"}
                      (after 10 wrong codes in a minute: 429 with Retry-After, the code not even read)
POST /api/v1/push     Bearer key, {"games": [...]}   -> {"games": [{"game", "acked", "resend_from", ...}]}
GET  /api/v1/tonight  Bearer key [?date=YYYY-MM-DD]  -> {"date", "venue", "table", "meetings": [...]}
GET  /api/v1/rulings  Bearer key                     -> {"rulings": [{"game", "outcome", "winner", "reason", ...}]}

Every refusal is JSON ``{"error": "where and why"}`` with its status, and writes nothing.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from league.api.allowance import Allowance
from league.api.kiosks import KioskRefused, Kiosks
from league.organiser.season import LeagueRefused
from league.store.core import StoreTrouble
from shared.http.headers import PLAIN_CSP, Hardened

MOST_BODY = 1024 * 1024  # bytes: a push of 50 whole games is far less
# Pushes stored at once, each in a worker thread of its own. The work is mostly the interpreter's,
# which runs one thread at a time: more threads only take turns with each other, each push taking
# longer and holding its rows' locks longer (on this machine at 500 events a second, 40 threads
# answered in 0.2 to 2 s at the 99th percentile, two in 0.03 to 0.16 s). Two, so one push's wait
# for the database or a lock leaves the other going.
PUSHES_AT_ONCE = 2


class Busy(KioskRefused):
    """Refused for now: too many wrong attempts; ``wait`` seconds until the next is heard."""

    def __init__(self, why: str, wait: int) -> None:
        super().__init__(why, 429)
        self.wait = wait


def _error(why: str, status: int) -> JSONResponse:
    return JSONResponse({"error": why}, status_code=status)


async def _body(request: Request) -> bytes:
    """The request's body, refused past ``MOST_BODY`` bytes (as declared, or as it comes)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MOST_BODY):
        raise KioskRefused(f"the body is more than {MOST_BODY} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MOST_BODY:
            raise KioskRefused(f"the body is more than {MOST_BODY} bytes", 413)
    return body


async def _json(request: Request) -> Any:
    try:
        return json.loads(await _body(request))
    except (ValueError, UnicodeDecodeError) as e:
        raise KioskRefused(f"the body is not JSON: {e}", 400) from None


def _key(request: Request) -> str | None:
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return key.strip() if scheme.lower() == "bearer" and key.strip() else None


def create_app(kiosks: Kiosks, allowance: Allowance | None = None) -> Hardened:
    """The API's ASGI application over a league's kiosks library; ``allowance``: how many wrong
    enrolment codes are heard before the next must wait."""
    wrong_codes = allowance or Allowance()

    async def answer(request: Request, work: Any) -> JSONResponse:
        try:
            return JSONResponse(await work(request))
        except Busy as e:
            return JSONResponse({"error": str(e)}, status_code=429, headers={"Retry-After": str(e.wait)})
        except KioskRefused as e:
            return _error(str(e), e.status)
        except LeagueRefused as e:
            return _error(str(e), 422)
        except StoreTrouble:
            return _error("the league's database cannot be used now: try again later", 503)

    async def enrol(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            wait = wrong_codes.wait()
            if wait:
                raise Busy(f"too many wrong codes: try again in {wait} s", wait)
            body = await _json(request)
            code = body.get("code") if isinstance(body, dict) else None
            try:
                return await run_in_threadpool(kiosks.enrol, code)
            except KioskRefused as e:
                if e.status == 403:
                    wrong_codes.failed()
                raise

        return await answer(request, work)

    pushing = anyio.CapacityLimiter(PUSHES_AT_ONCE)

    # One worker thread a push: the key checked, the JSON read, the events and any result stored, in
    # the push's own transaction, off the event loop.
    async def push(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            key = _key(request)
            if key is None:  # refused before the body is read or anything waits for the database
                raise KioskRefused("send the kiosk's key as 'Authorization: Bearer <key>'", 401)
            body = await _body(request)
            return await anyio.to_thread.run_sync(kiosks.push, key, body, limiter=pushing)

        return await answer(request, work)

    async def tonight(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            return await run_in_threadpool(kiosks.tonight, _key(request), request.query_params.get("date"))

        return await answer(request, work)

    async def rulings(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            return await run_in_threadpool(kiosks.rulings, _key(request))

        return await answer(request, work)

    app = Starlette(
        routes=[
            Route("/api/v1/enrol", enrol, methods=["POST"]),
            Route("/api/v1/push", push, methods=["POST"]),
            Route("/api/v1/tonight", tonight, methods=["GET"]),
            Route("/api/v1/rulings", rulings, methods=["GET"]),
        ]
    )
    return Hardened(app, PLAIN_CSP)
