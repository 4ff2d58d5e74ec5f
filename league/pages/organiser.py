"""The organiser's pages: sign-in and sign-out, the leagues with their seasons, divisions and venues,
and a page a division with its teams and meetings. Every form acts through the organiser library
(league/organiser/forms.py), each change stored as events and shown on the public pages.

Every form carries a CSRF token: the session's own once signed in; before that, a random value also
set in a cookie (the two must match). A post without the right token is refused before anything is
read or written. Cookies are HttpOnly and SameSite=Strict, and Secure when the site is served over
https (``secure_cookies``). A form done sends the organiser back (303) to the page it came from,
which says what was done; a refused one shows why (400) and has written nothing.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from league.organiser.actions import Organiser
from league.organiser.forms import FORMS, SEASON_CHOICES
from league.organiser.scores import most_points
from league.organiser.season import LeagueRefused, read_settings
from league.organiser.signin import SESSION_SECONDS, SignIn, same
from league.pages.kit import division_context, not_found, render
from league.store.core import Store

SESSION_COOKIE = "clabber_organiser"
SIGNIN_COOKIE = "clabber_signin"  # the sign-in form's CSRF value, before there is a session
MOST_FORM_BYTES = 16 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"
BACK = re.compile(r"/organiser(/divisions/[0-9]{1,9}|/kiosks)?")
STALE = "This form did not come from this site's page, or is out of date: open the page again and send it from there."


class FormRefused(Exception):
    """A post that cannot be read as a form from these pages."""


async def read_form(request: Request) -> dict[str, str]:
    """The posted fields (the first value of each), bounded in size and count."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM_TYPE:
        raise FormRefused("Send the form from its page.")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MOST_FORM_BYTES:
            raise FormRefused("The form is too long.")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        raise FormRefused("The form cannot be read.") from None
    return {k: v[0] for k, v in fields.items()}


def back_to(text: str | None) -> str:
    """The organiser's page a form came from; only these pages, so a post cannot send anyone elsewhere."""
    return text if text and BACK.fullmatch(text) else "/organiser"


def confirmation(request: Request, said: dict[str, str] | None = None) -> str:
    """What the page says was just done: one of the fixed sentences, never text from the address."""
    done = request.query_params.get("done", "")
    if said is not None:
        return said.get(done, "")
    return FORMS[done].done if done in FORMS else ""


