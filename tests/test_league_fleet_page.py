"""The organiser's fleet page: the version offered (offered from the server's folder, withdrawn), and
every kiosk as it last reported at its sync — version and system, last seen, last delivery, free
space, its update's state — with what needs looking at first; `clabber league kiosks` says the same.
Through Starlette's TestClient on SQLite and PostgreSQL, and on a phone in a real Chromium."""

from __future__ import annotations

import datetime as dt
import html
import re
import shutil
import subprocess

import pytest
from starlette.testclient import TestClient

from league.api.app import create_app
from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.organiser.fleet import Fleet
from league.organiser.signin import SignIn
from league.store.core import Store
from tests.browser import chromium, page_of
from tests.league_pages_helpers import PASSWORD, Clock, client_for, organiser_csrf, sign_in, small_season
from tests.league_server import CLABBER, LeagueServer
from tests.rauc_helpers import make_bundle, make_key

NOW = dt.datetime.now(dt.UTC)  # the page judges "not seen" by the server's clock
ROLLED = "at its first start, kiosk: the kiosk is failed, not running with its sheet drawn"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundle")
    return make_bundle(folder, "0.2.0", make_key(folder, "distributor"))


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def fleet_of(store: Store, folder, days_ago: float = 0) -> Fleet:
    return Fleet(store, folder, clock=lambda: NOW - dt.timedelta(days=days_ago))


def reported(store, folder, league) -> dict[str, int]:
    """Four kiosks at the Red Lion's tables: one up to date, one rolled back, one silent for three
    days and short of room, one never heard from."""
    venue = Organiser(store).add_venue(league, "Red Lion", tables=4)
    kiosks = Kiosks(store)
    ids = {}
    for name, table in (("fine", 1), ("rolled", 2), ("silent", 3), ("new", 4)):
        ids[name] = kiosks.enrol(kiosks.make_code(venue, table))["kiosk"]
    body = {"version": "0.2.0", "slot": "B", "free_bytes": 3 * 2**30, "last_sync": "2026-12-05T19:58:00+00:00"}
    fleet_of(store, folder).report(ids["fine"], {**body, "update": {"state": "committed", "version": "0.2.0"}})
    rolled = {"state": "rolled back", "version": "0.2.0", "percent": 0, "why": ROLLED}
    fleet_of(store, folder).report(ids["rolled"], {**body, "version": "0.1.0", "slot": "A", "update": rolled})
    silent = {**body, "version": "0.1.0", "slot": "A", "free_bytes": 200 * 2**20}
    fleet_of(store, folder, days_ago=3).report(ids["silent"], {**silent, "update": {"state": "up to date"}})
    return ids


@pytest.fixture
def site(league_db, tmp_path, monkeypatch, bundle):
    folder = tmp_path / "offered"
    folder.mkdir()
    monkeypatch.setenv("CLABBER_LEAGUE_UPDATES", str(folder))
    store = Store(league_db)
    ids = small_season(Organiser(store))
    clock = Clock()
    SignIn(store, clock).set_password(PASSWORD)
    client = client_for(store, clock)
    assert sign_in(client).status_code == 303
    with store.read() as r:
        venue = r.venues(ids["league"])[0]["id"]
    yield {"store": store, "client": client, "csrf": organiser_csrf(client), "folder": folder, "venue": venue,
           "league": ids["league"]}  # fmt: skip
    store.close()


def test_a_bundle_in_the_servers_folder_is_offered_from_the_page_and_withdrawn(site, bundle):
    client, folder = site["client"], site["folder"]
    page = client.get("/organiser/fleet")
    assert page.status_code == 200
    assert "No version is offered: the kiosks keep what they run." in text_of(page.text)
    shutil.copy(bundle, folder / "from-the-distributor.raucb")
    (folder / "broken.raucb").write_bytes(b"not a bundle at all")
    page = text_of(client.get("/organiser/fleet").text)
    assert "0.2.0 (" in page and "for clabber-pi-arm64): from-the-distributor.raucb" in page
    assert "broken.raucb is not an update bundle" in page

    for name in ("broken.raucb", "../league.db", ""):  # only a bundle the page lists
        r = client.post("/organiser/fleet/offer", data={"csrf": site["csrf"], "file": name})
        assert r.status_code == 400 and "no such bundle" in text_of(r.text), name
    assert Fleet(site["store"], folder).current() is None

    r = client.post("/organiser/fleet/offer", data={"csrf": site["csrf"], "file": "from-the-distributor.raucb"})
    assert r.status_code == 303 and r.headers["location"] == "/organiser/fleet?done=offered"
    page = text_of(client.get(r.headers["location"]).text)
    assert "Offered to every kiosk: each takes it at its next sync" in page
    assert "Version 0.2.0 is offered to every kiosk" in page
    assert not (folder / "from-the-distributor.raucb").exists() and (folder / "clabber-0.2.0.raucb").is_file()

    kiosks = Kiosks(site["store"])
    key = kiosks.enrol(kiosks.make_code(site["venue"], 1))["key"]
    api = TestClient(create_app(kiosks, Fleet(site["store"], folder)))
    offer = api.get("/api/v1/update", headers={"Authorization": f"Bearer {key}"}).json()["offer"]
    assert offer["version"] == "0.2.0" and offer["size"] == bundle.stat().st_size

    assert client.post("/organiser/fleet/withdraw", data={"csrf": "wrong"}).status_code == 403
    assert Fleet(site["store"], folder).current() is not None
    r = client.post("/organiser/fleet/withdraw", data={"csrf": site["csrf"]})
    assert r.status_code == 303
    assert "No version is offered" in text_of(client.get(r.headers["location"]).text)


