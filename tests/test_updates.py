"""The updater against a real RAUC on real bundles: what it installs, what it refuses and why, and
that it never writes a slot or restarts the kiosk while a game is being played."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace

import pytest

from kiosk import outbox
from kiosk.updates import bundles, health, rauc
from kiosk.updates.agent import Places, Updater
from kiosk.updates.state import read_state, said, write_state
from shared.game_state import ActionRefused
from shared.update_states import COMMITTED, DOWNLOADED, INSTALLED, OFFERED, REFUSED, ROLLED_BACK
from tests.rauc_helpers import COMPATIBLE, Rauc, make_bundle, make_key
from tests.store_helpers import open_table


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    return {"ours": make_key(folder, "distributor"), "theirs": make_key(folder, "somebody-else")}


@pytest.fixture(scope="module")
def made(tmp_path_factory, keys):
    """Bundles, made once for the module: newer, older, another board's, another key's."""
    folder = tmp_path_factory.mktemp("bundles")
    return {
        "0.2.0": make_bundle(folder / "a", "0.2.0", keys["ours"]),
        "0.0.9": make_bundle(folder / "b", "0.0.9", keys["ours"]),
        "other board": make_bundle(folder / "c", "0.2.0", keys["ours"], compatible="some-other-board"),
        "other key": make_bundle(folder / "d", "0.2.0", keys["theirs"]),
    }


PIN = "246813"


class Kiosk:
    """A kiosk's database, its RAUC, and its updater, as on the card."""

    def __init__(self, folder, keys, monkeypatch, running="0.1.0"):
        self.rauc = Rauc(folder / "rauc", keys["ours"].cert)
        for name, value in self.rauc.env.items():
            monkeypatch.setenv(name, value)
        self.table = open_table(folder / "clabber.db")
        self.table.set_pin(PIN)
        self.usb = folder / "usb"
        self.usb.mkdir()
        self.places = Places(
            state_file=folder / "update" / "state.json",
            downloads=folder / "update" / "bundles",
            kiosk_db=folder / "clabber.db",
            touched=folder / "touched",
            usb=self.usb,
        )
        self.table.updates = self.places.state_file
        self.places.touched.touch()
        self.untouched_for(3600)
        self.restarts = 0
        system = bundles.System(keyring=keys["ours"].cert, compatible=COMPATIBLE, running=running)
        self.updater = Updater(self.places, system, restart=self.restart, quiet_after=600)

    def restart(self):
        self.restarts += 1

    def untouched_for(self, seconds):
        then = time.time() - seconds
        os.utime(self.places.touched, (then, then))

    def ask(self, action, version=None):
        self.table.ask_update(action, PIN, version)

    def close(self):
        self.table.close()
        self.rauc.close()


@pytest.fixture
def kiosk(tmp_path, keys, monkeypatch):
    k = Kiosk(tmp_path, keys, monkeypatch)
    yield k
    k.close()


def on_stick(kiosk, bundle):
    shutil.copy(bundle, kiosk.usb / bundle.name)


def test_a_newer_bundle_on_the_stick_is_offered_then_written_into_the_other_slot_as_a_try(kiosk, made):
    on_stick(kiosk, made["0.2.0"])
    state = kiosk.updater.step()
    assert state.state == OFFERED and state.version == "0.2.0"
    assert said(state) == "Version 0.2.0 on the USB stick can be installed"
    assert kiosk.rauc.slot_holds("B") is None  # offered only: the owner says when

    kiosk.ask("install", "0.2.0")
    state = kiosk.updater.step()
    assert state.state == INSTALLED, state
    assert kiosk.rauc.slot_holds("B") == "0.2.0"
    order = kiosk.rauc.boot_order()
    assert order["BOOT_ORDER"].split()[0] == "B" and order["BOOT_B_LEFT"] == "1"  # one try, then A again
    assert order.get("BOOT_A_LEFT", "3") == "3"
    assert read_state(kiosk.places.state_file) == state
    assert kiosk.restarts == 0 or state.why == "restarting into it"


@pytest.mark.parametrize(
    ("which", "why"),
    [
        ("other key", "not signed by a key this kiosk trusts"),
        ("other board", "made for 'some-other-board', not for this kiosk ('clabber-pi-arm64')"),
        ("0.0.9", "version 0.0.9 is older than the running 0.1.0: only the owner can put an older version back"),
    ],
)
def test_a_bundle_not_for_this_kiosk_is_refused_with_the_reason_and_no_slot_is_written(kiosk, made, which, why):
    on_stick(kiosk, made[which])
    kiosk.ask("install")
    state = kiosk.updater.step()
    assert state.state == REFUSED and why in state.why, state
    if which == "0.0.9":  # the one refusal the owner can overrule: the screen says how
        older = "is older than the running 0.1.0: it goes in only if you put it back"
        assert said(state) == f"Version 0.0.9 on the USB stick {older}"
    else:
        assert said(state).startswith(f"Version {state.version or '?'} refused: ")
    assert kiosk.rauc.slot_holds("B") is None
    assert kiosk.rauc.boot_order().get("BOOT_ORDER", "A B").split()[0] == "A"


