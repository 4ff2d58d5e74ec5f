"""What the card tells a Pi booted from the Clabber image: the table's name and the bar's Wi-Fi.

Run at every boot by clabber-card.service, before the network and the result pages start, with
the system's Python and nothing else (it runs before the kiosk's environment matters). It reads
two files a bar owner may write on the card's boot partition from any computer:

- ``clabber-hostname.txt``: the table's number (``3`` names the Pi ``clabber-3``) or a whole name;
  without it the name comes from the board's serial number (``clabber-`` and its last four digits);
- ``clabber-wifi.txt``: ``ssid``, ``password`` and ``country`` (TOML, the template on the card).

A file it cannot use is explained in ``clabber-problem.txt`` beside it (read on the same computer)
and in the journal; the Pi keeps the name and network it had. On the first boot it also grows the
data partition (``/data``; on a card without one, the root) over the whole card.

The system slot it runs from is read-only: the Wi-Fi's settings (with the derived key) are written
to memory (``/run``, made again at every boot from the card's file), the name is set for this boot,
and ``/etc/hostname`` and ``/etc/hosts`` are written only where the root can be written.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

HOSTNAME_FILE = "clabber-hostname.txt"
WIFI_FILE = "clabber-wifi.txt"
PROBLEM_FILE = "clabber-problem.txt"
WPA_CONF = "run/clabber-card/wpa_supplicant-wlan0.conf"  # memory: never on the card (wpa_supplicant-card.conf)
GROWN = "var/lib/clabber-card/grown"  # on the data partition: the card was grown once
LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
SERIALS = ("sys/firmware/devicetree/base/serial-number", "proc/device-tree/serial-number", "etc/machine-id")


class CardProblem(ValueError):
    """A file on the card that cannot be used: the message says which and why, for the owner."""


def table_name(boot: Path, root: Path) -> str:
    """The Pi's hostname: from clabber-hostname.txt if there is one, else from the board's serial."""
    path = boot / HOSTNAME_FILE
    if path.exists():
        lines = (line.strip() for line in read_text(path).splitlines())
        words = [line for line in lines if line and not line.startswith("#")]
        if words:
            return hostname_from(words[0])
    for candidate in SERIALS:
        try:
            serial = (root / candidate).read_bytes().strip(b"\0\n ").decode("ascii", "replace")
        except OSError:
            continue
        digits = re.sub(r"[^0-9a-f]", "", serial.lower())
        if digits:
            return f"clabber-{digits[-4:]}"
    return "clabber"


def hostname_from(word: str) -> str:
    """``3`` gives clabber-3; a name of letters, digits and hyphens is taken as it is (lowercased)."""
    name = word.lower()
    if name.isdecimal() and len(name) <= 6:
        name = f"clabber-{int(name)}"
    if not LABEL.match(name):
        raise CardProblem(
            f"{HOSTNAME_FILE}: '{word}' is not a table number or a name of letters, digits and hyphens"
            " (at most 63, not starting or ending with a hyphen)"
        )
    return name


def read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CardProblem(f"{path.name}: not plain text (UTF-8) at byte {e.start}: save it again as plain text") from e


def wifi_settings(boot: Path) -> dict[str, str] | None:
    """The bar's network from clabber-wifi.txt, checked; None when the file is absent or left blank."""
    path = boot / WIFI_FILE
    if not path.exists():
        return None
    try:
        table = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as e:
        raise CardProblem(f'{WIFI_FILE}: {e}; each line is like: ssid = "Bar Wi-Fi"') from e
    unknown = sorted(set(table) - {"ssid", "password", "country"})
    if unknown:
        raise CardProblem(f"{WIFI_FILE}: unknown setting {unknown[0]!r}: only ssid, password and country")
    for key, value in table.items():
        if not isinstance(value, str):
            raise CardProblem(f'{WIFI_FILE}: {key} must be in double quotes, e.g. {key} = "..."')
    ssid, password, country = table.get("ssid", ""), table.get("password", ""), table.get("country", "US")
    if not ssid:
        return None  # the template as shipped: no Wi-Fi (a cable, or not yet)
    if len(ssid.encode()) > 32:
        raise CardProblem(f"{WIFI_FILE}: the network's name (ssid) is longer than Wi-Fi allows (32 bytes)")
    if password and not 8 <= len(password) <= 63:
        raise CardProblem(f"{WIFI_FILE}: a Wi-Fi password has 8 to 63 characters; this one has {len(password)}")
    if password and not all(32 <= ord(c) < 127 for c in password):
        raise CardProblem(
            f"{WIFI_FILE}: the password has a character Wi-Fi passwords cannot have (letters,"
            " digits and ASCII signs only)"
        )
    if not re.fullmatch(r"[A-Za-z]{2}", country):
        raise CardProblem(f"{WIFI_FILE}: country is the two letters of the country the bar is in (US), not {country!r}")
    return {"ssid": ssid, "password": password, "country": country.upper()}


