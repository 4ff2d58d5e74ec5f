"""The organiser's pages: sign-in and sign-out, and forms that act through the organiser library
(make a division's schedule, record a forfeit, rule on a game), each stored as events and shown on
the public pages with its reason.

Every form carries a CSRF token: the session's own once signed in; before that, a random value also
set in a cookie (the two must match). A post without the right token is refused before anything is
read or written. Cookies are HttpOnly and SameSite=Strict, and Secure when the site is served over
https (``secure_cookies``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from league.organiser import Organiser
from league.pages import division_context, render
from league.season import LeagueRefused
from league.signin import SESSION_SECONDS, SignIn, same
from league.store import Store

SESSION_COOKIE = "clabber_organiser"
SIGNIN_COOKIE = "clabber_signin"  # the sign-in form's CSRF value, before there is a session
MOST_FORM_BYTES = 16 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"
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


def _number(form: dict[str, str], key: str) -> int:
    text = form.get(key, "").strip()
    if not text.isdigit() or len(text) > 9:
        raise LeagueRefused(f"{key}: {text!r} is not a number")
    return int(text)


class OrganiserPages:
    def __init__(self, store: Store, *, secure_cookies: bool = False, clock: Callable[[], float] | None = None) -> None:
        self.store = store
        self.organiser = Organiser(store)
        self.signin = SignIn(store, clock) if clock else SignIn(store)
        self.secure = secure_cookies

    def _cookie(self, response: Response, name: str, value: str, max_age: int | None) -> None:
        response.set_cookie(
            name, value, max_age=max_age, path="/", httponly=True, samesite="strict", secure=self.secure
        )

    def _refuse(self, request: Request, status: int, message: str, back: str = "/organiser") -> Response:
        return render(request, "message.html", status, heading="Refused", message=message, refused=True, back=back)

    async def _csrf(self, request: Request) -> str | None:
        return await run_in_threadpool(self.signin.session_csrf, request.cookies.get(SESSION_COOKIE))

    async def sign_in_page(self, request: Request) -> Response:
        if await self._csrf(request):
            return RedirectResponse("/organiser", 303)
        token = secrets.token_urlsafe(32)
        response = render(request, "signin.html", csrf=token)
        self._cookie(response, SIGNIN_COOKIE, token, None)
        return response

    async def sign_in(self, request: Request) -> Response:
        try:
            form = await read_form(request)
        except FormRefused as e:
            return self._refuse(request, 400, str(e), "/organiser/sign-in")
        if not same(form.get("csrf"), request.cookies.get(SIGNIN_COOKIE)):
            return self._refuse(request, 403, STALE, "/organiser/sign-in")
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

    async def _checked(self, request: Request) -> dict[str, str] | Response:
        """The form of a signed-in organiser's post, or the refusal to send instead."""
        csrf = await self._csrf(request)
        if csrf is None:
            return self._refuse(request, 403, "Sign in first.", "/organiser/sign-in")
        try:
            form = await read_form(request)
        except FormRefused as e:
            return self._refuse(request, 400, str(e))
        if not same(form.get("csrf"), csrf):
            return self._refuse(request, 403, STALE)
        return form

    async def sign_out(self, request: Request) -> Response:
        form = await self._checked(request)
        if isinstance(form, Response):
            return form
        await run_in_threadpool(self.signin.sign_out, request.cookies[SESSION_COOKIE])
        response = RedirectResponse("/", 303)
        response.delete_cookie(SESSION_COOKIE, path="/", secure=self.secure, httponly=True, samesite="strict")
        return response

    async def home(self, request: Request) -> Response:
        csrf = await self._csrf(request)
        if csrf is None:
            return RedirectResponse("/organiser/sign-in", 303)
        divisions = await run_in_threadpool(self._divisions)
        return render(request, "organiser.html", csrf=csrf, divisions=divisions)

    def _divisions(self) -> list[dict[str, Any]]:
        out = []
        with self.store.read() as r:
            for league in r.leagues():
                for season in r.seasons(league["id"]):
                    for d in r.divisions(season["id"]):
                        context = division_context(r, d["id"])
                        assert context is not None
                        out.append(
                            {
                                "id": d["id"],
                                "name": d["name"],
                                "league": league["name"],
                                "season": season["name"],
                                "teams": len(context["names"]),
                                "rounds": context["rounds"],
                            }
                        )
        return out

    async def _act(self, request: Request, action: Callable[[dict[str, str]], None]) -> Response:
        form = await self._checked(request)
        if isinstance(form, Response):
            return form
        try:
            await run_in_threadpool(action, form)
        except LeagueRefused as e:
            return self._refuse(request, 400, str(e))
        return RedirectResponse("/organiser", 303)

    async def schedule(self, request: Request) -> Response:
        def make(form: dict[str, str]) -> None:
            every = _number(form, "every") if form.get("every", "").strip() else 7
            if not 1 <= every <= 60:
                raise LeagueRefused("schedule: the days between rounds are from 1 to 60")
            self.organiser.make_schedule(
                _number(form, "division"), form.get("start", ""), every, double=form.get("double") == "1"
            )

        return await self._act(request, make)

    async def forfeit(self, request: Request) -> Response:
        return await self._act(
            request,
            lambda f: self.organiser.forfeit(_number(f, "meeting"), _number(f, "team"), f.get("reason", "")),
        )

    async def rule(self, request: Request) -> Response:
        def rule(form: dict[str, str]) -> None:
            outcome = form.get("outcome", "")
            self.organiser.rule_game(
                _number(form, "game"), None if outcome == "abandoned" else outcome, form.get("reason", "")
            )

        return await self._act(request, rule)

    def routes(self) -> list[Route]:
        return [
            Route("/organiser/sign-in", self.sign_in_page, methods=["GET"]),
            Route("/organiser/sign-in", self.sign_in, methods=["POST"]),
            Route("/organiser/sign-out", self.sign_out, methods=["POST"]),
            Route("/organiser", self.home, methods=["GET"]),
            Route("/organiser/schedule", self.schedule, methods=["POST"]),
            Route("/organiser/forfeit", self.forfeit, methods=["POST"]),
            Route("/organiser/rule", self.rule, methods=["POST"]),
        ]
