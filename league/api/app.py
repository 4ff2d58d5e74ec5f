"""The kiosk API: JSON over HTTP under ``/api/v1/``, a thin layer over league/ingest/kiosks.py.

POST /api/v1/enrol    {"code"}                       -> {"kiosk", "key", "venue", "table"}
                      (after 10 wrong codes in a minute, counted by every server process: 429 with
                      Retry-After, the code not even looked up)
POST /api/v1/push     Bearer key, {"games": [...]}   -> {"games": [{"game", "acked", "resend_from", ...}]}
GET  /api/v1/tonight  Bearer key [?date=YYYY-MM-DD]  -> {"date", "venue", "table", "meetings": [...]}
GET  /api/v1/rulings  Bearer key                     -> {"rulings": [{"game", "outcome", "winner", "reason", ...}]}
GET  /api/v1/update   Bearer key                     -> {"offer": {"version", "size", "sha256", "path", ...} | null}
GET  /api/v1/update/VERSION.raucb  Bearer key        -> the bundle (ranges answered: a download resumes)
POST /api/v1/report   Bearer key, {"version", "slot", "free_bytes", "last_sync", "update": {...}} -> {"ok"}

Every refusal is JSON ``{"error": "where and why"}`` with its status, and writes nothing.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from league.ingest.kiosks import Busy, KioskRefused, Kiosks
from league.organiser.fleet import Fleet, bundles_folder
from league.organiser.season import LeagueRefused
from league.store.core import StoreTrouble
from shared.http.headers import PLAIN_CSP, Hardened
from shared.jsontext import BadJSON, loads

MOST_BODY = 1024 * 1024  # bytes: a push of 50 whole games is far less
MOST_ENROL = 1024  # bytes: an enrolment is a ten-letter code
MOST_REPORT = 4096  # bytes: a kiosk's report is a few short fields
BODY_SECONDS = 30  # to send a whole body: a kiosk's push is sent in well under a second
# Pushes stored at once, each in a worker thread of its own. The work is mostly the interpreter's,
# which runs one thread at a time: more threads only take turns with each other, each push taking
# longer and holding its rows' locks longer (`./run bench league push` shows the answer times).
# Two, so one push's wait for the database or a lock leaves the other going.
PUSHES_AT_ONCE = 2
log = logging.getLogger("league.kiosks")


class JSON(JSONResponse):
    """JSON with every character past ASCII escaped: any text the league holds can be sent."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, allow_nan=False, separators=(",", ":")).encode("ascii")


def _error(why: str, status: int) -> JSONResponse:
    return JSON({"error": why}, status_code=status)


async def _body(request: Request, most: int = MOST_BODY) -> bytes:
    """The request's body, refused past ``most`` bytes (as declared, or as it comes) or when it takes
    longer than ``BODY_SECONDS`` to arrive."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > most):
        raise KioskRefused(f"the body is more than {most} bytes", 413)
    chunks, size = [], 0
    with anyio.move_on_after(BODY_SECONDS) as deadline:
        async for chunk in request.stream():
            size += len(chunk)
            if size > most:
                raise KioskRefused(f"the body is more than {most} bytes", 413)
            chunks.append(chunk)
    if deadline.cancelled_caught:
        raise KioskRefused(f"the body did not arrive within {BODY_SECONDS} s", 408)
    return b"".join(chunks)


async def _json(request: Request, most: int) -> Any:
    try:
        return loads(await _body(request, most))
    except BadJSON as e:
        raise KioskRefused(f"the body: {e}", 400) from None


def _key(request: Request) -> str | None:
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return key.strip() if scheme.lower() == "bearer" and key.strip() else None


def create_app(kiosks: Kiosks, fleet: Fleet | None = None) -> Hardened:
    """The API's ASGI application over a league's kiosks library (and its fleet: the versions offered
    and the kiosks' reports; kept beside the league's database unless given)."""
    fleet = fleet or Fleet(kiosks.store, bundles_folder(kiosks.store))

    async def answer(request: Request, work: Any) -> JSONResponse:
        try:
            return JSON(await work(request))
        except Busy as e:
            return JSON({"error": str(e)}, status_code=429, headers={"Retry-After": str(e.wait)})
        except KioskRefused as e:
            return _error(str(e), e.status)
        except LeagueRefused as e:
            return _error(str(e), 422)
        except StoreTrouble:
            return _error("the league's database cannot be used now: try again later", 503)
        except Exception:  # a fault of the server's own: said in JSON too, the details to the log
            log.exception("the kiosk API failed on %s", request.url.path)
            return _error("the league's server failed on this request: the organiser can see why in its log", 500)

    async def enrol(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            body = await _json(request, MOST_ENROL)
            code = body.get("code") if isinstance(body, dict) else None
            return await run_in_threadpool(kiosks.enrol, code)

        return await answer(request, work)

    pushing = anyio.CapacityLimiter(PUSHES_AT_ONCE)

    # One worker thread a push: the key checked, the JSON read, the events and any result stored, in
    # the push's own transaction, off the event loop.
    async def push(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            key = _key(request)
            if key is None:  # refused before the body is read or anything waits for the database
                raise KioskRefused("send the kiosk's key as 'Authorization: Bearer <key>'", 401)
            # The key is checked before the body is read: a request without a good one holds no memory.
            await run_in_threadpool(kiosks.kiosk_for_key, key)
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

    async def kiosk_of(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(kiosks.kiosk_for_key, _key(request))

    async def update(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            await kiosk_of(request)
            return await run_in_threadpool(fleet.offer_for_kiosk)

        return await answer(request, work)

    async def bundle(request: Request) -> Response:
        try:
            await kiosk_of(request)
        except KioskRefused as e:
            return _error(str(e), e.status)
        path = await run_in_threadpool(fleet.bundle, request.path_params["version"])
        if path is None:
            return _error(f"version {request.path_params['version']} is not offered here", 404)
        return FileResponse(path, media_type="application/octet-stream")  # answers ranges

    async def report(request: Request) -> JSONResponse:
        async def work(request: Request) -> Any:
            kiosk = await kiosk_of(request)
            body = await _json(request, MOST_REPORT)
            await run_in_threadpool(fleet.report, kiosk["id"], body)
            return {"ok": True}

        return await answer(request, work)

    app = Starlette(
        routes=[
            Route("/api/v1/enrol", enrol, methods=["POST"]),
            Route("/api/v1/push", push, methods=["POST"]),
            Route("/api/v1/tonight", tonight, methods=["GET"]),
            Route("/api/v1/rulings", rulings, methods=["GET"]),
            Route("/api/v1/update", update, methods=["GET"]),
            Route("/api/v1/update/{version}.raucb", bundle, methods=["GET"]),
            Route("/api/v1/report", report, methods=["POST"]),
        ]
    )
    return Hardened(app, PLAIN_CSP)
