"""The league's pages in a real headless Chromium (tests/browser.py) against a real ``clabber league
serve``: the venue board on a 1920×1080 TV with 12 live tables, updated within a second of a push
with no reload, and back by itself after the server restarts; the standings and a team's page on a
390×844 phone without sideways scrolling. (The docs' pictures: ``python -m tests.board_shoot``.)"""

from __future__ import annotations

import time
from typing import Any

import pytest

from league.organiser.actions import Organiser
from league.store.core import Store
from shared.events import GameEvent
from shared.game_state import GameState
from tests.board_helpers import busy_night, push_body, table_game
from tests.browser import chromium, page_of
from tests.league_server import LeagueServer

pytestmark = pytest.mark.slow


def totals(events: list[dict[str, Any]]) -> tuple[int, int]:
    """NS's and EW's totals after these events, by the kiosk's own fold."""
    return GameState.from_events([GameEvent(game=1, **e) for e in events]).sheet.totals


@pytest.fixture
def night(tmp_path):
    """12 tables at one venue, each kiosk's game pushed over HTTP but for table 7's last hand."""
    db = str(tmp_path / "league.db")
    store = Store(db)
    world = busy_night(store, tables=12)
    # A season's worth of results before tonight would need other nights; tonight's standings start
    # from the games that end tonight.
    store.close()
    server = LeagueServer(db)
    server.start()
    games = []
    for i, (key, meeting, teams) in enumerate(zip(world["keys"], world["meetings"], world["teams"], strict=True)):
        events = table_game(tmp_path, teams, hands=1 + i % 5)
        games.append(events)
        held_back = 2 if i == 6 else 0  # table 7: its last hand (entered, confirmed) comes later
        status, answer = server.api.call(
            "POST", "/api/v1/push", push_body(meeting, events[: len(events) - held_back]), key
        )
        assert status == 200 and answer["games"][0]["stored"] == len(events) - held_back, answer
    yield {**world, "server": server, "games": games, "db": db}
    server.stop()


def open_board(browser: Any, night: dict[str, Any]) -> Any:
    page = page_of(browser, 1920, 1080)
    page.goto(f"{night['server'].url}/board/{night['venue']}")
    page.wait_for_function("() => window.clabberBoard && window.clabberBoard.updates >= 1", timeout=5000)
    return page


def card_total(page: Any, table: int, seat: str) -> str:
    return page.inner_text(f'article[data-table="{table}"] .total[data-seat="{seat}"]')


def wait_for_total(page: Any, table: int, seat: str, total: int, timeout: float) -> None:
    """Until the card shows that total (a function, not a string: the board's policy allows no eval)."""
    page.wait_for_function(
        "([t, s, v]) => document.querySelector(`article[data-table='${t}'] .total[data-seat='${s}']`)"
        ".textContent === v",
        arg=[table, seat, str(total)],
        timeout=timeout,
        polling=10,
    )


def push_rest_of_table_7(night: dict[str, Any]) -> float:
    """Table 7's held-back hand, pushed; when the league acknowledged it."""
    events = night["games"][6]
    status, answer = night["server"].api.call(
        "POST", "/api/v1/push", push_body(night["meetings"][6], events[-2:]), night["keys"][6]
    )
    assert status == 200 and answer["games"][0]["stored"] == 2
    return time.monotonic()