def test_the_owner_can_force_an_older_version_back(kiosk, made):
    on_stick(kiosk, made["0.0.9"])
    assert kiosk.updater.step().state == REFUSED
    kiosk.ask("force", "0.0.9")
    state = kiosk.updater.step()
    assert state.state == INSTALLED and kiosk.rauc.slot_holds("B") == "0.0.9"


def test_no_game_can_start_while_the_new_slot_is_written(kiosk, made):
    on_stick(kiosk, made["0.2.0"])
    kiosk.ask("install", "0.2.0")
    refusals = []
    write = kiosk.updater.write

    def written(state):  # each state as the updater writes it: the table tries to start a game then
        state = write(state)
        try:
            kiosk.table.new_game(["Aces", "Deuces"], first_dealer="N")
        except ActionRefused as e:
            refusals.append((state.state, str(e)))
        return state

    kiosk.updater.write = written
    assert kiosk.updater.step().state == INSTALLED
    assert refusals and all(state == "installing" for state, _ in refusals)
    assert refusals[0][1] == "Writing version 0.2.0: 0 %: a new game can start when it is written (a few minutes)"
    assert kiosk.table.new_game(["Aces", "Deuces"], first_dealer="N").id  # written: games start again


def test_only_the_owner_asks_the_updater(kiosk):
    with pytest.raises(ActionRefused):
        kiosk.table.ask_update("now", "000000")
    with pytest.raises(ActionRefused, match="no update action"):
        kiosk.table.ask_update("reboot", PIN)


def league_offers(kiosk, bundle, url):
    import hashlib

    offer = {
        "version": "0.2.0",
        "size": bundle.stat().st_size,
        "sha256": hashlib.sha256(bundle.read_bytes()).hexdigest(),
        "url": url,
    }
    outbox.set_update_offer(kiosk.table.store, offer)


