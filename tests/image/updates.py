"""The update phase of ``./run test-image``: the emulated Pi takes a new version from the league on
the host, written into system B, tried, proved and kept; then a version whose kiosk cannot start,
tried and rolled back by itself, which the league's fleet says.

The bundles are the copy's own system A (as the card has it, with the test's agent) made a new
version: its package's version raised (what a new build changes) and, for the broken one, the
kiosk's unit made to fail at start. They are signed by a key made for the run, whose certificate
the copy's system A trusts in place of the distributor's.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SIGNING_KEY = ROOT / "deploy/signing-key.sh"
BUNDLE = ROOT / "deploy/image/bundle.sh"
VENV = "/opt/clabber/venv"
PIN = "246813"


class Failed(Exception):
    """A check of the update phase that did not hold."""


def check(ok: bool, what: str) -> None:
    if not ok:
        raise Failed(what)


def partitions(raw: Path) -> list[dict[str, Any]]:
    table = json.loads(subprocess.run(["sfdisk", "-J", str(raw)], capture_output=True, text=True, check=True).stdout)
    return list(table["partitiontable"]["partitions"])


@contextlib.contextmanager
def mounted(image: Path, offset: int, where: Path) -> Iterator[Path]:
    where.mkdir(exist_ok=True)
    subprocess.run(["mount", "-o", f"loop,offset={offset}", str(image), str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def signing(work: Path, name: str = "signing") -> Path:
    """The run's own distributor key (or, by another ``name``, somebody else's)."""
    folder = work / name
    subprocess.run(["bash", str(SIGNING_KEY), str(folder)], check=True, capture_output=True)
    return folder


def trust(slot_root: Path, key: Path) -> None:
    """The copy's system trusts the run's key (its keyring replaced)."""
    (slot_root / "etc/rauc/keyring.pem").write_bytes((key / "clabber-updates.cert.pem").read_bytes())


def filesystem_bytes(image: Path, offset: int) -> int:
    """The size of the ext4 filesystem at ``offset`` of ``image`` (its superblock's count)."""
    with open(image, "rb") as f:
        f.seek(offset + 1024)
        block = f.read(1024)
    count = int.from_bytes(block[4:8], "little")
    log_size = int.from_bytes(block[24:28], "little")
    return count * (1024 << log_size)


def bundle_of(raw: Path, work: Path, key: Path, version: str, broken: bool = False) -> Path:
    """System A of the copy as ``version`` (and, ``broken``, with a kiosk that cannot start), signed."""
    slot_a = partitions(raw)[1]
    offset = slot_a["start"] * 512
    system = work / f"system-{version}.ext4"
    size = filesystem_bytes(raw, offset)
    with open(raw, "rb") as source, open(system, "wb") as out:
        source.seek(offset)
        left = size
        while left:
            chunk = source.read(min(left, 1 << 22))
            out.write(chunk)
            left -= len(chunk)
    with mounted(system, 0, work / "mnt-bundle") as root:
        found = sorted(root.glob("opt/clabber/venv*/lib/python3*/site-packages/clabber_kiosk-*.dist-info/METADATA"))
        check(bool(found), "no clabber_kiosk dist-info in the copy's system")
        for metadata in found:
            text = metadata.read_text()
            metadata.write_text(
                "\n".join(f"Version: {version}" if line.startswith("Version: ") else line for line in text.splitlines())
                + "\n"
            )
        if broken:
            dropin = root / "etc/systemd/system/clabber-kiosk.service.d"
            dropin.mkdir(exist_ok=True)
            (dropin / "broken.conf").write_text("[Service]\nExecStart=\nExecStart=/bin/false\n")
    bundle = work / f"clabber-{version}.raucb"
    done = subprocess.run(
        ["bash", str(BUNDLE), str(system), version, str(key), str(bundle)], capture_output=True, text=True
    )
    check(done.returncode == 0, f"making the {version} bundle: {done.stderr}")
    system.unlink()
    return bundle


def small_bundle(work: Path, key: Path, version: str, compatible: str = "clabber-pi-arm64") -> Path:
    """A bundle of a small empty system: one the kiosk must refuse before writing anything."""
    system = work / f"small-{version}.ext4"
    empty = work / "small-empty"
    empty.mkdir(exist_ok=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-d", str(empty), str(system), "8M"], check=True)
    bundle = work / f"small-{version}-{compatible}-{key.name}.raucb"
    done = subprocess.run(
        ["bash", str(BUNDLE), str(system), version, str(key), str(bundle), compatible], capture_output=True, text=True
    )
    check(done.returncode == 0, f"making the small {version} bundle: {done.stderr}")
    system.unlink()
    return bundle


def stick_of(work: Path, *bundles: Path) -> Path:
    """A FAT stick labelled CLABBER, as the backups use, with ``bundles`` on it."""
    stick = work / "stick.img"
    subprocess.run(["truncate", "-s", "64M", str(stick)], check=True)
    subprocess.run(["mkfs.vfat", "-n", "CLABBER", str(stick)], check=True, capture_output=True)
    for bundle in bundles:
        subprocess.run(["mcopy", "-i", str(stick), str(bundle), f"::{bundle.name}"], check=True)
    return stick


def update_state(vm: Any) -> dict[str, Any]:
    r = vm.run(f"{VENV}/bin/clabber", "update", "status", "--json")
    return json.loads(r["out"]) if r["rc"] == 0 and r["out"].strip() else {}


def owner_says_now(vm: Any, action: str = "now", version: str | None = None) -> None:
    """The owner's "Update now" (or "Put back VERSION": ``force``) through the kiosk's controller,
    with the owner's PIN."""
    code = (
        "from pathlib import Path; from kiosk.table import open_table;"
        "t, _ = open_table(Path('/var/lib/clabber/clabber.db'), Path('/var/lib/clabber/backups'), source='screen');"
        f"t.has_pin() or t.set_pin('{PIN}'); t.ask_update({action!r}, '{PIN}', {version!r}); t.store.close()"
    )
    r = vm.run(f"{VENV}/bin/python", "-c", code, user="clabber")
    check(r["rc"] == 0, f"the owner's 'Update now': {r['err'][-500:]}")


def wait_until(what: str, timeout: float, probe: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(3)
    raise Failed(f"{what}: not within {timeout:.0f} s")


def machine_restarted(vm: Any, timeout: float) -> float:
    """Waits for the machine to restart itself (QEMU runs with -no-reboot: it stops), powers it
    on again; returns when it stopped, seconds after the wait began."""
    began = time.monotonic()
    wait_until("the machine restarting itself", timeout, lambda: vm.process.poll() is not None)
    stopped = time.monotonic() - began
    vm.power_on()
    vm.wait_for_agent()
    return stopped


def block_writes(vm: Any) -> dict[str, int]:
    """Bytes written since this boot to the whole card and to each of its partitions."""
    r = vm.run("sh", "-c", "for f in /sys/block/vda/stat /sys/block/vda/vda*/stat; do echo $f $(cat $f); done")
    out = {}
    for line in r["out"].splitlines():
        name, *fields = line.split()
        out[name.split("/")[-2]] = int(fields[6]) * 512  # sectors written
    return out


def stored_now(vm: Any) -> dict[str, Any]:
    """The games' hands, how many are open, integrity_check's word and the league link, read inside
    the machine."""
    query = (
        "import json, sqlite3, sys; db = sqlite3.connect(sys.argv[1]);"
        "print(json.dumps({'hands': dict(db.execute('SELECT game, count(*) FROM hands GROUP BY game').fetchall()),"
        "'open': db.execute(\"SELECT count(*) FROM games WHERE status = 'open'\").fetchone()[0],"
        "'integrity': db.execute('PRAGMA integrity_check').fetchone()[0],"
        "'league': (db.execute(\"SELECT value FROM settings WHERE key = 'league'\").fetchone() or [None])[0]}))"
    )
    r = vm.run(f"{VENV}/bin/python", "-c", query, "/var/lib/clabber/clabber.db", user="clabber")
    check(r["rc"] == 0, f"reading the database inside: {r['err']}")
    return dict(json.loads(r["out"]))


def take(vm: Any, league: Any, bundle: Path, say: Callable[[str], None]) -> dict[str, float]:
    """The league offers ``bundle``; the owner says "Update now"; the machine downloads it, writes
    it into the other slot and restarts into it. Returns the phases' seconds."""
    league.cli("update", "offer", str(bundle))
    began = time.monotonic()
    owner_says_now(vm)
    seen: list[str] = []

    def progress() -> bool:
        if vm.process.poll() is not None:
            return True
        try:
            state = update_state(vm)
        except RuntimeError:  # the machine going down mid-question
            return vm.process.poll() is not None
        word = f"{state.get('state')} {state.get('percent')} %"
        if not seen or seen[-1] != word:
            seen.append(word)
        if state.get("state") == "refused":
            raise Failed(f"the update was refused: {state.get('why')}")
        return False

    wait_until("the update written and the machine restarted", 3600, progress)
    written = time.monotonic() - began
    say(f"  the updater said: {', '.join(seen)}")
    vm.power_on()
    vm.wait_for_agent()
    return {"written": written, "began": began}
