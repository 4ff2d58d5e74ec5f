"""The organiser's pages through Starlette's TestClient, signed in, on SQLite and PostgreSQL: each form
creates what it says (the public pages or the library show it), each refuses bad input with the
reason and nothing written, posts without the CSRF token are refused; the enrolment code's QR decodes
to the code, which enrols a kiosk once; revoking a kiosk makes its key refused; the quarantine."""

from __future__ import annotations

import datetime as dt
import html
import re
import zoneinfo

import pytest
import zxingcpp
from PIL import Image, ImageDraw
from starlette.testclient import TestClient

from engine.rules import PRESETS
from league.api.app import create_app
from league.ingest.kiosks import KioskRefused, Kiosks
from league.organiser.actions import Organiser
from league.organiser.signin import SignIn
from league.store.core import Store
from tests.league_kiosk_helpers import refused_event, snapshot
from tests.league_pages_helpers import (
    HOSTILE,
    PASSWORD,
    Clock,
    client_for,
    events,
    meeting_of,
    organiser_csrf,
    sign_in,
    small_season,
)

CODE = re.compile(r'<p class="code">([A-Z0-9-]+)</p>')


@pytest.fixture
def site(league_db):
    """The small season (scheduled, one venue of two tables) and a signed-in organiser."""
    store = Store(league_db)
    org = Organiser(store)
    ids = small_season(org)
    clock = Clock()
    SignIn(store, clock).set_password(PASSWORD)
    client = client_for(store, clock)
    assert sign_in(client).status_code == 303
    with store.read() as r:
        ids["venue"] = r.venues(ids["league"])[0]["id"]
    yield {"store": store, "org": org, "ids": ids, "client": client, "csrf": organiser_csrf(client)}
    store.close()


def post(site, path: str, **data):
    return site["client"].post(path, data={"csrf": site["csrf"], **data})


def done(site, response, back: str, says: str) -> str:
    """The page a form sent the organiser back to, which says what was done."""
    assert response.status_code == 303, html.unescape(response.text)
    assert response.headers["location"].startswith(back + "?done=")
    page = site["client"].get(response.headers["location"])
    assert page.status_code == 200 and f'<p class="done">{says}</p>' in page.text
    return page.text


def refused(response) -> str:
    assert response.status_code == 400, response.text
    assert '<p class="refused">' in response.text
    return html.unescape(response.text)


def test_the_setup_forms_create_a_league_a_season_a_division_a_venue_and_a_team(site):
    client = site["client"]
    r = post(site, "/organiser/league", name="Thursday <club>", back="/organiser")
    page = done(site, r, "/organiser", "The league is created.")
    assert "<h2>Thursday &lt;club&gt;</h2>" in page
    assert "Thursday &lt;club&gt;" in client.get("/").text
    with site["store"].read() as rd:
        league = rd.league_named("Thursday <club>")["id"]

    r = post(
        site,
        "/organiser/season",
        league=str(league),
        name="Spring 2026",
        games_per_meeting="3",
        ranking="game_points",
        tie_breaker_1="point_difference",
        tie_breaker_2="head_to_head",
        tie_breaker_3="",
        tie_breaker_4="",
        rules="pagat",
        back="/organiser",
    )
    done(site, r, "/organiser", "The season is created, with its first division.")
    with site["store"].read() as rd:
        season = next(s["id"] for s in rd.seasons(league) if s["name"] == "Spring 2026")
    public = client.get(f"/seasons/{season}").text
    assert "Ranked by game points; then point difference, head to head. 3 game(s) a meeting." in public
    assert "<h2>Division 1</h2>" in public
    settings = site["org"].settings(season)
    assert settings.rules == PRESETS["pagat"] and settings.tie_breakers == ("point_difference", "head_to_head")

    r = post(site, "/organiser/division", season=str(season), name="Second division", back="/organiser")
    done(site, r, "/organiser", "The division is added.")
    assert "<h2>Second division</h2>" in client.get(f"/seasons/{season}").text

    r = post(site, "/organiser/venue", league=str(league), name="Germania", tables="4", back="/organiser")
    page = done(site, r, "/organiser", "The venue is added.")
    assert 'Germania <span class="note">4 tables</span>' in page
    with site["store"].read() as rd:
        assert [(v["name"], v["tables"]) for v in rd.venues(league)] == [("Germania", 4)]
        division = next(d["id"] for d in rd.divisions(season) if d["name"] == "Second division")

    back = f"/organiser/divisions/{division}"
    r = post(
        site,
        "/organiser/team",
        division=str(division),
        name="Aces",
        player_1="Ann",
        player_2="Bob",
        substitutes="Cy\r\n\r\n  Dee & Eve  \r\n",
        back=back,
    )
    page = done(site, r, back, "The team is added.")
    assert "<strong>Aces</strong>: Ann and Bob" in page
    with site["store"].read() as rd:
        team = rd.teams(division)[0]["id"]
    public = client.get(f"/teams/{team}").text
    assert "Ann and Bob" in public and "(substitutes: Cy, Dee &amp; Eve)" in public
    kinds = [e.kind for e in events(site["store"])[-6:]]
    assert kinds == [
        "league_created",
        "season_created",
        "division_added",
        "division_added",
        "venue_added",
        "team_added",
    ]


