"""The card's settings (deploy/image/card.py): the table's name and the bar's Wi-Fi, as a bar owner
writes them on the boot partition from any computer, read into a tree shaped like the image's."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("card", ROOT / "deploy/image/card.py")
assert spec and spec.loader
card = importlib.util.module_from_spec(spec)
sys.modules["card"] = card
spec.loader.exec_module(card)


@pytest.fixture
def pi(tmp_path: Path) -> Path:
    """A root as the image leaves it: the templates on the boot partition, a machine id."""
    (tmp_path / "boot/firmware").mkdir(parents=True)
    for name in ("clabber-wifi.txt", "clabber-hostname.txt"):
        (tmp_path / "boot/firmware" / name).write_bytes((ROOT / "deploy/image" / name).read_bytes())
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/machine-id").write_text("0123456789abcdef0123456789ab3f7a\n")
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\tclabber\n")
    return tmp_path


def boot(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert card.main(["--root", str(root), "--no-grow"]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def test_the_card_as_shipped_names_the_table_from_its_serial_and_has_no_wifi(pi, capsys):
    out, err = boot(pi, capsys)
    assert "this table is clabber-3f7a" in out
    assert (pi / "etc/hostname").read_text() == "clabber-3f7a\n"  # the machine id's last four
    assert "127.0.1.1\tclabber-3f7a" in (pi / "etc/hosts").read_text().splitlines()
    assert not (pi / card.WPA_CONF).exists()
    assert err == "" and not (pi / "boot/firmware/clabber-problem.txt").exists()


def test_a_pis_serial_number_comes_before_the_machine_id(pi, capsys):
    serial = pi / "sys/firmware/devicetree/base/serial-number"
    serial.parent.mkdir(parents=True)
    serial.write_bytes(b"10000000c0ffee42\0")
    boot(pi, capsys)
    assert (pi / "etc/hostname").read_text() == "clabber-ee42\n"


@pytest.mark.parametrize(
    ("written", "name"), [("3", "clabber-3"), ("  12 \r\n", "clabber-12"), ("Bar-North", "bar-north")]
)
def test_the_table_number_or_a_name_names_the_pi(pi, capsys, written, name):
    (pi / "boot/firmware/clabber-hostname.txt").write_text(f"# the table\n{written}\n")
    boot(pi, capsys)
    assert (pi / "etc/hostname").read_text() == f"{name}\n"


def test_the_wifi_is_written_for_wpa_supplicant_with_the_derived_key(pi, capsys):
    (pi / "boot/firmware/clabber-wifi.txt").write_text('ssid = "IEEE"\npassword = "password"\n')
    out, _ = boot(pi, capsys)
    conf = (pi / card.WPA_CONF).read_text()
    # IEEE 802.11i's own example of the key a passphrase and a network's name give.
    assert "psk=f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e" in conf
    assert f"ssid={b'IEEE'.hex()}" in conf and "country=US" in conf and "password" not in conf
    assert (pi / card.WPA_CONF).stat().st_mode & 0o777 == 0o600
    assert "Wi-Fi set to 'IEEE' (US)" in out
    # Emptied again on the card: Wi-Fi off.
    (pi / "boot/firmware/clabber-wifi.txt").write_text('ssid = ""\n')
    out, _ = boot(pi, capsys)
    assert not (pi / card.WPA_CONF).exists() and "Wi-Fi off" in out


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("ssid = Bar\n", "clabber-wifi.txt: "),
        ('ssid = "Bar"\npassword = "short"\n', "8 to 63 characters; this one has 5"),
        ('ssid = "Bar"\npassword = "caf\u00e9 au lait"\n', "a character Wi-Fi passwords cannot have"),
        ('ssid = "Bar"\npasword = "12345678"\n', "unknown setting 'pasword'"),
        ('ssid = "Bar"\ncountry = "USA"\n', "two letters"),
        ('ssid = "' + "x" * 33 + '"\n', "longer than Wi-Fi allows"),
        ("ssid = 42\n", "ssid must be in double quotes"),
    ],
)
def test_a_wifi_file_it_cannot_use_is_explained_on_the_card_and_the_network_kept(pi, capsys, text, why):
    (pi / "boot/firmware/clabber-wifi.txt").write_text('ssid = "Bar"\npassword = "12345678"\n')
    boot(pi, capsys)
    before = (pi / card.WPA_CONF).read_text()
    (pi / "boot/firmware/clabber-wifi.txt").write_text(text)
    _, err = boot(pi, capsys)
    note = (pi / "boot/firmware/clabber-problem.txt").read_bytes().decode()
    assert why in note and why in err and "\r\n" in note  # readable in Notepad too
    assert (pi / card.WPA_CONF).read_text() == before
    (pi / "boot/firmware/clabber-wifi.txt").write_text('ssid = "Bar"\npassword = "12345678"\n')
    boot(pi, capsys)
    assert not (pi / "boot/firmware/clabber-problem.txt").exists()


def test_a_bad_table_name_keeps_the_name_and_says_why(pi, capsys):
    boot(pi, capsys)
    (pi / "boot/firmware/clabber-hostname.txt").write_text("table 3\n")
    _, err = boot(pi, capsys)
    assert "'table 3' is not a table number or a name" in err
    assert (pi / "etc/hostname").read_text() == "clabber-3f7a\n"


def test_a_file_that_is_not_text_is_named(pi, capsys):
    (pi / "boot/firmware/clabber-wifi.txt").write_bytes(b'ssid = "Bar\xff"\n')
    _, err = boot(pi, capsys)
    assert "clabber-wifi.txt: not plain text (UTF-8) at byte 11" in err


@given(st.text(min_size=1, max_size=32).filter(lambda s: len(s.encode()) <= 32), st.text(min_size=8, max_size=63))
def test_no_name_or_password_can_write_into_the_files_syntax(ssid, password):
    """Whatever the owner types, the file has one network block of hex and no text of theirs."""
    if not all(32 <= ord(c) < 127 for c in password):
        return
    conf = card.wpa_config({"ssid": ssid, "password": password, "country": "US"})
    assert conf.count("network={") == 1 and conf.count("}") == 1
    assert f"ssid={ssid.encode().hex()}\n" in conf
    body = conf.split("network={")[1]
    assert all(line.split("=", 1)[1].isalnum() for line in body.splitlines() if "=" in line)


@pytest.fixture
def read_only_etc(pi):
    """The system slot as it runs: its /etc on a filesystem mounted read-only."""
    import subprocess

    if os.geteuid() != 0:
        raise PermissionError("mounting a read-only filesystem needs root (CI runs as root)")
    kept = {p.name: p.read_bytes() for p in (pi / "etc").iterdir()}
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(pi / "etc")], check=True)
    for name, data in kept.items():
        (pi / "etc" / name).write_bytes(data)
    subprocess.run(["mount", "-o", "remount,ro", str(pi / "etc")], check=True)
    yield pi
    subprocess.run(["umount", str(pi / "etc")], check=True)


def test_on_a_read_only_system_the_wifi_goes_to_memory_and_etc_is_left_alone(read_only_etc, capsys):
    pi = read_only_etc
    (pi / "boot/firmware/clabber-wifi.txt").write_text(
        'ssid = "Bar Wi-Fi"\npassword = "pints-and-cards"\ncountry = "US"\n'
    )
    out, err = boot(pi, capsys)
    assert "this table is clabber-3f7a" in out and err == ""
    assert not (pi / "etc/hostname").exists()  # nothing written to the slot, and nothing said wrong
    conf = pi / "run/clabber-card/wpa_supplicant-wlan0.conf"
    assert "country=US" in conf.read_text() and conf.stat().st_mode & 0o777 == 0o600