def test_the_board_on_a_tv_shows_12_live_tables_and_a_push_within_a_second_without_reload(night):
    events = night["games"][6]
    before, after = totals(events[:-2]), totals(events)
    with chromium() as browser:
        page = open_board(browser, night)
        # Every table on the screen at once: no scrolling either way, each card inside the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= 1920
        assert page.evaluate("document.documentElement.scrollHeight") <= 1080
        boxes = [page.locator(f'article[data-table="{n}"]').bounding_box() for n in range(1, 13)]
        assert all(
            b and b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= 1920 and b["y"] + b["height"] <= 1080
            for b in boxes
        )
        # Readable from 3 m: totals big, nothing smaller than 16 px, light on a dark ground.
        sizes = page.evaluate(
            """() => [...document.querySelectorAll('body *')].filter(e => e.childNodes.length &&
                 [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
               .map(e => parseFloat(getComputedStyle(e).fontSize))"""
        )
        assert (
            min(sizes) >= 16
            and float(page.eval_on_selector(".total", "e => parseFloat(getComputedStyle(e).fontSize)")) >= 60
        )
        assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == "rgb(0, 0, 0)"
        assert card_total(page, 7, "NS") == str(before[0]) and card_total(page, 7, "EW") == str(before[1])
        for n, events in enumerate(night["games"], 1):
            if n != 7:
                assert card_total(page, n, "NS") == str(totals(events)[0])
        opened = page.evaluate("window.clabberBoard.opened")
        updates = page.evaluate("window.clabberBoard.updates")

        acked = push_rest_of_table_7(night)
        wait_for_total(page, 7, "NS", after[0], timeout=1000)
        took = time.monotonic() - acked
        print(f"\nboard updated {took * 1000:.0f} ms after the push was acknowledged")
        assert took < 1.0
        assert card_total(page, 7, "EW") == str(after[1])
        # The same page: its mark from the load is still there, and it took the update as one more.
        assert page.evaluate("window.clabberBoard.opened") == opened
        assert page.evaluate("window.clabberBoard.updates") > updates
        assert page.errors == []


def test_the_board_comes_back_by_itself_after_the_server_restarts(night):
    server = night["server"]
    after = totals(night["games"][6])
    with chromium() as browser:
        page = open_board(browser, night)
        opened = page.evaluate("window.clabberBoard.opened")
        server.stop()
        page.wait_for_function("() => document.getElementById('status').className === 'down'", timeout=5000)
        assert "connecting again" in page.inner_text("#status")
        server.start()
        # EventSource tries again every 2 s (the server's retry); once back, it has the whole board.
        page.wait_for_function("() => window.clabberBoard.connections >= 2", timeout=10000)
        assert page.inner_text("#status").startswith("live")
        acked = push_rest_of_table_7(night)
        wait_for_total(page, 7, "NS", after[0], timeout=1000)
        assert time.monotonic() - acked < 1.0
        assert page.evaluate("window.clabberBoard.opened") == opened
        # Errors while the server was away are the browser's own words about the lost connection.
        assert all("event" in e.lower() or "net::" in e for e in page.errors), page.errors


def phone_page(browser: Any, url: str) -> Any:
    page = page_of(browser, 390, 844)
    response = page.goto(url)
    assert response is not None and response.status == 200
    page.wait_for_load_state("load")
    return page


def charts_loaded(page: Any, count: int) -> None:
    """The page's charts are drawn: each image loaded, and no wider than the phone."""
    sizes = page.eval_on_selector_all(
        "img.chart", "imgs => imgs.map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().right])"
    )
    assert len(sizes) == count and all(done and width > 0 and right <= 390 for done, width, right in sizes), sizes


def test_the_standings_and_a_team_page_fit_a_phone(night):
    # Results so the pages have something to show: four rounds, tonight's unfinished games recorded
    # by the organiser, the rounds after it as if played already.
    store = Store(night["db"])
    org = Organiser(store)
    with store.read() as r:
        meetings = [m for m in r.meetings(night["division"]) if m["round"] <= 4 and m["team_b"] is not None]
        meetings = [m for m in meetings if not r.games(m["id"])]
    for i, m in enumerate(meetings):
        won, lost = 500 + i % 7, 250 + 37 * i % 240
        org.record_game(m["id"], *((won, lost, "a") if i % 3 else (lost, won, "b")))
    store.close()
    with chromium() as browser:
        page = phone_page(browser, f"{night['server'].url}/seasons/{night['season']}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.locator("table tbody tr").count() == 24
        charts_loaded(page, 1)
        team = page.locator("table tbody tr td a").first.get_attribute("href")
        page = phone_page(browser, f"{night['server'].url}{team}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        charts_loaded(page, 1)
        assert page.errors == []