def test_a_form_never_sends_the_organiser_off_the_organiser_pages(site):
    for back in ("https://elsewhere.example/", "//elsewhere.example", "/organiser/../x", "/organiser/kiosks?x=1"):
        r = post(site, "/organiser/league", name=f"League {len(back)}", back=back)
        assert r.status_code == 303 and r.headers["location"] == "/organiser?done=league"
    page = site["client"].get("/organiser?done=<script>").text
    assert '<p class="done">' not in page and "script&gt;" not in page


@pytest.fixture
def night(site):
    """A second season of the league, two games a meeting, four teams, two venues of two tables each,
    scheduled through the form: its first meeting and the division's organiser page."""
    org, ids = site["org"], site["ids"]
    _, division = org.create_season(ids["league"], "Spring 2026", {"games_per_meeting": 2})
    teams = [org.add_team(division, name, ["A", "B"]) for name in ("North", "South", "East", HOSTILE)]
    bar = org.add_venue(ids["league"], "Bar 2", tables=2)
    back = f"/organiser/divisions/{division}"
    r = post(site, "/organiser/schedule", division=str(division), start="2026-03-03", every="7", back=back)
    done(site, r, back, "The schedule is made.")
    with site["store"].read() as rd:
        first = next(m for m in rd.meetings(division) if m["round"] == 1)
        names = {t["id"]: t["name"] for t in rd.teams(division)}
    return {"division": division, "meeting": first, "names": names, "teams": teams, "bar": bar, "back": back}


def test_the_meeting_forms_record_its_games_and_move_it(site, night):
    client, m, back = site["client"], night["meeting"], night["back"]
    a, b = night["names"][m["team_a"]], night["names"][m["team_b"]]
    before = events(site["store"])
    r = post(site, "/organiser/game", meeting=str(m["id"]), points_a="521", points_b="497", outcome="a", back=back)
    # Checked first: what the result will do, and a button to count it; nothing counts yet.
    assert r.status_code == 200 and "Check before it counts" in r.text
    assert f'<p class="said">{a} beat {b} 521–497; {a} stay 1st, {b} go down to 2nd.</p>' in html.unescape(r.text)
    assert events(site["store"]) == before

    def count(points_a: str, points_b: str, outcome: str):
        game = {"points_a": points_a, "points_b": points_b, "outcome": outcome}
        return post(site, "/organiser/game", meeting=str(m["id"]), back=back, confirm="1", **game)

    done(site, count("521", "497", "a"), back, "The game is recorded.")
    r = count("480", "597", "b")
    page = done(site, r, back, "The game is recorded.")
    assert "2 of 2 games" in page
    schedule = html.unescape(re.sub(r"<[^>]+>", "", client.get(f"/divisions/{night['division']}/schedule").text))
    assert f"Game 1: 521–497, {a} won" in schedule and f"Game 2: 480–597, {b} won" in schedule

    r = post(
        site,
        "/organiser/move",
        meeting=str(m["id"]),
        date="2026-03-05",
        venue=str(night["bar"]),
        table="2",
        reason="the bar is shut",
        back=back,
    )
    done(site, r, back, "The meeting is moved.")
    schedule = client.get(f"/divisions/{night['division']}/schedule").text
    assert "2026-03-05, Bar 2, table 2 (moved: from 2026-03-03)" in schedule
    assert [e.kind for e in events(site["store"])[-3:]] == ["game_recorded", "game_recorded", "meeting_moved"]
    lines = [(x.name, x.won, x.points_for) for x in site["org"].standings(night["division"]) if x.played]
    assert lines == [(b, 1, 1094), (a, 1, 1001)]  # a win each; game points put b first


