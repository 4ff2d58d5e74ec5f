"""The layouts hold at both panel sizes in every state a table reaches: a refusal fits its strip,
card by card in portrait, the dealer's badge with the seat lights, a long name on a seat button.
Every tap is checked by tests/ui/layout.py (the harness fails the tap that breaks a layout)."""

from __future__ import annotations

import random
import re

import pytest

from engine.cards import card_name
from tests.ui.flows import quick_hand, start_game, type_text
from tests.ui.harness import LANDSCAPE, PORTRAIT, Kiosk


@pytest.fixture(params=[LANDSCAPE, PORTRAIT], ids=["800x480", "720x1280"])
def table(request, tmp_path):
    """A kiosk at each panel size, its layout checked after every tap, the seat lights drawn."""
    k = Kiosk(tmp_path / "clabber.db", size=request.param, check_layout=True, lights=True)
    yield k
    k.close()


def test_a_long_refusal_fits_the_strip(table):
    start_game(table)
    table.tap("play_N")
    table.tap("trump_S")
    for d in "161":
        table.tap_exact(d)
    table.tap("done")
    assert "161" in table.text("strip")


def test_card_by_card_holds_its_layout_through_a_hand(table):
    from tests.records import RENEGE

    start_game(table)
    table.tap("card_by_card")
    table.tap("maker_E")
    table.tap("trump_H")
    for name in RENEGE[:9]:
        table.tap(f"card_{name}")
    assert table.text("trick").startswith("Trick 3")


def test_the_dealer_badge_keeps_its_words_inside_with_the_lights_beside_them(table):
    start_game(table)
    for seat in "NESW":
        table.tap("play_E")
        table.tap("trump_H")  # the trump shows in the header beside the badge
        table.tap("cancel")
        assert table.root.header.badge == f"{seat} deals"
        table.tap("deal_next")


LONG = {  # 24 characters each, the most the keys take
    "N": "Bartholomew Fitzwilliams",
    "E": "Maximiliana Oppenheimers",
    "S": "Christopher Worthingtons",
    "W": "Wilhelmina Featherstones",
}


def test_a_24_character_name_on_every_seat_shrinks_to_fit(table):
    table.tap("new_game")
    table.tap("first_N")
    type_text(table, "Aces")
    table.tap("field_EW")
    type_text(table, "Kings")
    for seat, name in LONG.items():
        table.tap(f"field_{seat}")
        type_text(table, name + "XYZ")  # the keys stop at 24 characters
    table.tap("start")
    assert table.table.open_game().players == LONG
    for seat, name in LONG.items():
        shown = re.sub(r"\[/?size[^\]]*\]", "", table.text(f"play_{seat}"))
        letter, first = shown.split(maxsplit=1)
        whole = name.split()[0]
        assert letter == seat and (first == whole or (first.endswith("…") and whole.startswith(first[:-1]))), shown
        assert len(first) >= 5, shown  # enough of the name to know who it is
    table.tap("play_N")  # the quick entry's seat buttons too (checked by the tap)
    assert table.root.manager.current == "quick"


def _changing_seed() -> int:
    """A seed whose Jack draw makes two players change seats."""
    from engine.deal import draw_for_dealer

    return next(s for s in range(100) if draw_for_dealer(random.Random(s)).change() is not None)


def test_the_draw_seats_the_players_and_their_names_follow_everywhere(table):
    from engine.deal import draw_for_dealer
    from tests.ui.flows import quick_hand
    from tests.web_helpers import Server

    seed = _changing_seed()
    draw = draw_for_dealer(random.Random(seed))
    moved, partner = ("NESW"[s] for s in draw.change())
    table.table.rng = random.Random(seed)
    table.tap("new_game")
    table.tap("draw")  # the kiosk deals for the Jacks before anyone is named
    assert f"{moved} and {partner} change seats." in table.text("draw_text")
    table.tap("draw_done")  # one tap: seated as the draw says
    first = "NESW"[draw.first]
    assert table.screen.step == "names" and table.text("notes").startswith(f"{first} deals first.")
    type_text(table, "Aces")
    table.tap("field_EW")
    type_text(table, "Kings")
    seated = {"N": "Ann", "E": "Cy", "S": "Bob", "W": "Di"}  # where each sits after the change
    for seat, name in seated.items():
        table.tap(f"field_{seat}")
        type_text(table, name)
    table.tap("start")
    g = table.table.open_game()
    assert g.players == seated and g.teams == {"NS": "Aces", "EW": "Kings"} and g.dealer == draw.first
    assert g.draw == [card_name(c) for c in draw.cards]  # the draw the table saw is the one kept
    for seat, name in seated.items():
        assert name in table.text(f"play_{seat}")
    server = Server(table.db)
    try:
        while table.root.manager.current != "over":
            quick_hand(table, "N", "S", "162", team="NS")
        status, _, html = server.get(f"/g/{g.token}")
        assert status == 200 and "N Ann · E Cy · S Bob · W Di" in html and "Aces win." in html
    finally:
        server.close()
    players = {line.name: line for line in table.table.statistics().players}
    assert players["Bob"].team == "Aces" and players["Bob"].figures.won == 1
    assert players["Di"].team == "Kings" and players["Di"].figures.won == 0


def test_the_sheet_is_laid_out_for_its_own_panel_after_a_kiosk_on_the_other(tmp_path):
    """Kivy keeps the sheet's rows that a list let go for any later list of the process: a kiosk on
    the 7" display after one on the Touch Display 2 (or the other way) must draw rows for its own."""
    for i, size in enumerate((PORTRAIT, LANDSCAPE, PORTRAIT)):
        k = Kiosk(tmp_path / f"{i}.db", size=size, check_layout=True)
        try:
            start_game(k)
            for maker in ("N", "E", "S"):
                quick_hand(k, maker, "S", "70", team="NS")
            k.screen.ids.rows.data = []  # the sheet emptied (a new game): its rows are let go
            k.frames(2)
        finally:
            k.close()
