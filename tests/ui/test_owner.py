"""The owner's menu on the screen: the PIN lock-out, locking on dimming and when idle, developer
keys, and names drawn as they were typed."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from kivy.core.window import Window

from kiosk.ui.app import LOCKED_ON_DIM, LOCKED_WHEN_IDLE, KioskApp
from tests.helpers import ROOT
from tests.store_helpers import QUICK_HANDS
from tests.ui.flows import quick_hand, start_game

PIN = "246813"


def type_pin(kiosk, pin):
    for d in pin:
        kiosk.tap_exact(d)
    kiosk.tap("unlock")


def shown_seconds(kiosk):
    """The seconds the PIN screen says it stays locked ("Locked for 30 s")."""
    text = kiosk.text("pin_dots")
    assert text.startswith("Locked for ") and text.endswith(" s"), text
    return int(text.removeprefix("Locked for ").removesuffix(" s"))


def to_the_menu(kiosk):
    kiosk.table.set_pin(PIN)
    start_game(kiosk)
    kiosk.tap("owner")
    type_pin(kiosk, PIN)
    assert kiosk.screen.step == "menu" and kiosk.root.owner_pin == PIN


def test_wrong_pins_lock_the_pin_screen_with_a_countdown_that_survives_a_restart(kiosk):
    kiosk.table.set_pin(PIN)
    start_game(kiosk)
    kiosk.tap("owner")
    for _ in range(2):
        type_pin(kiosk, "111111")
        assert kiosk.text("notes") == "Wrong PIN" and kiosk.text("pin_dots") == "–"
    type_pin(kiosk, "111111")
    first = shown_seconds(kiosk)
    assert first in (30, 29) and kiosk.text("notes") == "3 wrong PINs in a row."  # 29: a slow machine
    assert kiosk.widget("unlock").disabled and kiosk.widget("pin_keypad").disabled
    kiosk.wait(2.5)  # the screen reads the lock twice a second: a whole second has surely gone
    assert 20 < shown_seconds(kiosk) < first  # counting down

    kiosk.restart()
    kiosk.tap("owner")
    assert kiosk.text("pin_dots").startswith("Locked for 2") and kiosk.widget("unlock").disabled

    later = datetime.now(UTC) + timedelta(seconds=31)
    kiosk.table.clock = lambda: later.isoformat(timespec="milliseconds")  # the half minute has passed
    kiosk.wait(0.7)
    assert kiosk.text("pin_dots") == "–" and not kiosk.widget("unlock").disabled and kiosk.text("notes") == ""
    type_pin(kiosk, "111111")  # the fourth wrong PIN in a row: a minute now
    assert kiosk.text("pin_dots") == "Locked for 1 min" and kiosk.text("notes") == "4 wrong PINs in a row."


def test_the_owner_menu_locks_when_the_screen_dims(kiosk):
    to_the_menu(kiosk)
    kiosk.root.dim()  # the idle timer ran out
    assert kiosk.root.dimmer.level > 0 and kiosk.root.owner_pin == ""
    assert kiosk.screen.name == "owner" and kiosk.screen.step == "pin" and kiosk.text("notes") == LOCKED_ON_DIM
    kiosk.tap("pin_cancel")  # the first touch only wakes the screen
    kiosk.tap("pin_cancel")
    kiosk.tap("owner")
    assert kiosk.screen.step == "pin"


def test_a_correction_left_open_locks_too(kiosk):
    to_the_menu(kiosk)
    kiosk.tap("close")
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("owner")
    type_pin(kiosk, PIN)
    kiosk.tap("correct")
    kiosk.tap("hand_1")
    kiosk.tap("done")  # the reason picker opens over the correction
    assert kiosk.root.manager.current == "quick" and kiosk._popups()
    kiosk.root.dim()
    assert kiosk.root.manager.current == "owner" and kiosk.screen.step == "pin" and not kiosk._popups()
    assert kiosk.table.open_game().hands[0].corrections == []


def test_the_owner_menu_locks_after_a_minute_without_a_touch_and_not_while_touched(kiosk):
    # A minute, shortened, with room for a busy machine: a touch every 0.4 s keeps it open well
    # inside the 2 s, and 2 s more without one locks it.
    kiosk.root.owner_idle = 2.0
    to_the_menu(kiosk)
    for _ in range(8):  # 3.2 s of use: longer than the idle time, so only the touches keep it open
        kiosk.wait(0.4)
        kiosk.tap("settings") if kiosk.screen.step == "menu" else kiosk.tap_exact("◀ Menu")
    assert kiosk.root.owner_pin == PIN and kiosk.screen.step == "menu"
    kiosk.wait(3.0)
    assert kiosk.root.owner_pin == "" and kiosk.screen.step == "pin" and kiosk.text("notes") == LOCKED_WHEN_IDLE


def test_leaving_the_owners_screens_asks_for_the_pin_next_time(kiosk):
    to_the_menu(kiosk)
    kiosk.tap("close")
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("owner")
    assert kiosk.screen.step == "pin"
    type_pin(kiosk, PIN)
    kiosk.tap("correct")
    kiosk.tap("hand_1")
    kiosk.tap("done")
    kiosk.tap_exact("points entered wrong")
    assert kiosk.root.manager.current == "sheet" and kiosk.root.owner_pin == ""
    kiosk.tap("owner")
    assert kiosk.screen.step == "pin"


def test_f1_and_the_other_function_keys_do_nothing(kiosk):
    start_game(kiosk)
    app = KioskApp(kiosk.table)
    app.root = kiosk.root
    app._app_window = Window
    app._install_settings_keys(Window)  # what App.run does with the window
    try:
        for key in range(282, 294):  # F1 .. F12
            kiosk.press_key(key)
        kiosk.press_key(319)  # the menu key
        kiosk.press_key(27)  # Escape
        from kivy.uix.settings import Settings

        assert not [w for w in Window.children if isinstance(w, Settings)]
        assert list(Window.children) == [kiosk.root] and kiosk.root.manager.current == "sheet"
    finally:
        Window.unbind(on_keyboard=app._on_keyboard_settings)


def test_no_kivy_developer_module_starts_whatever_its_config_file_says(tmp_path):
    home = tmp_path / "kivy"
    home.mkdir()
    (home / "config.ini").write_text("[modules]\ninspector =\nkeybinding =\nconsole =\nmonitor =\nrecorder =\n")
    code = (
        "from pathlib import Path; from kiosk.ui.boot import Display, configure; "
        f"configure(Display(headless=True), kivy_home=Path({str(home)!r})); "
        "from kivy.config import Config; print(sorted(Config.options('modules')))"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "[]", r.stdout + r.stderr[-2000:]


def words(label):
    """The words a label drew, each with the options (size, colour) it drew them in."""
    label.texture_update()
    return [(w.text, w.options) for line in label._label._cached_lines for w in line.words if w.text]


@pytest.mark.parametrize("name", ["[size=90][color=ff0000]WINNERS", "[b]Bold[/b] & [i]co"])
def test_markup_in_a_name_is_drawn_as_typed_on_the_resume_button(kiosk, name):
    kiosk.table.new_game([name, "Mackeys"], first_dealer="N")  # as an import or the CLI could
    kiosk.restart()
    kiosk.root.show("start")
    button = kiosk.widget("resume")
    drawn = words(button)
    assert "".join(t for t, _ in drawn).replace(" ", "") == f"Resume: {name} 0 – 0 Mackeys".replace(" ", "")
    assert {o["font_size"] for _, o in drawn} == {button.font_size}
    assert {tuple(o["color"]) for _, o in drawn} == {tuple(button.color)}


def test_markup_in_a_renege_reason_is_drawn_as_typed_on_the_summary(kiosk):
    start_game(kiosk)
    g = kiosk.table.open_game()
    hand = {**QUICK_HANDS[3], "dealer": "N", "renege": {"by": "EW", "reason": "[size=60]table talk[/size]"}}
    kiosk.table.enter_hand(g.id, hand)
    kiosk.root.show("summary")
    drawn = words(kiosk.widget("headline"))
    assert "([size=60]tabletalk[/size])" in "".join(t for t, _ in drawn).replace(" ", "")
    assert {o["font_size"] for _, o in drawn} == {kiosk.widget("headline").font_size}


def test_a_short_pin_from_an_older_kiosk_opens_the_menu_and_asks_for_a_longer_one(kiosk):
    import hashlib

    from kiosk.table import PIN_KEY

    salt = bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", b"2468", salt, 200_000).hex()
    kiosk.table.store.set_setting(PIN_KEY, f"pbkdf2_sha256$200000${salt.hex()}${digest}")
    start_game(kiosk)
    kiosk.tap("owner")
    type_pin(kiosk, "2468")
    assert kiosk.screen.step == "menu" and "This PIN has 4 digits: choose one of 6 or more" in kiosk.text("notes")
    assert kiosk.table.store.setting(PIN_KEY).startswith("scrypt$")


def _list(kiosk):
    """The statistics as the owner reads them: each row's cells, top to bottom."""
    return [[c.text for c in reversed(row.children)] for row in reversed(kiosk.widget("stats_list").children)]