def test_every_form_refuses_bad_input_with_its_reason_and_writes_nothing(site, night):
    ids, m = site["ids"], night["meeting"]
    forfeited = meeting_of(site["org"], ids["division"], ids["aces"], ids["queens"])
    played = meeting_of(site["org"], ids["division"], ids["aces"], ids["kings"])
    season = {
        "league": str(ids["league"]),
        "name": "Autumn",
        "games_per_meeting": "1",
        "ranking": "games_won",
        "rules": "evansville",
    }
    move = {"meeting": str(m["id"]), "date": "2026-03-05", "venue": str(night["bar"]), "reason": "shut"}
    game = {"meeting": str(m["id"]), "points_a": "521", "points_b": "497", "outcome": "a"}
    team = {"division": str(night["division"]), "name": "West", "player_1": "Ann", "player_2": "Bob"}
    cases = [
        ("league", {"name": "  "}, "league: a name is needed"),
        ("league", {"name": "Tuesday nights"}, "there is already a league named 'Tuesday nights'"),
        ("season", {**season, "games_per_meeting": "0"}, "games_per_meeting: must be a whole number from 1 to 15"),
        ("season", {**season, "games_per_meeting": "x"}, "season: games a meeting: 'x' is not a number"),
        ("season", {**season, "ranking": "wins"}, "ranking: must be one of games_won, game_points, not 'wins'"),
        (
            "season",
            {**season, "tie_breaker_1": "game_points", "tie_breaker_2": "game_points"},
            "each tie-breaker may be named once",
        ),
        ("season", {**season, "tie_breaker_1": "luck"}, "tie_breakers[0]: must be one of"),
        ("season", {**season, "rules": "hoyle"}, "unknown preset 'hoyle'"),
        ("season", {**season, "league": "99"}, "there is no league 99"),
        ("season", {**season, "name": "Winter 2026"}, "already has a season named 'Winter 2026'"),
        ("division", {"season": str(ids["season"]), "name": "Division 1"}, "already has a division named"),
        ("venue", {"league": str(ids["league"]), "name": "Bar 3", "tables": "0"}, "tables must be from 1 to 100"),
        ("venue", {"league": str(ids["league"]), "name": "Bar 3", "tables": ""}, "venue: tables: '' is not a number"),
        ("venue", {"league": str(ids["league"]), "name": "Germania", "tables": "2"}, "already has a venue named"),
        ("team", team, "the division's schedule is made; a team cannot join now"),
        ("team", {**team, "division": str(ids["division"] + 99)}, "there is no division"),
        ("schedule", {"division": str(night["division"]), "start": "2026-04-01"}, "already has a schedule"),
        ("schedule", {"division": str(night["division"]), "start": "2026-04-01", "every": "0"}, "from 1 to 60"),
        ("move", {**move, "reason": " "}, "a reason is needed"),
        ("move", {**move, "table": "9"}, "'Bar 2' has tables 1 to 2, not 9"),
        ("move", {**move, "date": "next Tuesday"}, "'next Tuesday' is not a date like 2026-01-06"),
        ("move", {**move, "venue": "x"}, "venue: 'x' is not a number"),
        ("game", {**game, "outcome": "won"}, "the result is a, b, tie or abandoned, not 'won'"),
        ("game", {**game, "points_a": "12x"}, "the first team's points: '12x' is not a number of points"),
        ("game", {**game, "points_b": "99999"}, "is not a game's points"),
        ("game", {**game, "points_a": "-40"}, "the first team's points: -40 is not a game's points"),
        ("game", {**game, "points_a": "300", "points_b": "600"}, "won with 300, short of the target 500: swap a"),
        ("game", {**game, "points_a": "510", "points_b": "521"}, "won with 510 against 521: the winner has more"),
        ("game", {**game, "outcome": "tie"}, "a tie is equal totals of 500 or more, not 521–497"),
        ("game", {**game, "outcome": ""}, "choose the result"),
        ("game", {**game, "outcome": "abandoned"}, "abandoned: a reason is needed"),
        ("game", {**game, "meeting": str(forfeited["id"])}, "was forfeited: no games are played"),
        ("game", {**game, "meeting": str(played["id"])}, "already has its 1 game(s)"),
        ("rule", {"game": "999", "outcome": "a", "reason": "r"}, "there is no game 999"),
    ]
    before, kiosks_before = events(site["store"]), snapshot(site["store"])
    for form, data, says in cases:
        r = post(site, f"/organiser/{form}", back=night["back"], **data)
        text = refused(r)
        assert says in text, (form, data, text)
        assert f'<a href="{night["back"]}">Back</a>' in r.text
    assert events(site["store"]) == before and snapshot(site["store"]) == kiosks_before


