"""The card image's system booted under a real systemd: the installed tree (deploy/image.sh --tree,
this machine's architecture) run by systemd-nspawn with systemd as PID 1. Its units start in
order and none fails, the card names the table and sets the Wi-Fi, the kiosk runs headless on the
mock pins, the watchdog restarts a frozen kiosk, and a clean shutdown leaves no -wal behind."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image

from tests.container import Container, prepare_host
from tests.helpers import ROOT

# One tree and one boot, shared by the module's tests in order (the last one powers it off).
pytestmark = [pytest.mark.slow, pytest.mark.network, pytest.mark.xdist_group("boot")]

DB = "/var/lib/clabber/clabber.db"
CLABBER = "/opt/clabber/venv/bin/clabber"
PASSWORD = "let me in, 42"


def unit_file(root: Path, name: str) -> dict[str, str]:
    text = (root / "etc/systemd/system" / name).read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    prepare_host()
    root = tmp_path_factory.mktemp("boot") / "root"
    r = subprocess.run(
        ["bash", str(ROOT / "deploy/image.sh"), "--tree", str(root)], capture_output=True, text=True, timeout=1200
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    # A container has no panel: the kiosk draws offscreen, as in the tests and benchmarks.
    dropin = root / "etc/systemd/system/clabber-kiosk.service.d/container.conf"
    dropin.parent.mkdir(parents=True, exist_ok=True)
    dropin.write_text(f"[Service]\nExecStart=\nExecStart={CLABBER} kiosk --headless\n")
    # The card as a bar owner wrote it: table 7, the bar's Wi-Fi.
    boot = root / "boot/firmware"
    boot.mkdir(parents=True, exist_ok=True)
    (boot / "clabber-hostname.txt").write_text("# the table's number\n7\n")
    (boot / "clabber-wifi.txt").write_text(f'ssid = "Bar Wi-Fi"\npassword = "{PASSWORD}"\ncountry = "us"\n')
    shutil.copy(ROOT / "examples/hand-quick.json", root / "var/tmp/hand.json")
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def container(tree):
    box = Container(tree, "clabber-boot")
    state = box.boot()
    yield box, state
    box.kill()


def as_kiosk(box: Container, *args: str) -> subprocess.CompletedProcess[str]:
    return box.run("runuser", "-u", "clabber", "--", CLABBER, *args)


def journal_line(box: Container, unit: str, start: str, wait: float = 60) -> str:
    """The first line of a unit's journal that holds ``start``, waited for (a unit says it once up)."""
    deadline = time.monotonic() + wait
    while True:
        lines = box.run("journalctl", "-u", unit, "--no-pager", "-o", "cat").stdout.splitlines()
        found = [line for line in lines if start in line]
        if found or time.monotonic() > deadline:
            return found[0] if found else ""
        time.sleep(0.5)


def started(box: Container, unit: str) -> tuple[int, int]:
    """When a unit began starting and when it was up (systemd's monotonic clock, microseconds)."""
    out = box.run("systemctl", "show", "-p", "InactiveExitTimestampMonotonic,ActiveEnterTimestampMonotonic", unit)
    values = dict(line.split("=", 1) for line in out.stdout.split())
    return int(values["InactiveExitTimestampMonotonic"]), int(values["ActiveEnterTimestampMonotonic"])


def test_every_unit_starts_and_none_fails(container):
    box, state = container
    failed = box.run("systemctl", "--failed", "--plain", "--no-legend").stdout.strip()
    assert (state, failed) == ("running", "")
    units = ["clabber-card.service", "clabber-kiosk.service", "clabber-web.service", "clabber-sync.service"]
    units += ["clabber-backup.timer", "systemd-resolved.service"]
    active = box.run("systemctl", "is-active", *units).stdout.split()
    assert dict(zip(units, active, strict=True)) == dict.fromkeys(units, "active")


def test_the_units_start_in_order(container):
    box, _ = container
    card = started(box, "clabber-card.service")
    kiosk = started(box, "clabber-kiosk.service")
    web = started(box, "clabber-web.service")
    sync = started(box, "clabber-sync.service")
    assert 0 not in (*card, *kiosk, *web, *sync), (card, kiosk, web, sync)  # each has started
    # The table is named before anything shows or serves it; the sheet is up (READY=1 after its
    # first frame) before the pages and the league's worker start beside it.
    assert card[1] <= kiosk[0] and card[1] <= web[0]
    assert kiosk[1] <= web[0] and kiosk[1] <= sync[0]


