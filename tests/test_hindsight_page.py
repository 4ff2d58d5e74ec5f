"""Hindsight on the result page, in a real headless Chromium on a phone 390 px wide: a hand entered
card by card, opened, says what best play with every card open gave and marks the costly card,
and the page never scrolls sideways. ``CLABBER_SHOTS=DIR`` keeps the screenshot (docs/images)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser import chromium, page_of
from tests.records import SET_BY_ONE_CARD
from tests.store_helpers import open_table
from tests.web_helpers import Server

pytestmark = pytest.mark.slow


def test_the_result_page_shows_hindsight_on_a_phone(tmp_path):
    table = open_table(tmp_path / "clabber.db")
    game = table.new_game(["Ruminers", "Mackeys"], first_dealer=SET_BY_ONE_CARD["dealer"])
    game = table.add_hand(game.id, dict(SET_BY_ONE_CARD))
    table.store.close()
    server = Server(tmp_path / "clabber.db")
    try:
        with chromium() as browser:
            page = page_of(browser, 390, 844)
            page.goto(f"{server.base}/g/{game.token}")
            page.click("summary")  # the hand, opened as a player taps it
            text = page.inner_text("details").replace("\u00a0", " ")  # a no-break space reads as one
            # The costly card and the verdict in the page's amber, marked at their edge; the rest plain.
            colours = page.evaluate(
                "[...document.querySelectorAll('.replay div')].map(d => [d.className, getComputedStyle(d).color,"
                " getComputedStyle(d).borderLeftColor, d.innerText.replaceAll('\\u00a0', ' ')])"
            )
            wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if os.environ.get("CLABBER_SHOTS"):
                page.locator("details").screenshot(
                    path=str(Path(os.environ["CLABBER_SHOTS"]) / "result-hindsight-390.png")
                )
            assert page.errors == []
    finally:
        assert "Traceback" not in server.close()
    assert "With every card open: EW could have made it: trick 2, W's Q♦ instead of 10♦ keeps 7 points." in text
    assert "Costly, with every card open: trick 2, W's Q♦ instead of 10♦ keeps 7 points" in text
    assert "**" not in text and "1 points" not in text
    amber = "rgb(245, 186, 38)"
    marked = [(kind.split()[0], text) for kind, colour, edge, text in colours if colour == edge == amber]
    assert marked == [
        ("costly", "Costly, with every card open: trick 2, W's Q♦ instead of 10♦ keeps 7 points"),
        ("verdict", "With every card open: EW could have made it: trick 2, W's Q♦ instead of 10♦ keeps 7 points."),
    ]
    assert all(colour != amber for kind, colour, _e, _t in colours if kind.split()[0] not in ("costly", "verdict"))
    assert wide[0] <= wide[1] == 390, wide