def test_posts_without_the_right_csrf_token_or_a_session_are_refused_with_nothing_written(site, night):
    ids = site["ids"]
    forms = [
        ("/organiser/league", {"name": "Forged league"}),
        ("/organiser/season", {"league": ids["league"], "name": "Forged", "games_per_meeting": 1}),
        ("/organiser/division", {"season": ids["season"], "name": "Forged"}),
        ("/organiser/venue", {"league": ids["league"], "name": "Forged", "tables": 1}),
        ("/organiser/team", {"division": night["division"], "name": "Forged", "player_1": "A", "player_2": "B"}),
        ("/organiser/move", {"meeting": night["meeting"]["id"], "date": "2026-03-05", "reason": "forged"}),
        ("/organiser/game", {"meeting": night["meeting"]["id"], "points_a": 1, "points_b": 0, "outcome": "a"}),
        ("/organiser/kiosks/code", {"venue": ids["venue"], "table": 1}),
        ("/organiser/kiosks/revoke", {"kiosk": 1, "confirm": "1"}),
        ("/organiser/fleet/offer", {"file": "clabber-0.2.0.raucb"}),
        ("/organiser/fleet/withdraw", {"back": "/organiser/fleet"}),
    ]
    before, kiosks_before = events(site["store"]), snapshot(site["store"])
    client = site["client"]
    for path, data in forms:
        for token in ({}, {"csrf": ""}, {"csrf": "x" * 43}):
            r = client.post(path, data={**data, **token})
            assert r.status_code == 403 and "did not come from this site" in r.text, (path, token)
    client.cookies.clear()
    for path, data in forms:
        r = client.post(path, data={**data, "csrf": site["csrf"]})
        assert r.status_code == 403 and "Sign in first" in r.text, path
    for page in (
        "/organiser",
        f"/organiser/divisions/{night['division']}",
        "/organiser/kiosks",
        "/organiser/fleet",
        "/organiser/quarantine",
    ):
        r = client.get(page)
        assert r.status_code == 303 and r.headers["location"] == "/organiser/sign-in", page
    assert events(site["store"]) == before and snapshot(site["store"]) == kiosks_before


def test_the_organiser_pages_show_every_name_as_text_and_fit_a_phone(site, night):
    escaped = "&lt;b&gt;Kings&lt;/b&gt; &amp; &#34;Co&#34; &lt;script&gt;x()&lt;/script&gt;"
    client = site["client"]
    pages = {
        "/organiser": None,
        f"/organiser/divisions/{site['ids']['division']}": escaped,
        f"/organiser/divisions/{night['division']}": escaped,
        "/organiser/kiosks": None,
        "/organiser/fleet": None,
        "/organiser/quarantine": None,
    }
    for path, shown in pages.items():
        r = client.get(path)
        assert r.status_code == 200, path
        assert "<script>" not in r.text and "<b>Kings" not in r.text, path
        if shown:
            assert shown in r.text, path
        # Laid out for a phone: the viewport is the device's, and no table (the one thing that
        # cannot wrap) on the organiser's pages.
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in r.text, path
        assert "<table" not in r.text and "<pre" not in r.text, path
    assert client.get("/organiser/divisions/999").status_code == 404
    assert client.get("/organiser/divisions/x").status_code == 404


