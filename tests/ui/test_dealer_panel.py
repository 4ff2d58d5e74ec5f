"""The dealer buttons and seat lights wired into the running kiosk (mock pins, real Kivy clock)."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from kiosk.buttons import DealerPanel, GpioConfig
from kiosk.ui.app import post_to_main
from tests.ui.flows import quick_hand, start_game, type_text

CFG = GpioConfig(seat_button_pins={"S": 24}, hold_s=0.3)


@pytest.fixture
def panel(kiosk):
    factory = MockFactory()
    p = DealerPanel(CFG, factory, act=kiosk.root.panel_action, post=post_to_main)
    kiosk.root.panel = p
    p.factory = factory
    yield p
    p.close()


def press(kiosk, panel, pin, hold=0.05):
    """A press on a GPIO thread, then the kiosk's frames run what it handed over."""
    p = panel.factory.pin(pin)

    def finger():
        p.drive_low()
        time.sleep(hold)
        p.drive_high()

    t = threading.Thread(target=finger)
    t.start()
    t.join()
    time.sleep(0.06)
    kiosk.frames(3)


def lit(panel):
    return "".join(s for s, on in panel.lit().items() if on)


def test_the_lights_follow_the_deal_by_rules_buttons_and_undo(kiosk, panel):
    start_game(kiosk)
    assert lit(panel) == "N"
    quick_hand(kiosk, "E", "H", "70", team="NS")  # a scored hand: the deal passes left
    assert lit(panel) == "E" and kiosk.root.header.dealer == "E"
    press(kiosk, panel, CFG.next_pin)
    assert lit(panel) == "S" and kiosk.table.open_game().dealer == 2
    press(kiosk, panel, CFG.back_pin)
    assert lit(panel) == "E"
    press(kiosk, panel, 24)  # S's seat button
    assert lit(panel) == "S"
    press(kiosk, panel, CFG.back_pin, hold=0.6)  # a long press undoes: back to E
    assert lit(panel) == "E"
    sources = [e.source for e in kiosk.table.store.events(kiosk.root.game_id)]
    assert sources.count("button") == 4  # next, back, the seat button, the undo


def test_pass_out_misdeal_and_void_hands_keep_or_pass_the_deal_as_the_rules_say(kiosk, panel):
    start_game(kiosk)
    g = kiosk.root.game_id
    t = kiosk.table
    t.add_hand(g, {"passed_out": True})  # evansville: the same dealer again
    kiosk.root.refresh_header()
    assert lit(panel) == "N"
    t.add_hand(g, {"misdeal": "card exposed"})
    kiosk.root.refresh_header()
    assert lit(panel) == "N"
    both = [{"by": "NS", "reason": "table talk"}, {"by": "EW", "reason": "exposed a card"}]
    renege_both = {"trump": "S", "maker": "E", "points": {"NS": 80, "EW": 82}, "renege": both}
    t.add_hand(g, renege_both)
    kiosk.root.refresh_header()
    assert lit(panel) == "N"
    t.add_hand(g, {"trump": "S", "maker": "E", "points": {"NS": 80, "EW": 82}})
    kiosk.root.refresh_header()
    assert lit(panel) == "E"


def test_under_pagat_rules_a_pass_out_passes_the_deal(kiosk, panel):
    kiosk.tap("new_game")
    kiosk.tap("rules_pagat")
    kiosk.tap("first_N")
    type_text(kiosk, "A")
    kiosk.tap("field_EW")
    type_text(kiosk, "B")
    kiosk.tap("start")
    kiosk.table.add_hand(kiosk.root.game_id, {"passed_out": True})
    kiosk.root.refresh_header()
    assert lit(panel) == "E"


def test_a_refused_press_flashes_the_lights(kiosk, panel):
    start_game(kiosk)
    press(kiosk, panel, 24)  # S's seat button: moves the deal to S
    press(kiosk, panel, 24)  # S already deals: refused
    seen = set()
    for _ in range(40):
        seen.add(lit(panel))
        time.sleep(0.01)
    assert "NESW" in seen  # the flash
    time.sleep(0.5)
    assert lit(panel) == "S"


def test_all_four_blink_at_game_over(kiosk, panel):
    start_game(kiosk)
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "N", "S", "162", team="NS")
    seen = set()
    for _ in range(30):
        seen.add(lit(panel))
        time.sleep(0.05)
    assert {"NESW", ""} <= seen
