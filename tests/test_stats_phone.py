"""The statistics pages on a phone 390 px wide, in a real headless Chromium (Debian's ``chromium``): the
page never scrolls sideways and no table is wider than its box, with the longest names a team and a
player can have. Chromium draws no window under 500 px, so each page is measured inside a 390 x 844
frame, and the frame tells the page around it what it measured."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kiosk.web import Site, create_app
from league.pages import make_app
from league.store.core import Store
from league.store.stats import game_figures, team_figures
from league.store.tables import teams
from tests.league_stats_helpers import small_season
from tests.store_helpers import open_table

LONG_TEAM = "The Extraordinarily Long Team Name Here!"  # 40 characters: the longest a sheet shows
LONG_PLAYER = "Annabelle Maximiliana Montgomery-Smythe"
MEASURE = (
    "<script>parent.postMessage([document.documentElement.scrollWidth, window.innerWidth, Math.max(0, "
    "...[...document.querySelectorAll('table')].map(t => t.getBoundingClientRect().right - "
    "t.parentElement.getBoundingClientRect().right))].join(' '), '*')</script></body>"
)


def measure(folder: Path, name: str, html: str) -> tuple[int, int, float]:
    """The page's scroll width, the frame's width, and how far the widest table reaches past its box."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("these tests need Chromium: sudo apt install chromium")
    (folder / f"{name}.html").write_text(html.replace("</body>", MEASURE))
    outer = folder / f"{name}-phone.html"
    outer.write_text(
        f'<!doctype html><html><body style="margin:0"><iframe src="{name}.html" width="390" height="844" '
        "style=\"border:0\"></iframe><script>addEventListener('message', e => "
        "document.body.setAttribute('data-measured', e.data))</script></body></html>"
    )
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=600,900"]
    run = subprocess.run(
        [chromium, *flags, "--virtual-time-budget=5000", "--dump-dom", outer.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'data-measured="([\d. -]+)"', run.stdout)
    assert found, run.stderr[-2000:]
    page, frame, over = found.group(1).split()
    return int(page), int(frame), float(over)


@pytest.mark.slow
def test_the_league_statistics_fit_a_phone(tmp_path):
    store = Store(str(tmp_path / "league.db"))
    w = small_season(store, tmp_path)
    with store.write() as wr:  # the longest names a team and a player can have
        wr.conn.execute(sa.update(teams).where(teams.c.name == "Aces").values(name=LONG_TEAM))
        wr.conn.execute(sa.update(team_figures).where(team_figures.c.player == "Ann").values(player=LONG_PLAYER))
    client = TestClient(make_app(store))
    for i, url in enumerate(
        (
            f"/seasons/{w['season']}/stats?min=1",
            f"/seasons/{w['season']}/stats?min=1&sort=make_rate",
            f"/leagues/{w['league']}/stats?min=1&all=1",
        )
    ):
        html = client.get(url).text
        assert LONG_TEAM in html
        page, frame, over = measure(tmp_path, f"league-{i}", html)
        assert frame == 390 and page <= frame and over <= 0.5, (url, page, frame, over)
    store.close()


@pytest.mark.slow
def test_the_league_ratings_fit_a_phone(tmp_path):
    store = Store(str(tmp_path / "league.db"))
    w = small_season(store, tmp_path)
    with store.write() as wr:  # the longest name a player can have, at a kiosk game's seat
        wr.conn.execute(sa.update(game_figures).where(game_figures.c.player == "Ann").values(player=LONG_PLAYER))
    client = TestClient(make_app(store))
    for i, url in enumerate((f"/leagues/{w['league']}/ratings", f"/leagues/{w['league']}/players/{LONG_PLAYER}")):
        html = client.get(url).text
        assert LONG_PLAYER in html, url
        page, frame, over = measure(tmp_path, f"ratings-{i}", html)
        assert frame == 390 and page <= frame and over <= 0.5, (url, page, frame, over)
    store.close()


@pytest.mark.slow
def test_the_kiosks_statistics_fit_a_phone(tmp_path):
    table = open_table(tmp_path / "clabber.db")
    g = table.new_game([LONG_TEAM, "Mackeys"], [LONG_PLAYER, "Elbert", "Carolyn", "Walter"], first_dealer="N")
    while g.status == "open":
        g = table.add_hand(g.id, {"trump": "S", "maker": "N", "points": {"NS": 162, "EW": 0}})
    table.close()
    site = Site(tmp_path / "clabber.db", "http://kiosk", "http://kiosk/view", "Table 3", show_recent=True)
    with TestClient(create_app(site)) as client:
        html = client.get("/stats?min=1").text
    assert "Made%" in html
    page, frame, over = measure(tmp_path, "kiosk", html)
    assert frame == 390 and page <= frame and over <= 0.5, (page, frame, over)
