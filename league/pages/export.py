"""A season's downloads, one click each: ``/seasons/{id}/standings.csv`` and ``.json``,
``/seasons/{id}/games.csv`` and ``.json`` (league/results/export.py)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from league.organiser.season import LeagueRefused
from league.pages.kit import PAGE_CACHE, not_found, number_param
from league.results.export import export, filename
from league.store.core import Store

MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


class ExportPages:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _download(self, what: str, form: str) -> Callable[[Request], Response]:
        def answer(request: Request) -> Response:
            id_ = number_param(request, "season")
            try:
                if id_ is None:
                    raise LeagueRefused("no season")
                text = export(self.store, id_, what, form)
            except LeagueRefused:
                return not_found(request, "such season")
            headers = {
                "content-disposition": f'attachment; filename="{filename(id_, what, form)}"',
                "cache-control": PAGE_CACHE.decode(),
            }
            return Response(text.encode("utf-8", "replace"), media_type=MEDIA[form], headers=headers)

        return answer

    def routes(self) -> list[Route]:
        return [
            Route(f"/seasons/{{season}}/{what}.{form}", self._download(what, form))
            for what in ("standings", "games")
            for form in ("csv", "json")
        ]