def qr_text(page: str) -> str:
    """Draws the inline SVG QR code of a page (one path of unit squares) and reads it back."""
    svg = re.search(r"<svg [^>]*viewBox=\"0 0 (\d+) \1\"[^>]*>(.*?)</svg>", page, re.S)
    assert svg, page
    size, scale = int(svg.group(1)), 8
    image = Image.new("L", (size * scale, size * scale), 255)
    draw = ImageDraw.Draw(image)
    d = re.search(r'<path d="([^"]+)"', svg.group(2)).group(1)
    cells = re.findall(r"M(\d+),(\d+)h1v1h-1z", d)
    assert cells and "".join(f"M{x},{y}h1v1h-1z" for x, y in cells) == d
    for x, y in cells:
        draw.rectangle([int(x) * scale, int(y) * scale, (int(x) + 1) * scale - 1, (int(y) + 1) * scale - 1], fill=0)
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1, found
    return found[0].text


def test_an_enrolment_code_is_shown_big_with_its_qr_and_enrols_a_kiosk_once(site):
    client, venue = site["client"], site["ids"]["venue"]
    page = client.get("/organiser/kiosks").text
    assert f'<option value="{venue}">Germania (2 tables)</option>' in page
    before = dt.datetime.now(zoneinfo.ZoneInfo("America/Chicago"))  # the league's clock, not the server's
    r = post(site, "/organiser/kiosks/code", venue=str(venue), table="2")
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    code = CODE.search(r.text).group(1)
    assert re.fullmatch(r"[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}", code)
    assert qr_text(r.text) == code
    text = html.unescape(re.sub(r"<[^>]+>", "", r.text))
    assert "The code for Germania, table 2" in text
    assert "It works once, and for 10 minutes only: until " in text
    until = (before + dt.timedelta(minutes=10)).strftime("%H:%M")
    later = (before + dt.timedelta(minutes=11)).strftime("%H:%M")
    zone = before.strftime("%Z")  # CST or CDT
    assert f"until {until} {zone}" in text or f"until {later} {zone}" in text
    # The policy stays as tight as the other pages': the QR code is part of the page, not an image.
    csp = r.headers["content-security-policy"]
    assert csp == client.get("/").headers["content-security-policy"]
    assert "img-src" not in csp and "unsafe" not in csp and "default-src 'none'" in csp

    kiosks = Kiosks(site["store"])
    got = kiosks.enrol(code.lower())  # typed, in any case
    assert got["venue"] == {"id": venue, "name": "Germania"} and got["table"] == 2
    with pytest.raises(KioskRefused) as e:
        kiosks.enrol(code)
    assert e.value.status == 403
    listed = html.unescape(re.sub(r"<[^>]+>", "", client.get("/organiser/kiosks").text))
    assert f"Kiosk {got['kiosk']}: Germania, table 2" in listed and "revoked" not in listed

    before_rows = snapshot(site["store"])
    for data, says in [
        ({"venue": str(venue), "table": "3"}, "venue 'Germania' has tables 1 to 2, not 3"),
        ({"venue": "99", "table": "1"}, "there is no venue 99"),
        ({"venue": str(venue), "table": ""}, "table: '' is not a number"),
    ]:
        assert says in refused(post(site, "/organiser/kiosks/code", **data))
    assert snapshot(site["store"]) == before_rows


def test_revoking_a_kiosk_needs_the_box_ticked_and_then_its_key_is_refused(site):
    client = site["client"]
    kiosks = Kiosks(site["store"])
    got = kiosks.enrol(kiosks.make_code(site["ids"]["venue"], 1))
    api = TestClient(create_app(kiosks))
    auth = {"Authorization": f"Bearer {got['key']}"}
    assert api.get("/api/v1/tonight?date=2026-01-06", headers=auth).status_code == 200
    page = client.get("/organiser/kiosks").text
    assert f"<button>Revoke kiosk {got['kiosk']}</button>" in page and 'name="confirm" value="1" required' in page

    before = snapshot(site["store"])
    text = refused(post(site, "/organiser/kiosks/revoke", kiosk=str(got["kiosk"])))
    assert f"kiosk {got['kiosk']}: tick the box to confirm" in text
    assert "there is no kiosk 99" in refused(post(site, "/organiser/kiosks/revoke", kiosk="99", confirm="1"))
    assert snapshot(site["store"]) == before
    assert api.get("/api/v1/tonight", headers=auth).status_code == 200

    r = post(site, "/organiser/kiosks/revoke", kiosk=str(got["kiosk"]), confirm="1")
    page = done(site, r, "/organiser/kiosks", "The kiosk&#39;s key is revoked: the server refuses it from now on.")
    assert f"Revoke kiosk {got['kiosk']}" not in page and "; revoked " in page
    r = api.get("/api/v1/tonight", headers=auth)
    assert r.status_code == 401 and "unknown or revoked" in r.json()["error"]
    text = refused(post(site, "/organiser/kiosks/revoke", kiosk=str(got["kiosk"]), confirm="1"))
    assert "is already revoked" in text