def test_the_owners_statistics_by_the_team_names_typed_at_the_table(kiosk):
    # Two games the Ruminers win (each: 70 to 92, set, then 162 three times: 556 to 173 in 5 hands), the
    # second typed "ruminers"; a game still in play and an abandoned one do not count.
    hands = [
        {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}},
        {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}},
    ]
    for teams in (["Ruminers", "Mackeys"], ["ruminers", "Bellmen"]):
        g = kiosk.table.new_game(teams, ["Ron", "Elbert", "Carolyn", "Walter"], first_dealer="N")
        for h in hands:
            g = kiosk.table.add_hand(g.id, h)
        while g.status == "open":
            g = kiosk.table.add_hand(g.id, {"trump": "S", "maker": "N", "points": {"NS": 162, "EW": 0}})
    gone = kiosk.table.new_game(["Ruminers", "Gone"], first_dealer="N")
    kiosk.table.set_pin(PIN)
    kiosk.table.abandon(gone.id, "players left", PIN)
    start_game(kiosk, "Ruminers", "Open")
    kiosk.tap("owner")
    type_pin(kiosk, PIN)
    kiosk.tap("statistics")
    assert kiosk.screen.step == "stats"
    assert kiosk.text("stats_said") == (
        "2 games ended at this table; 3 teams by the names typed, by games won (a tie counts half)."
    )
    assert _list(kiosk) == [
        ["Team", "G", "W", "W%"],
        ["1. ruminers", "2", "2", "100%"],
        ["2. Bellmen", "1", "0", "0%"],
        ["2. Mackeys", "1", "0", "0%"],
    ]
    kiosk.tap("stats_sort")  # the next figure: the share of games won
    kiosk.tap("stats_sort")  # made trump: Ruminers 6 of 8, Mackeys and Bellmen 1 of 1
    assert _list(kiosk)[0][3] == "Made%" and _list(kiosk)[1] == ["1. Bellmen", "1", "0", "100%"]
    assert ["3. ruminers", "2", "2", "75%"] in _list(kiosk)
    kiosk.tap("stats_players")
    rows = _list(kiosk)
    assert rows[0] == ["Player (team)", "G", "W", "Made%"] and ["1. Elbert (Bellmen)", "1", "0", "100%"] in rows
    assert ["1. Ron (ruminers)", "2", "2", "100%"] in rows  # N made trump three times in each game
    assert ["4. Carolyn (ruminers)", "2", "2", "0%"] in rows  # S was set the once in each
    assert rows[-1] == ["5. Walter (Mackeys)", "1", "0", "–"]  # never named trump: last
    kiosk.tap("stats_menu")
    assert kiosk.screen.step == "menu"


