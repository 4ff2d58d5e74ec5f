"""A small season for the page tests, with results worked out by hand, a reader of HTML tables, and
the organiser's sign-in through a TestClient."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from starlette.testclient import TestClient

from league.organiser.actions import Organiser
from league.pages import make_app
from league.store.core import Store

HOSTILE = '<b>Kings</b> & "Co" <script>x()</script>'  # 40 characters: a kiosk's longest name


class Tables(HTMLParser):
    """The text of every table row on a page, one list of cells a row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def table_rows(html: str) -> list[list[str]]:
    parser = Tables()
    parser.feed(html)
    return parser.rows


def meeting_of(org: Organiser, division: int, x: int, y: int) -> dict:
    with org.store.read() as r:
        return next(m for m in r.meetings(division) if {m["team_a"], m["team_b"]} == {x, y})


def small_season(org: Organiser) -> dict[str, int]:
    """Three teams, one game a meeting: Aces beat the hostile name 521-497; Queens forfeit to Aces;
    the hostile name beat Queens 521-480 but the game is ruled abandoned."""
    league = org.create_league("Tuesday nights")
    season, division = org.create_season(league, "Winter 2026")
    aces = org.add_team(division, "Aces", ["Ann", "Bob"])
    kings = org.add_team(division, HOSTILE, ["<i>Cy</i>", "Di"], ["Ed & Flo"])
    queens = org.add_team(division, "Queens", ["Gus", "Hal"])
    org.add_venue(league, "Germania", tables=2)
    org.make_schedule(division, "2026-01-06")
    m = meeting_of(org, division, aces, kings)
    org.record_game(m["id"], *((521, 497, "a") if m["team_a"] == aces else (497, 521, "b")))
    m = meeting_of(org, division, aces, queens)
    org.forfeit(m["id"], queens, "Queens' player is ill")
    m = meeting_of(org, division, kings, queens)
    game = org.record_game(m["id"], *((521, 480, "a") if m["team_a"] == kings else (480, 521, "b")))
    org.rule_game(game, None, "played with a short deck")
    return {"league": league, "season": season, "division": division, "aces": aces, "kings": kings, "queens": queens}


# Worked by hand: team, played, won, lost, tied, for, against, difference. The abandoned game counts
# for nobody; the forfeit is a game won by Aces with no points; Kings and Queens are level on games
# won, and game points (497 to 0) put Kings second.
STANDINGS = [
    ["1", "Aces", "2", "2", "0", "0", "521", "497", "24"],
    ["2", HOSTILE, "1", "0", "1", "0", "497", "521", "-24"],
    ["3", "Queens", "1", "0", "1", "0", "0", "0", "0"],
]


PASSWORD = "correct horse battery"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def client_for(store: Store, clock: Clock, secure: bool = False) -> TestClient:
    base = "https://testserver" if secure else "http://testserver"
    return TestClient(make_app(store, secure_cookies=secure, clock=clock), base_url=base, follow_redirects=False)


def session_cookie(response) -> str:
    return next(c for c in response.headers.get_list("set-cookie") if c.startswith("clabber_organiser="))


def sign_in(client: TestClient, password: str = PASSWORD):
    page = client.get("/organiser/sign-in")
    return client.post("/organiser/sign-in", data={"csrf": CSRF.search(page.text).group(1), "password": password})


def events(store: Store) -> list:
    with store.read() as r:
        return r.events()


def organiser_csrf(client: TestClient) -> str:
    page = client.get("/organiser")
    assert page.status_code == 200, page.text
    return CSRF.search(page.text).group(1)