class OrganiserPages:
    def __init__(
        self,
        store: Store,
        *,
        secure_cookies: bool = False,
        clock: Callable[[], float] | None = None,
        changed: Callable[[], None] | None = None,
    ) -> None:
        self.changed = changed  # told after each form that changed the league (the venue boards follow)
        self.store = store
        self.organiser = Organiser(store)
        self.signin = SignIn(store, clock) if clock else SignIn(store)
        self.secure = secure_cookies

    def _cookie(self, response: Response, name: str, value: str, max_age: int | None) -> None:
        response.set_cookie(
            name, value, max_age=max_age, path="/", httponly=True, samesite="strict", secure=self.secure
        )

    def refuse(self, request: Request, status: int, message: str, back: str = "/organiser") -> Response:
        return render(request, "message.html", status, heading="Refused", message=message, refused=True, back=back)

    async def session_csrf(self, request: Request) -> str | None:
        return await run_in_threadpool(self.signin.session_csrf, request.cookies.get(SESSION_COOKIE))

    async def sign_in_page(self, request: Request) -> Response:
        if await self.session_csrf(request):
            return RedirectResponse("/organiser", 303)
        token = secrets.token_urlsafe(32)
        response = render(request, "signin.html", csrf=token)
        self._cookie(response, SIGNIN_COOKIE, token, None)
        return response

    async def sign_in(self, request: Request) -> Response:
        try:
            form = await read_form(request)
        except FormRefused as e:
            return self.refuse(request, 400, str(e), "/organiser/sign-in")
        if not same(form.get("csrf"), request.cookies.get(SIGNIN_COOKIE)):
            return self.refuse(request, 403, STALE, "/organiser/sign-in")
        attempt = await run_in_threadpool(self.signin.attempt, form.get("password", ""))
        if attempt.refused:
            page = render(
                request, "signin.html", 429 if attempt.locked else 403, csrf=form["csrf"], refused=attempt.refused
            )
            if attempt.retry_after:
                page.headers["retry-after"] = str(attempt.retry_after)
            return page
        response = RedirectResponse("/organiser", 303)
        self._cookie(response, SESSION_COOKIE, attempt.token, SESSION_SECONDS)
        response.delete_cookie(SIGNIN_COOKIE, path="/", secure=self.secure, httponly=True, samesite="strict")
        return response

    async def checked_form(self, request: Request) -> dict[str, str] | Response:
        """The form of a signed-in organiser's post, or the refusal to send instead."""
        csrf = await self.session_csrf(request)
        if csrf is None:
            return self.refuse(request, 403, "Sign in first.", "/organiser/sign-in")
        try:
            form = await read_form(request)
        except FormRefused as e:
            return self.refuse(request, 400, str(e))
        if not same(form.get("csrf"), csrf):
            return self.refuse(request, 403, STALE)
        return form

    async def sign_out(self, request: Request) -> Response:
        form = await self.checked_form(request)
        if isinstance(form, Response):
            return form
        await run_in_threadpool(self.signin.sign_out, request.cookies[SESSION_COOKIE])
        response = RedirectResponse("/", 303)
        response.delete_cookie(SESSION_COOKIE, path="/", secure=self.secure, httponly=True, samesite="strict")
        return response

    async def home(self, request: Request) -> Response:
        csrf = await self.session_csrf(request)
        if csrf is None:
            return RedirectResponse("/organiser/sign-in", 303)
        leagues = await run_in_threadpool(self._leagues)
        return render(
            request,
            "organiser.html",
            csrf=csrf,
            back="/organiser",
            leagues=leagues,
            done=confirmation(request),
            **SEASON_CHOICES,
        )

    def _leagues(self) -> list[dict[str, Any]]:
        """Every league with its venues, seasons and their divisions (teams counted, scheduled or not)."""
        with self.store.read() as r:
            return [
                {
                    "id": league["id"],
                    "name": league["name"],
                    "time_zone": league["time_zone"],
                    "night_ends": league["night_ends"],
                    "venues": r.venues(league["id"]),
                    "seasons": [
                        {
                            "id": s["id"],
                            "name": s["name"],
                            "divisions": [
                                {
                                    "id": d["id"],
                                    "name": d["name"],
                                    "teams": len(r.teams(d["id"])),
                                    "scheduled": bool(r.rounds(d["id"])),
                                }
                                for d in r.divisions(s["id"])
                            ],
                        }
                        for s in r.seasons(league["id"])
                    ],
                }
                for league in r.leagues()
            ]

    async def division(self, request: Request) -> Response:
        csrf = await self.session_csrf(request)
        if csrf is None:
            return RedirectResponse("/organiser/sign-in", 303)
        text = request.path_params["division"]
        context = await run_in_threadpool(self._division, int(text)) if text.isdigit() and len(text) < 10 else None
        if context is None:
            return not_found(request, "such division")
        back = f"/organiser/divisions/{context['division']['id']}"
        return render(request, "organiser_division.html", csrf=csrf, back=back, done=confirmation(request), **context)

    def _division(self, division: int) -> dict[str, Any] | None:
        """The division's teams, and its rounds with what each meeting still allows."""
        with self.store.read() as r:
            context = division_context(r, division)
            if context is None:
                return None
            season = context["season"]
            league = r.league(season["league_id"])
            teams = [
                {
                    "name": t["name"],
                    "players": " and ".join(json.loads(t["players"])),
                    "substitutes": ", ".join(json.loads(t["substitutes"])),
                }
                for t in r.teams(division)
            ]
            venues = r.venues(season["league_id"])
        settings = read_settings(json.loads(season["settings"]))
        games = settings.games_per_meeting
        for round_ in context["rounds"]:
            for m in round_["meetings"]:
                if not m["bye"]:
                    m["room"] = not m["forfeit"] and m["counting"] < games
        return {
            **context,
            "league": league,
            "teams": teams,
            "venues": venues,
            "games_per_meeting": games,
            "most_points": most_points(settings.rules),
            "ties": settings.rules.tie_at_target == "tie",
        }

    async def act(self, request: Request, name: str) -> Response:
        """Acts on a signed-in organiser's form; back to the page it came from, or the refusal and why."""
        form = await self.checked_form(request)
        if isinstance(form, Response):
            return form
        back = back_to(form.get("back"))
        preview = FORMS[name].preview
        try:
            if preview is not None and form.get("confirm") != "1":
                said = await run_in_threadpool(preview, self.organiser, form)
                fields = {k: v for k, v in form.items() if k not in ("csrf", "back", "confirm")}
                return render(
                    request,
                    "confirm.html",
                    said=said,
                    action=f"/organiser/{name}",
                    fields=fields,
                    csrf=form["csrf"],
                    back=back,
                )
            await run_in_threadpool(FORMS[name].act, self.organiser, form)
        except LeagueRefused as e:
            return self.refuse(request, 400, str(e), back)
        if self.changed is not None:
            self.changed()  # a result, a forfeit or a move may show on any venue's board
        return RedirectResponse(f"{back}?done={name}", 303)

    def _form(self, name: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await self.act(request, name)

        return endpoint

    def routes(self) -> list[Route]:
        return [
            Route("/organiser/sign-in", self.sign_in_page, methods=["GET"]),
            Route("/organiser/sign-in", self.sign_in, methods=["POST"]),
            Route("/organiser/sign-out", self.sign_out, methods=["POST"]),
            Route("/organiser", self.home, methods=["GET"]),
            Route("/organiser/divisions/{division}", self.division, methods=["GET"]),
            *(Route(f"/organiser/{name}", self._form(name), methods=["POST"]) for name in FORMS),
        ]
