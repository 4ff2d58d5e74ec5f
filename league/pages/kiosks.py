"""The organiser's pages about kiosks: a one-time enrolment code for a venue's table, shown big with
its QR code; the enrolled kiosks, each with a button that revokes its key; the quarantine.

The code is shown once, in the answer to the post that made it (the server keeps only its hash), so
that answer is not a redirect and is never stored by the browser. The QR code is an inline ``<svg>``
(shared/share.py, the same code the kiosk's result QR comes from): an element of the page, not an
image to fetch, so the pages' policy stays ``default-src 'none'`` with no ``img-src``.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from league.ingest.kiosks import CODE_MINUTES, Kiosks
from league.organiser.forms import number
from league.organiser.night import clock_at
from league.organiser.season import LeagueRefused
from league.pages.kit import render
from league.pages.organiser import OrganiserPages, confirmation
from shared.night import TIME_ZONE, zone_of
from shared.share import qr_svg

BACK = "/organiser/kiosks"
SAID = {"revoked": "The kiosk's key is revoked: the server refuses it from now on."}
SECRET_CACHE = "no-store"  # the page with a code on it: not kept in the browser's history or cache


def when(stamp: str | None) -> str:
    """A stored time (UTC, ISO 8601) as the server's local time, to the minute."""
    if not stamp:
        return ""
    return dt.datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M %Z")


