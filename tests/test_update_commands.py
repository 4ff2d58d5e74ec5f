"""``clabber update agent|check|status`` as the card's units run them (processes of their own,
against a real RAUC service on a private bus), the boot check's probes on real parts, and the
kiosk's word that someone is at the table."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from kiosk import outbox
from kiosk.updates import probes
from kiosk.updates.state import UpdateState, read_state, running_version, write_state
from kiosk.updates.touched import Touches
from shared.update_states import INSTALLED, OFFERED, ROLLED_BACK, TRYING
from tests.helpers import clabber_process
from tests.rauc_helpers import Rauc, make_bundle, make_key
from tests.store_helpers import open_table
from tests.web_helpers import Server, free_port

PIN = "246813"


def newer_than_running() -> str:
    major, minor, *_ = (int(n) for n in [*running_version().split("+")[0].split("."), "0", "0"])
    return f"{major}.{minor + 1}.0"


@pytest.fixture(scope="module")
def distributor(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    key = make_key(folder, "distributor")
    return key, make_bundle(folder / "bundles", newer_than_running(), key)


class Card:
    """A kiosk's database, RAUC over two slot files, and the environment the units give."""

    def __init__(self, folder: Path, key) -> None:
        self.rauc = Rauc(folder / "rauc", key.cert)
        self.db = folder / "clabber.db"
        self.table = open_table(self.db)
        self.table.set_pin(PIN)
        self.state = folder / "update" / "state.json"
        self.table.updates = self.state
        self.usb = folder / "usb"
        self.usb.mkdir()
        self.touched = folder / "touched"
        self.touched.touch()  # someone at the table: the agent never restarts the machine here
        (folder / "config.toml").write_text("")  # the defaults, as a card's untouched file gives
        self.env = {
            **self.rauc.env,
            "CLABBER_RAUC_CONF": str(self.rauc.folder / "system.conf"),
            "CLABBER_UPDATE_STATE": str(self.state),
            "CLABBER_DB": str(self.db),
            "CLABBER_UPDATE_USB": str(self.usb),
            "CLABBER_TOUCHED": str(self.touched),
            "CLABBER_CONFIG": str(folder / "config.toml"),
        }

    def clabber(self, *args: str, env: dict[str, str] | None = None):
        return clabber_process(*args, env={**self.env, **(env or {})})

    def close(self) -> None:
        self.table.close()
        self.rauc.close()


@pytest.fixture
def card(tmp_path, distributor):
    c = Card(tmp_path, distributor[0])
    yield c
    c.close()


def no_traceback(r) -> None:
    assert "Traceback" not in r.stderr + r.stdout, r.stderr[-3000:]


def test_the_agent_offers_the_sticks_bundle_then_writes_it_into_the_other_slot_on_the_owners_word(card, distributor):
    bundle = distributor[1]
    shutil.copy(bundle, card.usb / bundle.name)
    r = card.clabber("update", "agent", "--once")
    assert r.returncode == 0, r.stderr[-3000:]
    found = read_state(card.state)
    assert (found.state, found.version, found.source, found.slot) == (OFFERED, newer_than_running(), "usb", "A")
    status = card.clabber("update", "status")
    assert status.stdout.strip() == f"Version {newer_than_running()} on the USB stick can be installed"
    assert card.rauc.slot_holds("B") is None  # nothing written before the owner says so
    card.table.ask_update("install", PIN, newer_than_running())
    r = card.clabber("update", "agent", "--once")
    assert r.returncode == 0, r.stderr[-3000:]
    found = read_state(card.state)
    assert (found.state, found.percent, found.previous) == (INSTALLED, 100, "A")
    assert card.rauc.slot_holds("B") == newer_than_running()
    assert card.rauc.boot_order()["BOOT_ORDER"].split()[0] == "B"
    as_json = json.loads(card.clabber("update", "status", "--json").stdout)
    assert as_json["state"] == INSTALLED and as_json["version"] == newer_than_running()


def test_the_boot_after_a_failed_try_says_rolled_back_and_keeps_the_old_slot(card):
    # The try of B spent its boot (a kiosk that hung); the boot loader started A again.
    write_state(card.state, UpdateState(state=TRYING, version="9.9.9", running="9.9.9", slot="B", previous="A"))
    r = card.clabber("update", "check", "--within", "1")
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("Rolled back from version 9.9.9: it did not prove itself at its first start")
    found = read_state(card.state)
    assert (found.state, found.slot, found.running) == (ROLLED_BACK, "A", running_version())


@pytest.mark.parametrize(
    "conf, why",
    [
        (None, "has no RAUC system (the card image has one)"),
        ("[system\ncompatible=x\n", "not a RAUC system.conf"),
        ("[system]\nbootloader=custom\n", "needs [system] compatible= and [keyring] path="),
    ],
)
def test_a_machine_without_rauc_or_with_a_broken_system_conf_is_told_so(tmp_path, conf, why):
    where = tmp_path / "system.conf"
    if conf is not None:
        where.write_text(conf)
    env = {"CLABBER_RAUC_CONF": str(where), "CLABBER_UPDATE_STATE": str(tmp_path / "state.json")}
    r = clabber_process("update", "agent", "--once", env={**env, "CLABBER_DB": str(tmp_path / "clabber.db")})
    assert r.returncode == 1 and why in r.stderr and str(where) in r.stderr, r.stderr
    no_traceback(r)
    assert not (tmp_path / "state.json").exists()