def wpa_config(wifi: dict[str, str]) -> str:
    """wpa_supplicant's file: the name in hex and the key derived from the password, so no text
    from the card is ever parsed as the file's own syntax, and the password is not kept in clear."""
    ssid = wifi["ssid"].encode()
    if wifi["password"]:
        psk = hashlib.pbkdf2_hmac("sha1", wifi["password"].encode(), ssid, 4096, 32).hex()
        key = f"\tpsk={psk}\n"
    else:
        key = "\tkey_mgmt=NONE\n"
    return (
        "# Written at boot from clabber-wifi.txt on the card's boot partition: edit that file instead.\n"
        "ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\n"
        f"country={wifi['country']}\n"
        "network={\n"
        f"\tssid={ssid.hex()}\n"
        "\tscan_ssid=1\n"
        f"{key}"
        "}\n"
    )


def write_whole(path: Path, text: str, mode: int) -> bool:
    """Writes ``text`` to ``path`` all at once (a cut leaves the old file or the new); False if unchanged."""
    try:
        if path.read_text() == text:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    new = path.with_name(path.name + ".new")
    with open(os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(new, path)
    return True


def writable(path: Path) -> bool:
    """Whether the filesystem holding ``path`` can be written (a system slot is mounted read-only)."""
    try:
        return not os.statvfs(path).f_flag & os.ST_RDONLY
    except OSError:
        return False


def set_hostname(root: Path, name: str, live: bool) -> None:
    if live and socket.gethostname() != name:
        socket.sethostname(name)
    if not writable(root / "etc"):
        return  # a read-only system: the name is this boot's, set again at the next
    write_whole(root / "etc/hostname", name + "\n", 0o644)
    hosts = root / "etc/hosts"
    try:
        lines = [line for line in hosts.read_text().splitlines() if not line.startswith("127.0.1.1")]
    except OSError:
        lines = ["127.0.0.1\tlocalhost", "::1\t\tlocalhost ip6-localhost ip6-loopback"]
    write_whole(hosts, "\n".join([*lines, f"127.0.1.1\t{name}"]) + "\n", 0o644)


def grow_root(root: Path) -> str | None:
    """Grows the last partition (the data partition, or the root on a card without one) and its
    filesystem over the rest of the card, once (the image is written small, and the card is
    larger). Returns what it did, or None when there was nothing to do."""
    done = root / GROWN
    if done.exists():
        return None
    mount = "/data" if os.path.ismount(root / "data") else "/"
    source = subprocess.run(["findmnt", "-no", "SOURCE", mount], capture_output=True, text=True).stdout.strip()
    disk = subprocess.run(["lsblk", "-no", "PKNAME", source], capture_output=True, text=True).stdout.strip()
    number = re.search(r"(\d+)$", source)
    if not source.startswith("/dev/") or not disk or not number:
        return f"{mount} is on {source or 'nothing known'}: not grown"
    steps = [
        (["sfdisk", "--no-reread", "--no-tell-kernel", "-N", number.group(1), f"/dev/{disk}"], ", +\n"),
        (["partx", "-u", "-n", number.group(1), f"/dev/{disk}"], None),
        (["resize2fs", source], None),
    ]
    for command, given in steps:
        r = subprocess.run(command, input=given, capture_output=True, text=True)
        if r.returncode != 0:
            return f"growing {mount} stopped at {command[0]}: {r.stderr.strip()[-300:]}"
    done.parent.mkdir(parents=True, exist_ok=True)
    done.touch()
    return f"{mount} ({source}) now fills the card"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("/"), help="the system's root (tests: a tree)")
    parser.add_argument("--boot", type=Path, help="the boot partition (default: ROOT/boot/firmware)")
    parser.add_argument("--no-grow", action="store_true", help="leave the root filesystem's size alone")
    args = parser.parse_args(argv)
    root: Path = args.root
    boot: Path = args.boot or root / "boot/firmware"
    live = root.resolve() == Path("/")
    problems = []
    try:
        name = table_name(boot, root)
        set_hostname(root, name, live)
        print(f"card: this table is {name}")
    except CardProblem as e:
        problems.append(str(e))
    try:
        wifi = wifi_settings(boot)
        conf = root / WPA_CONF
        if wifi is None:
            if conf.exists():
                conf.unlink()
                print("card: no Wi-Fi in clabber-wifi.txt: Wi-Fi off")
        else:
            conf.parent.mkdir(parents=True, exist_ok=True)
            if write_whole(conf, wpa_config(wifi), 0o600):
                print(f"card: Wi-Fi set to {wifi['ssid']!r} ({wifi['country']})")
    except CardProblem as e:
        problems.append(str(e))
    if live and not args.no_grow:
        grown = grow_root(root)
        if grown:
            print(f"card: {grown}")
    note = boot / PROBLEM_FILE
    try:
        if problems:
            text = "The Clabber kiosk could not use a file on this card:\n\n" + "\n".join(f"- {p}" for p in problems)
            write_whole(note, text.replace("\n", "\r\n") + "\r\n", 0o644)
        elif note.exists():
            note.unlink()
    except OSError as e:
        print(f"card: cannot write {note}: {e}", file=sys.stderr)
    for problem in problems:
        print(f"card: {problem}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