class Later:
    """A kiosk server's clock that moves a minute on each time it is read."""

    def __init__(self) -> None:
        self.now = dt.datetime(2026, 1, 7, 3, 0, tzinfo=dt.UTC)  # 9 pm on the 6th in Evansville

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(minutes=1)
        return self.now


def test_the_quarantine_lists_every_set_aside_event_newest_first_with_where_and_why(site):
    client, ids = site["client"], site["ids"]
    assert "Nothing set aside." in client.get("/organiser/quarantine").text
    kiosks = Kiosks(site["store"], Later())
    kiosk = kiosks.kiosk_for_key(kiosks.enrol(kiosks.make_code(ids["venue"], 2))["key"])
    meeting = meeting_of(site["org"], ids["division"], ids["aces"], ids["kings"])["id"]
    # A hand first (no game started), then a second game whose first event's kind is hostile.
    kiosks.push(kiosk, {"games": [{"game": 1, "meeting": meeting, "events": [refused_event(1)]}]})
    hostile = {**refused_event(1), "kind": "<b>x</b>"}
    kiosks.push(kiosk, {"games": [{"game": 2, "meeting": meeting, "events": [hostile]}]})
    page = client.get("/organiser/quarantine").text
    assert "<b>x</b>" not in page
    items = [html.unescape(re.sub(r"<[^>]+>", "", li)) for li in re.findall(r"<li>(.*?)</li>", page, re.S)]
    why = "the log of this game does not start with the game"
    received = [dt.datetime(2026, 1, 7, 3, n, tzinfo=dt.UTC).astimezone().strftime("%Y-%m-%d %H:%M %Z") for n in (4, 3)]
    assert items == [
        f"{why}\nKiosk {kiosk['id']} (Germania, table 2) · game 2, event 1: <b>x</b> · received {received[0]}",
        f"{why}\nKiosk {kiosk['id']} (Germania, table 2) · game 1, event 1: hand_entered · received {received[1]}",
    ]


def test_the_quarantine_page_lists_games_waiting_for_a_ruling_and_differing_deliveries(site, tmp_path):
    from tests.league_kiosk_helpers import meeting_night, played_game

    client, ids = site["client"], site["ids"]
    kiosks = Kiosks(site["store"], Later())
    kiosk = kiosks.kiosk_for_key(kiosks.enrol(kiosks.make_code(ids["venue"], 1))["key"])
    meeting = meeting_of(site["org"], ids["division"], ids["aces"], ids["kings"])
    names = {ids["aces"]: "Aces", ids["kings"]: HOSTILE}  # the game is started with the league's names
    teams = (names[meeting["team_a"]], names[meeting["team_b"]])
    night = meeting_night(site["store"], meeting["id"])
    short = played_game(tmp_path, teams, rules={"target": 300}, night=night)  # not the season's rules
    kiosks.push(kiosk, {"games": [{"game": 1, "meeting": meeting["id"], "events": short}]})
    again = played_game(tmp_path, teams, night=night)  # game 1's numbers again, other content
    kiosks.push(kiosk, {"games": [{"game": 1, "events": again[:1]}]})
    page = html.unescape(re.sub(r"<[^>]+>", "", client.get("/organiser/quarantine").text))
    assert "played with other rules than the season's (target 300, not 500): rule on it" in page
    assert f"Kiosk {kiosk['id']} (Germania, table 1) · its game 1 · meeting {meeting['id']}" in page
    assert f"Kiosk {kiosk['id']} (Germania, table 1) · game 1, event 1: game_started" in page
