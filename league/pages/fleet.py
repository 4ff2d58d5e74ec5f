"""The organiser's fleet page: the version offered to every kiosk (offered from the bundles in the
server's folder, or withdrawn), and each kiosk as it last told the league at its sync: its version
and system slot, when it was last seen and last delivered, its free space, its update's state, and
what needs looking at (silent, short of room, rolled back, refusing)."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from league.organiser.fleet import Fleet, described, size_words
from league.organiser.season import LeagueRefused
from league.pages.kiosks import when
from league.pages.kit import render
from league.pages.organiser import OrganiserPages, confirmation

BACK = "/organiser/fleet"
SAID = {
    "offered": "Offered to every kiosk: each takes it at its next sync and installs it between games.",
    "withdrawn": "The offer is withdrawn: kiosks that have it keep it.",
}


class FleetPages:
    def __init__(self, pages: OrganiserPages, fleet: Fleet) -> None:
        self.pages = pages
        self.fleet = fleet

    def _lines(self) -> list[dict[str, Any]]:
        now = self.fleet.clock()
        return [
            {**described(k, now), "seen": when(k["reported_at"]), "last_sync": when(k["last_sync"])}
            for k in self.fleet.kiosks()
        ]

    def _page(self, request: Request, csrf: str, done: str) -> Response:
        offered = self.fleet.current()
        return render(
            request,
            "fleet.html",
            200,
            csrf=csrf,
            done=done,
            offered={**offered, "size": size_words(offered["size"]), "at": when(offered["offered_at"])}
            if offered
            else None,
            on_hand=[{**b, "size": size_words(b["size"])} for b in self.fleet.on_hand()],
            folder=str(self.fleet.folder),
            kiosks=self._lines(),
        )

    async def page(self, request: Request) -> Response:
        csrf = await self.pages.session_csrf(request)
        if csrf is None:
            return RedirectResponse("/organiser/sign-in", 303)
        return await run_in_threadpool(self._page, request, csrf, confirmation(request, SAID))

    async def offer(self, request: Request) -> Response:
        form = await self.pages.checked_form(request)
        if isinstance(form, Response):
            return form
        try:
            await run_in_threadpool(self.fleet.offer_on_hand, form.get("file", ""))
        except LeagueRefused as e:
            return self.pages.refuse(request, 400, str(e), BACK)
        return RedirectResponse(f"{BACK}?done=offered", 303)

    async def withdraw(self, request: Request) -> Response:
        form = await self.pages.checked_form(request)
        if isinstance(form, Response):
            return form
        await run_in_threadpool(self.fleet.withdraw)
        return RedirectResponse(f"{BACK}?done=withdrawn", 303)

    def routes(self) -> list[Route]:
        return [
            Route(BACK, self.page, methods=["GET"]),
            Route(f"{BACK}/offer", self.offer, methods=["POST"]),
            Route(f"{BACK}/withdraw", self.withdraw, methods=["POST"]),
        ]