def test_every_kiosk_is_listed_with_its_version_state_and_room_the_troubled_first(site):
    ids = reported(site["store"], site["folder"], site["league"])
    page = text_of(site["client"].get("/organiser/fleet").text)
    assert "4 kiosks · 1 not reported yet · 2 on 0.1.0 · 1 on 0.2.0 · 2 to look at" in page
    rolled, silent, fine = (page.index(f"Kiosk {ids[n]} ") for n in ("rolled", "silent", "fine"))
    assert rolled < fine and silent < fine  # what needs looking at comes first
    assert f"Kiosk {ids['rolled']} · Red Lion, table 2 · rolled back 0.1.0 (system A) · " in page
    assert f"rolled back from 0.2.0: {ROLLED}" in page
    assert f"Kiosk {ids['silent']} · Red Lion, table 3 · not seen for 3 days" in page and "200 MB free" in page
    assert f"Kiosk {ids['fine']} · Red Lion, table 1 0.2.0 (system B) · 0.2.0 kept: it proved itself" in page
    assert "3.0 GB free" in page and "last delivery 2026-12-05" in page
    assert f"Kiosk {ids['new']} · Red Lion, table 4 no report yet not seen since it was enrolled" in page


def test_the_command_prints_the_fleet_as_the_page_does(league_db, tmp_path, monkeypatch):
    monkeypatch.setenv("CLABBER_LEAGUE_UPDATES", str(tmp_path / "offered"))
    store = Store(league_db)
    ids = small_season(Organiser(store))
    kiosk = reported(store, tmp_path / "offered", ids["league"])
    store.close()
    done = subprocess.run([str(CLABBER), "league", "--db", league_db, "kiosks"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = {int(line.split(":")[0].removeprefix("kiosk ")): line for line in done.stdout.splitlines()}
    assert lines[kiosk["rolled"]].startswith(f"kiosk {kiosk['rolled']}: Red Lion, table 2 · 0.1.0 (A) · ")
    assert f"rolled back from 0.2.0: {ROLLED}" in lines[kiosk["rolled"]]
    assert lines[kiosk["rolled"]].endswith("LOOK: rolled back")
    assert "LOOK: not seen for" in lines[kiosk["silent"]] and "200 MB free" in lines[kiosk["silent"]]
    assert "LOOK" not in lines[kiosk["fine"]] and "3.0 GB free" in lines[kiosk["fine"]]
    assert "? · no report yet · seen never" in lines[kiosk["new"]]


@pytest.mark.slow
def test_the_fleet_page_fits_a_phone(tmp_path, monkeypatch):
    folder = tmp_path / "offered"
    monkeypatch.setenv("CLABBER_LEAGUE_UPDATES", str(folder))
    db = str(tmp_path / "league.db")
    store = Store(db)
    ids = small_season(Organiser(store))
    reported(store, folder, ids["league"])
    SignIn(store).set_password(PASSWORD)
    store.close()
    server = LeagueServer(db)
    server.start()
    try:
        with chromium() as browser:
            page = page_of(browser, 390, 844)
            page.goto(f"{server.url}/organiser/sign-in")
            page.fill("input[name=password]", PASSWORD)
            page.click("button")
            page.goto(f"{server.url}/organiser/fleet")
            page.wait_for_load_state("load")
            assert "to look at" in page.inner_text("body")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.screenshot(path=str(tmp_path / "fleet-390.png"), full_page=True)
            assert page.errors == []
    finally:
        server.stop()
