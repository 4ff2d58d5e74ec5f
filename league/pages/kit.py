"""What every league page uses: the templates, the page policy (the one inline style block, forms
posted to this site only), rendering, the not-found and database-trouble pages, a page's number
parameters, and a division's meetings as the pages show them."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from engine.text import shown
from league.store.core import Reader
from shared.http.headers import content_security_policy

if TYPE_CHECKING:
    pass

TEMPLATES = Path(__file__).parent.parent / "templates"
log = logging.getLogger("league.pages")
PAGE_CACHE = b"no-cache"  # results change on league nights: ask again each time
RANKING = {"games_won": "games won (a tie counts half)", "game_points": "game points"}
ON_ITS_WAY = (
    "This game is on its way to the league: the table sends it as soon as its network lets it. "
    "Open this page again in a minute."
)
NOT_ENDED = "Its result shows here once the table has ended it."
TIE_BREAKER = {"game_points": "game points", "point_difference": "point difference", "head_to_head": "head to head"}

# ``shown``: a text stored before the league checked every text (or by any other program) still
# makes a page, its unshowable characters drawn as U+FFFD.
environment = Environment(
    loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True), auto_reload=False, finalize=shown
)


def policy() -> bytes:
    """The result server's policy for the inline style of base.html, with forms allowed to post here."""
    csp = content_security_policy([(TEMPLATES / "base.html").read_text()])
    return csp.replace(b"form-action 'none'", b"form-action 'self'")


CHART_POLICY = policy() + b"; img-src 'self'"  # the pages with charts: images of this site


def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    body = environment.get_template(name).render(**context)
    return HTMLResponse(body.encode("utf-8", "replace"), status, headers={"cache-control": PAGE_CACHE.decode()})


def not_found(request: Request, what: str) -> HTMLResponse:
    return render(request, "message.html", 404, heading="Not found", message=f"There is no {what}.", back="/")


def unavailable(request: Request, _trouble: Exception) -> HTMLResponse:
    """Any page whose database cannot be used now (down, restarted, locked): a 503 in words, retried
    by the browser's reload; the reason goes to the log, not to the public."""
    log.warning("a page could not use the database: %s", _trouble)
    response = render(
        request,
        "message.html",
        503,
        heading="Try again in a minute",
        message="The league's database cannot be used just now.",
        back="/",
    )
    response.headers["retry-after"] = "60"
    response.headers["cache-control"] = "no-store"
    return response


def number_param(request: Request, key: str) -> int | None:
    text = request.path_params.get(key, "")
    return int(text) if text.isdigit() and len(text) < 10 else None


def result_text(outcome: str | None, a: str, b: str) -> str:
    return {"a": f"{a} won", "b": f"{b} won", "tie": "tied", None: "abandoned, counts for nobody"}.get(
        outcome, "abandoned"
    )


def meeting_view(r: Reader, m: dict[str, Any], names: dict[int, str], venues: dict[int, str]) -> dict[str, Any]:
    """What the pages show of one meeting (a bye, or two teams with their games and any forfeit)."""
    a, b = names.get(m["team_a"], "?"), names.get(m["team_b"], "?")
    view: dict[str, Any] = {"id": m["id"], "a": a, "a_id": m["team_a"], "bye": m["team_b"] is None}
    if view["bye"]:
        return view
    view |= {
        "b": b,
        "b_id": m["team_b"],
        "date": m["date"] or m["round_date"],
        "moved": "" if not m["date"] or m["date"] == m["round_date"] else f"from {m['round_date']}",
        "venue": venues.get(m["venue_id"], ""),
        "venue_id": m["venue_id"],
        "table": m["table_number"],
        "forfeit": names.get(m["forfeit_team"], "") if m["forfeit_team"] is not None else "",
        "forfeit_reason": m["forfeit_reason"] or "",
        "games": [
            {
                "id": g["id"],
                "number": g["number"],
                "points_a": g["points_a"],
                "points_b": g["points_b"],
                "result": result_text(g["outcome"], a, b),
                "ruled": g["ruled_reason"] or "",
                "note": g["note"] or "",
                "counts": g["outcome"] is not None,
            }
            for g in r.games(m["id"])
        ],
    }
    view["counting"] = sum(g["counts"] for g in view["games"])
    view["for_nobody"] = len(view["games"]) - view["counting"]
    return view


def division_context(r: Reader, division: int) -> dict[str, Any] | None:
    """The division, its season and league, team and venue names, and its rounds with their meetings."""
    d = r.division(division)
    if d is None:
        return None
    season = r.season(d["season_id"])
    assert season is not None  # a division is written after its season
    names = {t["id"]: t["name"] for t in r.teams(division)}
    venues = {v["id"]: v["name"] for v in r.venues(season["league_id"])}
    rounds: dict[int, dict[str, Any]] = {
        x["number"]: {"number": x["number"], "date": x["date"], "stage": x["stage"], "meetings": []}
        for x in r.rounds(division)
    }
    for m in r.meetings(division):
        rounds[m["round"]]["meetings"].append(meeting_view(r, m, names, venues))
    return {"division": d, "season": season, "names": names, "rounds": list(rounds.values())}
