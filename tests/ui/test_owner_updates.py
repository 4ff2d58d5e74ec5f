"""Owner → Updates on the screen: what the updater is doing as it goes, the owner's words to it
(update now, install the stick's bundle, put an older version back), and a touch marked for it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kiosk.updates.state import REQUEST_KEY, UpdateState, write_state
from kiosk.updates.touched import Touches
from shared import update_states as S
from tests.ui.test_owner import to_the_menu

RUNNING = UpdateState(running="0.1.0", slot="A")


@pytest.fixture
def updating(kiosk, tmp_path):
    kiosk.table.updates = tmp_path / "update" / "state.json"
    return kiosk


def show(kiosk, state):
    write_state(kiosk.table.updates, state)
    to_the_menu(kiosk)
    kiosk.tap("updates")
    assert kiosk.screen.step == "updates"


def buttons(kiosk):
    return [b.text for b in reversed(kiosk.widget("update_buttons").children)]


def asked(kiosk):
    return json.loads(kiosk.table.store.setting(REQUEST_KEY) or "{}")


def test_a_kiosk_set_up_by_hand_says_its_installer_updates_it(kiosk):
    to_the_menu(kiosk)
    kiosk.tap("updates")
    assert kiosk.text("update_said").startswith("This kiosk does not update itself")
    assert buttons(kiosk) == ["◀ Menu"]
    kiosk.tap("updates_menu")
    assert kiosk.screen.step == "menu"


def test_the_download_and_the_write_are_followed_with_their_progress(updating):
    kiosk = updating
    show(kiosk, replace(RUNNING, state=S.DOWNLOADING, version="0.2.0", percent=10))
    assert kiosk.text("update_running") == "Running version 0.1.0 (system A)"
    assert kiosk.text("update_said") == "Downloading version 0.2.0"
    bar = kiosk.widget("update_progress")
    assert bar.percent == 10 and bar.height > 0 and bar.opacity == 1
    write_state(kiosk.table.updates, replace(RUNNING, state=S.INSTALLING, version="0.2.0", percent=60))
    kiosk.wait(2.5)  # the step reads the updater's state every 2 s
    assert kiosk.text("update_said") == "Writing version 0.2.0" and bar.percent == 60
    write_state(kiosk.table.updates, replace(RUNNING, state=S.INSTALLED, version="0.2.0", percent=100))
    kiosk.wait(2.5)
    assert bar.height == 0 and buttons(kiosk) == ["Restart into 0.2.0 now", "◀ Menu"]
    assert kiosk.text("update_said") == ("Version 0.2.0 is installed: the kiosk restarts into it when no game is open")


def test_update_now_is_the_owners_word_to_the_updater(updating):
    kiosk = updating
    show(kiosk, replace(RUNNING, state=S.DOWNLOADED, version="0.2.0"))
    assert buttons(kiosk) == ["Update to 0.2.0 now", "◀ Menu"]
    kiosk.tap("update_now")
    assert asked(kiosk)["action"] == "now" and asked(kiosk)["version"] == "0.2.0"
    assert kiosk.text("notes") == "Asked: the updater starts within half a minute."


def test_the_sticks_bundle_is_installed_only_when_the_owner_says_so(updating):
    kiosk = updating
    show(kiosk, replace(RUNNING, state=S.OFFERED, version="0.2.0", source="usb", bundle="/mnt/x.raucb"))
    assert kiosk.text("update_said") == "Version 0.2.0 on the USB stick can be installed"
    assert asked(kiosk) == {}
    kiosk.tap("update_now")
    assert (asked(kiosk)["action"], asked(kiosk)["version"]) == ("install", "0.2.0")


def test_an_older_version_goes_back_only_at_a_second_tap(updating):
    kiosk = updating
    why = "version 0.0.9 is older than the running 0.1.0: only the owner can put an older version back"
    show(kiosk, replace(RUNNING, state=S.REFUSED, version="0.0.9", source="usb", why=why))
    assert kiosk.text("update_said") == (
        "Version 0.0.9 on the USB stick is older than the running 0.1.0: it goes in only if you put it back"
    )
    assert buttons(kiosk) == ["Put back 0.0.9", "◀ Menu"]
    kiosk.tap("update_older")
    assert asked(kiosk) == {} and kiosk.text("notes") == "Tap again to put back 0.0.9 (the games stay)."
    assert buttons(kiosk)[0] == "Yes, put back 0.0.9"
    kiosk.tap("update_older")
    assert (asked(kiosk)["action"], asked(kiosk)["version"]) == ("force", "0.0.9")


def test_a_bundle_refused_for_its_key_cannot_be_forced(updating):
    kiosk = updating
    why = "not signed by a key this kiosk trusts, or not a bundle (signature verification failed)"
    show(kiosk, replace(RUNNING, state=S.REFUSED, version="0.2.0", source="usb", why=why))
    assert kiosk.text("update_said") == f"Version 0.2.0 refused: {why}"
    assert buttons(kiosk) == ["◀ Menu"]


def test_a_touch_on_the_screen_tells_the_updater_someone_is_at_the_table(kiosk, tmp_path):
    marker = tmp_path / "touched"
    kiosk.root.touches = Touches(marker)
    assert not marker.exists()
    kiosk.tap("new_game")
    assert marker.exists()