def test_the_card_names_the_table_and_sets_the_wifi(container, tree):
    box, _ = container
    assert box.run("hostname").stdout.strip() == "clabber-7"
    assert (tree / "etc/hostname").read_text() == "clabber-7\n"
    assert "http://clabber-7.local:8080/g/" in journal_line(box, "clabber-web", "result pages on")
    # In memory, made from the card's file at every boot: the key is never written to the card.
    conf = box.run("cat", "/run/clabber-card/wpa_supplicant-wlan0.conf").stdout
    assert f"ssid={b'Bar Wi-Fi'.hex()}" in conf and "country=US" in conf
    assert PASSWORD not in conf and "psk=" in conf
    assert box.run("stat", "-c", "%a", "/run/clabber-card/wpa_supplicant-wlan0.conf").stdout.strip() == "600"
    assert not (tree / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf").exists()
    assert not (tree / "boot/firmware/clabber-problem.txt").exists()


def test_the_kiosk_runs_headless_on_mock_pins_and_the_pages_answer(container, tree):
    box, _ = container
    assert "using mock pins" in journal_line(box, "clabber-kiosk", "dealer buttons and seat lights")
    game = as_kiosk(box, "game", "--db", DB, "new", "--teams", "Ours", "Theirs", "--first-dealer", "E")
    assert game.returncode == 0, game.stderr
    row = as_kiosk(box, "game", "--db", DB, "hand", game.stdout.strip(), "/var/tmp/hand.json")
    assert json.loads(row.stdout)["score"] == {"NS": 110, "EW": 92}
    png = "/var/tmp/qr.png"
    qr = as_kiosk(box, "qr", "--db", DB, game.stdout.strip(), "--png", png, "--public-url", "http://127.0.0.1:8080")
    url = qr.stderr.strip()
    assert [code.text for code in zxingcpp.read_barcodes(Image.open(tree / png.lstrip("/")))] == [url]
    fetch = "import sys, urllib.request as u; r=u.urlopen(sys.argv[1], timeout=20); print(r.status, r.read().decode())"
    page = box.run("python3", "-c", fetch, url)
    assert page.stdout.startswith("200 ") and "Ours" in page.stdout and "Theirs" in page.stdout, page.stderr


def test_the_watchdog_restarts_a_frozen_kiosk(container, tree):
    box, _ = container
    watchdog = int(unit_file(tree, "clabber-kiosk.service")["WatchdogSec"])
    frozen = box.host_pid("clabber-kiosk.service")
    import os
    import signal

    os.kill(frozen, signal.SIGSTOP)  # the kiosk's clock stops, as in a hung driver call
    stopped_at = time.monotonic()
    deadline = stopped_at + watchdog + 60
    while time.monotonic() < deadline:
        show = box.run("systemctl", "show", "-p", "NRestarts,ActiveState,SubState,MainPID", "clabber-kiosk").stdout
        values = dict(line.split("=", 1) for line in show.split())
        if values["NRestarts"] == "1" and values["SubState"] == "running":
            break
        time.sleep(1)
    back_after = time.monotonic() - stopped_at
    journal = box.run("journalctl", "-u", "clabber-kiosk", "--no-pager").stdout
    assert "Failed with result 'watchdog'" in journal
    assert values["NRestarts"] == "1" and values["SubState"] == "running", show
    assert not Path(f"/proc/{frozen}").exists()
    # Not before its WatchdogSec has passed without a ping, and not long after.
    assert watchdog - 2 <= back_after <= watchdog + 60


def test_a_command_typed_on_the_pi_finds_the_kiosks_database(container):
    """The owner's commands (``sudo -u clabber clabber league join URL CODE``, docs/deploy.md) name
    no database: the installer's config names the one the services use."""
    box, _ = container
    status = as_kiosk(box, "league", "status", "--json")
    assert status.returncode == 0, status.stderr
    sync = json.loads(status.stdout)["sync"]
    assert sync["state"] == "not joined" and sync["at"], sync  # written by the running sync service


def test_a_clean_shutdown_leaves_no_wal_behind(container, tree):
    box, _ = container
    assert box.poweroff() == 0
    folder = tree / "var/lib/clabber"
    assert sorted(p.name for p in folder.glob("clabber.db*")) == ["clabber.db"]
    with sqlite3.connect(f"file:{folder / 'clabber.db'}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT count(*) FROM hands").fetchone() == (1,)
