"""The public pages through Starlette's TestClient, on SQLite and PostgreSQL."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient

from league.organiser.actions import Organiser
from league.organiser.signin import SignIn
from league.pages import make_app
from league.store.core import Store
from tests.league_pages_helpers import (
    HOSTILE,
    PASSWORD,
    STANDINGS,
    Clock,
    client_for,
    meeting_of,
    sign_in,
    small_season,
    table_rows,
)


@pytest.fixture
def site(league_db):
    store = Store(league_db)
    org = Organiser(store)
    ids = small_season(org)
    with TestClient(make_app(store)) as client:
        yield client, ids
    store.close()


def test_the_standings_page_shows_the_hand_worked_table_in_order(site):
    client, ids = site
    r = client.get(f"/seasons/{ids['season']}")
    assert r.status_code == 200
    rows = table_rows(r.text)
    # Every column the season's ranking and tie-breakers use: games won (W, as no game was tied),
    # game points, the difference, head to head (empty: it decided nothing here).
    assert rows[0] == ["#", "Team form", "P", "W", "L", "T", "Pts", "Agst", "±", "H2H"]
    # Each team's form under its name, the newest last: the abandoned game counts for nobody.
    forms = {"Aces": "WW", HOSTILE: "L", "Queens": "L"}
    for got, (position, name, *figures, difference) in zip(rows[1:], STANDINGS, strict=True):
        assert got[:2] == [position, f"{name}{forms[name]}"]
        assert got[2:] == [*figures, {"24": "+24", "-24": "−24"}.get(difference, difference), ""]
    assert "Ranked by games won (a tie counts half); then game points, point difference, head to head" in r.text
    # Where a tie-breaker decided a place, the page says so.
    kings = "&lt;b&gt;Kings&lt;/b&gt; &amp; &#34;Co&#34; &lt;script&gt;x()&lt;/script&gt;"
    assert f"<li>{kings} above Queens on game points (497 to 0).</li>" in r.text


def test_the_index_links_each_league_to_its_seasons(site):
    client, ids = site
    r = client.get("/")
    assert "Tuesday nights" in r.text and f'href="/seasons/{ids["season"]}"' in r.text


def test_the_schedule_shows_every_round_with_its_bye_results_forfeit_and_ruling(site):
    client, ids = site
    r = client.get(f"/divisions/{ids['division']}/schedule")
    assert r.status_code == 200
    assert [f"Round {n} · 2026-01-{d:02}" in r.text for n, d in ((1, 6), (2, 13), (3, 20))] == [True] * 3
    assert r.text.count("has the bye") == 3
    assert "Forfeited by Queens: Queens&#39; player is ill" in r.text
    assert "abandoned, counts for nobody <em>(ruling: played with a short deck)</em>" in r.text
    assert "521–497, Aces won" in r.text or "497–521, Aces won" in r.text


def test_a_team_page_lists_its_own_meetings_only(site):
    client, ids = site
    r = client.get(f"/teams/{ids['queens']}")
    assert r.status_code == 200 and "Gus and Hal" in r.text
    assert r.text.count("<li>Round") == 3  # two meetings and its bye
    assert "Queens</strong> has the bye" in r.text
    r = client.get(f"/teams/{ids['aces']}")
    assert "Queens</strong> has the bye" not in r.text and "Aces</strong> has the bye" in r.text


def test_hostile_names_are_shown_as_text_never_as_markup(site):
    client, ids = site
    escaped = "&lt;b&gt;Kings&lt;/b&gt; &amp; &#34;Co&#34; &lt;script&gt;x()&lt;/script&gt;"
    for path in (
        f"/seasons/{ids['season']}",
        f"/divisions/{ids['division']}/schedule",
        f"/teams/{ids['kings']}",
        f"/teams/{ids['aces']}",
    ):
        body = client.get(path).text
        assert escaped in body, path
        assert "<script>" not in body and "<b>Kings" not in body and "<i>Cy" not in body, path
    assert "&lt;i&gt;Cy&lt;/i&gt; and Di" in client.get(f"/teams/{ids['kings']}").text
    assert "Ed &amp; Flo" in client.get(f"/teams/{ids['kings']}").text
    assert HOSTILE not in client.get(f"/seasons/{ids['season']}").text


def test_every_page_carries_the_security_headers_and_unknown_ids_are_404(site):
    client, ids = site
    for path in ("/", f"/seasons/{ids['season']}", "/seasons/99", "/teams/x", "/nowhere"):
        r = client.get(path)
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["x-frame-options"] == "DENY", path
        csp = r.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "form-action 'self'" in csp and "script-src" not in csp, path
    assert client.get("/seasons/99").status_code == 404
    assert client.get("/teams/x").status_code == 404
    assert client.get(f"/divisions/{ids['division'] + 5}/schedule").status_code == 404


def test_a_season_ranked_by_game_points_does_not_name_them_twice(league_db):
    store = Store(league_db)
    org = Organiser(store)
    league = org.create_league("L")
    season, _ = org.create_season(league, "S", {"ranking": "game_points"})
    with TestClient(make_app(store)) as client:
        page = client.get(f"/seasons/{season}").text
    store.close()
    assert "Ranked by game points; then point difference, head to head." in page
    assert "then game points" not in page


def test_a_game_for_nobody_leaves_its_place_to_the_next(league_db):
    """Kings v Queens played one game, ruled abandoned: the meeting still has its one game to play,
    the organiser's page counts it so, and the next game recorded is its game that counts."""
    store = Store(league_db)
    org = Organiser(store)
    ids = small_season(org)
    SignIn(store, Clock()).set_password(PASSWORD)
    m = meeting_of(org, ids["division"], ids["kings"], ids["queens"])
    with client_for(store, Clock()) as client:
        sign_in(client)
        page = html.unescape(re.sub(r"<[^>]+>", "", client.get(f"/organiser/divisions/{ids['division']}").text))
        assert f"Meeting {m['id']} · 2026-01-" in page and "0 of 1 game (and 1 counting for nobody)" in page
        org.record_game(m["id"], *((521, 480, "a") if m["team_a"] == ids["kings"] else (480, 521, "b")))
        page = html.unescape(re.sub(r"<[^>]+>", "", client.get(f"/organiser/divisions/{ids['division']}").text))
        assert "1 of 1 game (and 1 counting for nobody)" in page and "2 of 1" not in page
    store.close()