def test_nothing_is_written_or_restarted_while_a_game_is_open_or_the_screen_was_just_touched(kiosk, made, tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(made["0.2.0"], served / "b.raucb")
    league_offers(kiosk, made["0.2.0"], (served / "b.raucb").as_uri())
    game = kiosk.table.new_game(["Aces", "Deuces"], first_dealer="N")

    state = kiosk.updater.step()
    assert state.state == DOWNLOADED and state.why == f"waiting until game {game.id} is over", state
    assert kiosk.rauc.slot_holds("B") is None
    assert said(state) == "Version 0.2.0 is ready: it is installed when no game is open"

    kiosk.table.abandon(game.id, "bar closed", PIN)
    kiosk.untouched_for(60)  # a touch a minute ago
    state = kiosk.updater.step()
    assert state.state == DOWNLOADED and "touched" in state.why and kiosk.rauc.slot_holds("B") is None

    kiosk.untouched_for(3600)
    state = kiosk.updater.step()
    assert state.state == INSTALLED and kiosk.rauc.slot_holds("B") == "0.2.0"

    # Written; the restart into it waits for the next quiet moment too.
    game = kiosk.table.new_game(["Aces", "Deuces"], first_dealer="N")
    restarts = kiosk.restarts
    state = kiosk.updater.step()
    assert state.state == INSTALLED and state.why == f"waiting until game {game.id} is over"
    assert kiosk.restarts == restarts == 0
    kiosk.table.abandon(game.id, "bar closed", PIN)
    kiosk.updater.step()
    assert kiosk.restarts == 1


def test_update_now_installs_at_once_whatever_the_table(kiosk, made, tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(made["0.2.0"], served / "b.raucb")
    league_offers(kiosk, made["0.2.0"], (served / "b.raucb").as_uri())
    kiosk.untouched_for(5)
    assert kiosk.updater.step().state == DOWNLOADED
    kiosk.ask("now")
    assert kiosk.updater.step().state == INSTALLED
    assert kiosk.rauc.slot_holds("B") == "0.2.0"


def test_a_refused_bundle_left_on_the_stick_does_not_hold_back_the_leagues_update(kiosk, made, tmp_path):
    on_stick(kiosk, made["other key"])  # the backup stick, with a bundle from somebody else on it
    state = kiosk.updater.step()
    assert state.state == REFUSED and "not signed by a key this kiosk trusts" in state.why, state
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(made["0.2.0"], served / "b.raucb")
    league_offers(kiosk, made["0.2.0"], (served / "b.raucb").as_uri())
    state = kiosk.updater.step()  # the league's offer goes on (a quiet table: fetched and written); the stick stays in
    assert state.state == INSTALLED and state.source == "league" and kiosk.rauc.slot_holds("B") == "0.2.0", state


def installed_from_stick(kiosk, made):
    on_stick(kiosk, made["0.2.0"])
    kiosk.ask("install", "0.2.0")
    state = kiosk.updater.step()
    assert state.state == INSTALLED and state.previous == "A"
    (kiosk.usb / made["0.2.0"].name).unlink()  # the stick taken out
    return state


def boot_check(kiosk, running, probes, within=0.0):
    """This boot's health check, as clabber-update-check.service runs it, on the slot started."""
    restarts = []
    state = health.check(
        read_state(kiosk.places.state_file),
        rauc.status(),
        running,
        probes,
        write=lambda s: write_state(kiosk.places.state_file, s),
        restart=lambda: restarts.append(1),
        within=within,
        sleep=lambda _s: None,
    )
    return state, bool(restarts)


WELL = {"kiosk": lambda: None, "database": lambda: None, "pages": lambda: None}


def test_the_new_version_that_proves_itself_at_its_try_is_kept(kiosk, made):
    installed_from_stick(kiosk, made)
    assert kiosk.rauc.power_on() == "B"
    state, restarted = boot_check(kiosk, "0.2.0", WELL)
    assert state.state == COMMITTED and state.running == "0.2.0" and not restarted
    assert said(state) == "Version 0.2.0 runs"
    assert kiosk.rauc.boot_order()["BOOT_B_LEFT"] == "3"
    for _ in range(3):  # kept: every later start is the new version's
        assert kiosk.rauc.power_on() == "B"
        state, _ = boot_check(kiosk, "0.2.0", WELL)
        assert state.state == COMMITTED


def test_a_new_version_whose_kiosk_does_not_start_rolls_back_by_itself_and_says_so(kiosk, made):
    installed_from_stick(kiosk, made)
    assert kiosk.rauc.power_on() == "B"
    ill = {**WELL, "kiosk": lambda: "clabber-kiosk.service is failed"}
    state, restarted = boot_check(kiosk, "0.2.0", ill)
    assert restarted and state.state == "trying"
    assert kiosk.rauc.power_on() == "A"
    state, restarted = boot_check(kiosk, "0.1.0", WELL)
    assert state.state == ROLLED_BACK and not restarted
    assert said(state) == ("Rolled back from version 0.2.0: at its first start, kiosk: clabber-kiosk.service is failed")
    assert state.running == "0.1.0"
    for _ in range(3):  # the failed slot is tried no more
        assert kiosk.rauc.power_on() == "A"
    # The rollback stands until something new is offered.
    assert kiosk.updater.step().state == ROLLED_BACK


def test_a_power_cut_during_the_try_brings_back_the_old_version(kiosk, made):
    installed_from_stick(kiosk, made)
    assert kiosk.rauc.power_on() == "B"  # ... and the power goes before the check has its word
    assert kiosk.rauc.power_on() == "A"
    state, _ = boot_check(kiosk, "0.1.0", WELL)
    assert state.state == ROLLED_BACK and state.why.startswith("it did not prove itself at its first start")


def test_a_power_cut_in_the_try_after_the_updater_restarted_says_why_it_rolled_back(kiosk, made):
    """The updater writes "restarting into it" as it restarts into the new slot; the power going in
    that slot's try must be said as the rollback's reason, not the updater's last note (the emulated
    Pi's fleet said "Rolled back from version 0.4.0: restarting into it")."""
    installed_from_stick(kiosk, made)
    restarting = replace(read_state(kiosk.places.state_file), why="restarting into it")
    write_state(kiosk.places.state_file, restarting)  # as UpdateAgent.next leaves it at the restart
    assert kiosk.rauc.power_on() == "B"  # ... and the power goes in the try
    assert kiosk.rauc.power_on() == "A"
    state, _ = boot_check(kiosk, "0.1.0", WELL)
    assert state.state == ROLLED_BACK and state.why == health.UNPROVED, state.why
    assert said(state) == f"Rolled back from version 0.2.0: {health.UNPROVED}"


def test_a_system_that_runs_well_keeps_its_boots_however_often_it_starts(kiosk):
    # The boot loader takes a boot at every start; each start's check gives a well system its
    # boots back, so a table switched on every evening never falls to the other, empty, slot.
    for evening in range(6):
        assert kiosk.rauc.power_on() == "A", f"evening {evening}"
        state, restarted = boot_check(kiosk, "0.1.0", WELL)
        assert not restarted and state.state == "up to date"
    assert kiosk.rauc.boot_order()["BOOT_A_LEFT"] == "3"


def test_the_owners_word_is_spent_after_a_quarter_of_an_hour(kiosk, made):
    # An "Update now" left from the last update must not rush the next one into a game.
    on_stick(kiosk, made["0.2.0"])
    kiosk.ask("install", "0.2.0")
    later = time.time() + 901
    kiosk.updater.clock = lambda: later
    state = kiosk.updater.step()
    assert state.state == OFFERED and kiosk.rauc.slot_holds("B") is None