# ---- the boot check's probes -----------------------------------------------------------------------


def test_the_database_probe_passes_a_sound_file_and_names_a_damaged_one(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    table.new_game(["Aces", "Kings"], first_dealer="N")
    table.close()
    assert probes.database(db)() is None
    with sqlite3.connect(db) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as f:  # a page of a table in the middle overwritten
        f.seek(page * 2)
        f.write(os.urandom(page))
    said = probes.database(db)()
    assert said is not None and ("integrity check" in said or "damaged" in said or "does not open" in said), said
    assert probes.database(tmp_path / "gone.db")() is not None


def test_the_pages_probe_asks_the_real_result_pages(tmp_path):
    db = tmp_path / "clabber.db"
    open_table(db).close()
    server = Server(db)
    try:
        assert probes.result_pages(server.port)() is None
    finally:
        server.close()
    port = free_port()
    said = probes.result_pages(port)()
    assert said is not None and f"do not answer at http://127.0.0.1:{port}/view" in said


def test_the_league_probe_wants_a_word_from_the_sync_worker_since_this_boot(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    probe = probes.league_sync(db, booted_at=lambda: time.time() - 60)
    assert probe() is None  # not in a league: nothing to reach
    outbox.set_link(table.store, {"url": "https://league.example", "kiosk": 3, "key": "k" * 32,
                                  "venue": {"id": 1, "name": "The Red Lion"}, "table": 2})  # fmt: skip
    before = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() - 3600))
    outbox.set_sync_state(table.store, {"state": "connected", "at": before})
    assert probe() == "the sync worker has not reached the league since this start"
    now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    outbox.set_sync_state(table.store, {"state": "unreachable", "at": now, "error": "no route to host"})
    assert probe() == "the sync worker is unreachable: no route to host"
    outbox.set_sync_state(table.store, {"state": "connected", "at": now})
    assert probe() is None
    table.close()


def test_the_kiosk_probe_reads_systemds_word_on_the_unit(tmp_path):
    # No systemd runs here (test_boot.py boots the units in a container): a stand-in systemctl
    # that answers as systemd does, and none at all.
    for answer, expected in (("active", None), ("activating", "the kiosk is activating")):
        fake = tmp_path / f"systemctl-{answer}"
        fake.write_text(f"#!/bin/sh\necho {answer}\n")
        fake.chmod(0o755)
        said = probes.kiosk_service(systemctl=str(fake))()
        assert said == expected or (expected is not None and said.startswith(expected)), said
    said = probes.kiosk_service(systemctl=str(tmp_path / "no-systemctl"))()
    assert said is not None and said.startswith("systemd could not say whether the kiosk runs")


# ---- someone at the table ---------------------------------------------------------------------------


def test_a_touch_is_marked_at_most_every_thirty_seconds(tmp_path):
    now = [1000.0]
    marker = Touches(tmp_path / "touched", clock=lambda: now[0])
    marker.touch()
    first = (tmp_path / "touched").stat().st_mtime_ns
    os.utime(tmp_path / "touched", ns=(first - 10**10, first - 10**10))  # as if written 10 s earlier
    now[0] += 29
    marker.touch()
    assert (tmp_path / "touched").stat().st_mtime_ns == first - 10**10  # not written again so soon
    now[0] += 2
    marker.touch()
    assert (tmp_path / "touched").stat().st_mtime_ns > first - 10**10
    Touches(tmp_path / "no-folder" / "touched").touch()  # no runtime folder: nothing said, nothing broken


# ---- the distributor's key and bundles ----------------------------------------------------------------


def test_the_signing_key_is_made_once_private_and_never_overwritten(tmp_path):
    from tests.rauc_helpers import SIGNING_KEY

    where = tmp_path / "signing"
    made = subprocess.run(["bash", str(SIGNING_KEY), str(where)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    key, cert = where / "clabber-updates.key.pem", where / "clabber-updates.cert.pem"
    assert key.stat().st_mode & 0o777 == 0o600 and "BEGIN CERTIFICATE" in cert.read_text()
    before = key.read_bytes()
    again = subprocess.run(["bash", str(SIGNING_KEY), str(where)], capture_output=True, text=True)
    assert again.returncode == 2 and "exists: every card built with it trusts only it" in again.stderr
    assert key.read_bytes() == before


def test_a_bundle_without_a_key_says_how_to_make_one(tmp_path):
    from tests.rauc_helpers import BUNDLE

    slot = tmp_path / "slot.ext4"
    slot.write_bytes(b"\0" * 4096)
    r = subprocess.run(["bash", str(BUNDLE), str(slot), "0.2.0", str(tmp_path / "nokey"), str(tmp_path / "x.raucb")],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 2 and "no signing key (make one once: ./run signing-key DIR)" in r.stderr
    assert not (tmp_path / "x.raucb").exists()
