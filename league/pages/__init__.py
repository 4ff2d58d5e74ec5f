"""The league's web pages: the public, read-only standings, schedules and each team's games
(``public``), the organiser's signed-in pages (``organiser``, ``kiosks``, ``fleet``), the venue board
(``board``), charts, statistics and exports; ``kit`` holds what they share (templates, the page
policy, not-found and database-trouble pages). ``make_app`` builds the Starlette app that
``clabber league serve`` mounts.

Everything shown is escaped (team and player names are anyone's input); no page needs JavaScript
but the board. Every response carries the result server's security headers, with a policy that
allows the one inline style block of these pages and forms posted to this site only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette

from league.board.feed import Boards
from league.ingest.kiosks import Kiosks
from league.organiser.fleet import Fleet, bundles_folder
from league.pages.board import BoardPages
from league.pages.charts import ChartPages
from league.pages.export import ExportPages
from league.pages.fleet import FleetPages
from league.pages.kiosks import KioskPages
from league.pages.kit import policy, unavailable
from league.pages.organiser import OrganiserPages
from league.pages.public import Pages
from league.pages.ratings import RatingsPages
from league.pages.stats import StatsPages
from league.store.core import Store, StoreTrouble
from shared.http.headers import Hardened


def make_app(
    store: Store,
    *,
    secure_cookies: bool = False,
    clock: Callable[[], float] | None = None,
    boards: Boards | None = None,
    public_url: str | None = None,
    changed: Callable[[int | None], None] | None = None,
) -> Any:
    """The public and the organiser's pages as one ASGI app, with the security headers on every response.

    ``secure_cookies``: the site is reached over https (behind a TLS proxy), so cookies say Secure.
    ``boards``: the open venue boards, which the kiosk API's pushes also tell (``clabber league serve``
    shares one between the two); ``public_url``: where phones reach this site, for the board's QR code
    (default: the address the board was opened at); ``changed``: what an organiser's form tells of a
    change (default: these boards; with several server processes, every process's, league/board/news.py).
    """
    board = BoardPages(store, boards, public_url)
    tell = changed or board.boards.changed
    organiser = OrganiserPages(store, secure_cookies=secure_cookies, clock=clock, changed=lambda: tell(None))
    charts = ChartPages(store)
    routes = [
        *Pages(store).routes(),
        *organiser.routes(),
        *KioskPages(organiser, Kiosks(store)).routes(),
        *FleetPages(organiser, Fleet(store, bundles_folder(store))).routes(),
        *board.routes(),
        *charts.routes(),
        *StatsPages(store).routes(),
        *RatingsPages(store).routes(),
        *ExportPages(store).routes(),
    ]
    return Hardened(Starlette(routes=routes, exception_handlers={StoreTrouble: unavailable}), policy())