class KioskPages:
    """Enrolment codes, the enrolled kiosks and the quarantine, for the signed-in organiser."""

    def __init__(self, pages: OrganiserPages, kiosks: Kiosks) -> None:
        self.pages = pages
        self.kiosks = kiosks

    def _venues(self) -> dict[int, dict[str, Any]]:
        """Every venue of every league by id, named with its league when there is more than one."""
        with self.kiosks.store.read() as r:
            leagues = r.leagues()
            out = {}
            for league in leagues:
                for v in r.venues(league["id"]):
                    label = v["name"] if len(leagues) == 1 else f"{v['name']} ({league['name']})"
                    out[v["id"]] = {**v, "label": label}
        return out

    def _kiosks(self) -> list[dict[str, Any]]:
        venues = self._venues()
        return [
            {
                "id": k["id"],
                "venue": venues.get(k["venue_id"], {}).get("label", f"venue {k['venue_id']}"),
                "table": k["table_number"],
                "enrolled": when(k["enrolled_at"]),
                "revoked": when(k["revoked_at"]),
            }
            for k in self.kiosks.enrolled()
        ]

    def _page(self, request: Request, csrf: str, **shown: Any) -> Response:
        venues = self._venues()
        return render(
            request,
            "kiosks.html",
            shown.pop("status", 200),
            csrf=csrf,
            venues=list(venues.values()),
            kiosks=self._kiosks(),
            minutes=CODE_MINUTES,
            **shown,
        )

    async def page(self, request: Request) -> Response:
        csrf = await self.pages.session_csrf(request)
        if csrf is None:
            return RedirectResponse("/organiser/sign-in", 303)
        return await run_in_threadpool(self._page, request, csrf, done=confirmation(request, SAID))

    def _zone(self, venue: int) -> zoneinfo.ZoneInfo:
        """The time zone of the league a venue is in: times on the organiser's pages are the league's."""
        with self.kiosks.store.read() as r:
            zone, _ = clock_at(r, venue)
        return zone_of(zone) or zoneinfo.ZoneInfo(TIME_ZONE)

    async def make_code(self, request: Request) -> Response:
        form = await self.pages.checked_form(request)
        if isinstance(form, Response):
            return form
        csrf = form["csrf"]

        def make() -> Response:
            venue, table = number(form, "venue"), number(form, "table")
            # The time before the code is made: the code lasts at least until the time shown.
            until = self.kiosks.clock() + dt.timedelta(minutes=CODE_MINUTES)
            code = self.kiosks.make_code(venue, table)
            page = self._page(
                request,
                csrf,
                code=code,
                # qr_svg draws the modules as one path: no text of anyone's in it.
                qr=Markup(qr_svg(code)),
                at=self._venues()[venue]["label"],
                table=table,
                until=until.astimezone(self._zone(venue)).strftime("%H:%M %Z"),
                replaces=self.kiosks.live_at(venue, table),
            )
            page.headers["cache-control"] = SECRET_CACHE
            return page

        try:
            return await run_in_threadpool(make)
        except LeagueRefused as e:
            return self.pages.refuse(request, 400, str(e), BACK)

    async def revoke(self, request: Request) -> Response:
        form = await self.pages.checked_form(request)
        if isinstance(form, Response):
            return form

        def revoke() -> None:
            kiosk = number(form, "kiosk")
            if form.get("confirm") != "1":
                raise LeagueRefused(f"kiosk {kiosk}: tick the box to confirm that its key is to be refused")
            self.kiosks.revoke(kiosk)

        try:
            await run_in_threadpool(revoke)
        except LeagueRefused as e:
            return self.pages.refuse(request, 400, str(e), BACK)
        return RedirectResponse(f"{BACK}?done=revoked", 303)

    def _quarantine(self) -> list[dict[str, Any]]:
        """Every event set aside, newest first, with where its kiosk stands."""
        kiosks = {k["id"]: k for k in self._kiosks()}
        rows = sorted(
            self.kiosks.quarantine(),
            key=lambda q: (q["received_at"], q["kiosk_id"], q["game"], q["seq"]),
            reverse=True,
        )
        return [
            {
                "kiosk": q["kiosk_id"],
                "venue": kiosks[q["kiosk_id"]]["venue"] if q["kiosk_id"] in kiosks else "",
                "table": kiosks[q["kiosk_id"]]["table"] if q["kiosk_id"] in kiosks else "",
                "game": q["game"],
                "seq": q["seq"],
                "kind": q["event"].get("kind", ""),
                "received": when(q["received_at"]),
                "why": q["quarantined"],
            }
            for q in rows
        ]

    def _flags(self) -> dict[str, list[dict[str, Any]]]:
        """Kiosk games whose result does not count by itself, and re-deliveries that differ."""
        kiosks = {k["id"]: k for k in self._kiosks()}

        def where(kiosk: int) -> dict[str, Any]:
            k = kiosks.get(kiosk)
            return {"kiosk": kiosk, "venue": k["venue"] if k else "", "table": k["table"] if k else ""}

        flags = self.kiosks.flags()
        games = [
            {
                **where(g["kiosk_id"]),
                "game": g["game"],
                "meeting": g["meeting_id"],
                "league_game": g["league_game"],
                "why": g["note"],
            }
            for g in flags["games"]
        ]
        differing = [
            {
                **where(d["kiosk_id"]),
                "game": d["game"],
                "seq": d["seq"],
                "kind": d["event"].get("kind", ""),
                "received": when(d["received_at"]),
            }
            for d in sorted(flags["divergences"], key=lambda d: d["received_at"], reverse=True)
        ]
        return {"games": games, "divergences": differing}

    async def quarantine(self, request: Request) -> Response:
        csrf = await self.pages.session_csrf(request)
        if csrf is None:
            return RedirectResponse("/organiser/sign-in", 303)
        events = await run_in_threadpool(self._quarantine)
        flags = await run_in_threadpool(self._flags)
        return render(
            request, "quarantine.html", csrf=csrf, events=events, games=flags["games"], divergences=flags["divergences"]
        )

    def routes(self) -> list[Route]:
        return [
            Route("/organiser/kiosks", self.page, methods=["GET"]),
            Route("/organiser/kiosks/code", self.make_code, methods=["POST"]),
            Route("/organiser/kiosks/revoke", self.revoke, methods=["POST"]),
            Route("/organiser/quarantine", self.quarantine, methods=["GET"]),
        ]