def _places(kiosk, names):
    return {n: tuple(kiosk.widget(n).to_window(*kiosk.widget(n).pos)) for n in names}


def test_a_new_kiosk_asks_the_owner_to_choose_a_pin_on_the_screen(kiosk):
    start_game(kiosk)
    kiosk.tap("owner")
    assert kiosk.screen.step == "choose" and "6 to 12 digits" in kiosk.text("choose_said")
    keys = [k.text for k in kiosk.widget("choose_keypad").children]
    places = _places(kiosk, ["choose_keypad", "choose_ok", "choose_cancel"])
    for d in "123456":
        kiosk.tap_exact(d)
    kiosk.tap("choose_ok")  # a run of digits is too easy to guess
    assert kiosk.text("notes").startswith("This PIN is too easy to guess") and kiosk.screen.choosing == ""
    assert _places(kiosk, ["choose_keypad", "choose_ok", "choose_cancel"]) == places  # the message moved nothing
    for pin in (PIN, "975318"):  # typed twice, differently
        for d in pin:
            kiosk.tap_exact(d)
        kiosk.tap("choose_ok")
    assert kiosk.text("notes") == "The two PINs differ: choose it again." and not kiosk.table.has_pin()
    for _ in range(2):
        for d in PIN:
            kiosk.tap_exact(d)
        kiosk.tap("choose_ok")
    assert kiosk.screen.step == "menu" and kiosk.text("notes") == "The owner's PIN is set."
    assert kiosk.table.has_pin() and sorted(keys) == sorted("1234567890C⌫")
    kiosk.tap("close")
    kiosk.tap("owner")
    type_pin(kiosk, PIN)  # the PIN chosen on the screen opens the menu
    assert kiosk.screen.step == "menu"


def test_the_owner_changes_the_pin_from_the_menu(kiosk):
    to_the_menu(kiosk)
    places = _places(kiosk, ["correct", "settings", "close"])
    kiosk.tap("reprint")  # no printer: said in the strip, and the menu stays where it was
    assert kiosk.text("notes").startswith("No receipt printer")
    assert _places(kiosk, ["correct", "settings", "close"]) == places
    kiosk.tap("change_pin")
    for _ in range(2):
        for d in "975318":
            kiosk.tap_exact(d)
        kiosk.tap("choose_ok")
    assert kiosk.screen.step == "menu"
    kiosk.table.check_pin("975318")  # the new PIN is the owner's now


def test_a_wrong_pin_moves_nothing_on_the_pin_screen(kiosk):
    kiosk.table.set_pin(PIN)
    start_game(kiosk)
    kiosk.tap("owner")
    places = _places(kiosk, ["pin_keypad", "unlock", "pin_cancel", "pin_dots"])
    type_pin(kiosk, "111111")
    assert kiosk.text("notes") == "Wrong PIN"
    assert _places(kiosk, ["pin_keypad", "unlock", "pin_cancel", "pin_dots"]) == places
