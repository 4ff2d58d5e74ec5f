"""A real RAUC for the tests: throw-away signing keys, bundles made with ``rauc bundle``, and RAUC's
service on a private D-Bus system bus over two slot files, with the card's own bootloader backend
(deploy/image/clabber-slot) keeping its boot order in a file, as on the card's boot partition."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BACKEND = ROOT / "deploy" / "image" / "clabber-slot"
SIGNING_KEY = ROOT / "deploy" / "signing-key.sh"
BUNDLE = ROOT / "deploy" / "image" / "bundle.sh"
COMPATIBLE = "clabber-pi-arm64"
SLOT_BYTES = 4 * 1024 * 1024

BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
"""

SYSTEM_CONF = """[system]
compatible={compatible}
bootloader=custom
data-directory={data}
bundle-formats=plain

[handlers]
bootloader-custom-backend={backend}

[keyring]
path={keyring}

[slot.rootfs.0]
device={a}
type=ext4
bootname=A

[slot.rootfs.1]
device={b}
type=ext4
bootname=B
"""


@dataclass(frozen=True)
class Key:
    cert: Path
    key: Path


def make_key(folder: Path, name: str) -> Key:
    """A distributor's signing key and its self-signed certificate (the keyring a kiosk trusts),
    made by the product's own deploy/signing-key.sh."""
    where = folder / name
    done = subprocess.run(["bash", str(SIGNING_KEY), str(where)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return Key(where / "clabber-updates.cert.pem", where / "clabber-updates.key.pem")


def make_bundle(folder: Path, version: str, key: Key, compatible: str = COMPATIBLE, marker: str = "") -> Path:
    """A bundle, made by deploy/image/bundle.sh, of a small ext4 system image that holds
    ``/etc/clabber-version``."""
    work = folder / f"work-{version}-{key.cert.parent.name}-{compatible}"
    root = work / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "clabber-version").write_text((marker or version) + "\n")
    image = work / "rootfs.ext4"
    subprocess.run(
        ["mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-L", "clabber-root", "-d", str(root), str(image), "2M"],
        check=True, capture_output=True,
    )  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    bundle = folder / f"clabber-{version}.raucb"
    bundle.unlink(missing_ok=True)
    done = subprocess.run(
        ["bash", str(BUNDLE), str(image), version, str(key.cert.parent), str(bundle), compatible],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shutil.rmtree(work)
    return bundle


class Rauc:
    """RAUC's service over two slot files; ``booted``: the slot the machine "runs"."""

    def __init__(self, folder: Path, keyring: Path, booted: str = "A") -> None:
        if os.geteuid() != 0:  # said plainly, rather than RAUC's word on a loop device it cannot set up
            raise PermissionError("RAUC mounts each bundle on a loop device: run these tests as root (CI does)")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.slot_env = folder / "clabber-slot.env"
        self.cmdline = folder / "cmdline"
        self.slots = {"A": folder / "slot-a.img", "B": folder / "slot-b.img"}
        for path in self.slots.values():
            with open(path, "wb") as f:
                f.truncate(SLOT_BYTES)
        socket = folder / "bus"
        (folder / "bus.conf").write_text(BUS_CONF.format(socket=socket))
        (folder / "system.conf").write_text(
            SYSTEM_CONF.format(
                compatible=COMPATIBLE, data=folder / "rauc", backend=BACKEND, keyring=keyring,
                a=self.slots["A"], b=self.slots["B"],
            )
        )  # fmt: skip
        self.env = {
            "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={socket}",
            "CLABBER_SLOT_ENV": str(self.slot_env),
            "CLABBER_CMDLINE": str(self.cmdline),
        }
        self.bus = subprocess.Popen(
            ["dbus-daemon", "--nofork", f"--config-file={folder / 'bus.conf'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_for(socket)
        self.service: subprocess.Popen[bytes] | None = None
        self.boot(booted)

    def boot(self, slot: str) -> None:
        """The machine started ``slot``: the service starts again seeing it as the running one."""
        self.stop_service()
        self.cmdline.write_text(f"console=ttyAMA0 root=/dev/vda2 rauc.slot={slot} ro\n")
        # A mount prefix of its own: tests beside it run their own RAUC.
        command = [
            "rauc", "service", f"--conf={self.folder / 'system.conf'}", f"--override-boot-slot={slot}",
            f"--mount={self.folder / 'mnt'}",
        ]  # fmt: skip
        with open(self.folder / "service.log", "ab") as log:
            env = {**os.environ, **self.env}
            self.service = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            done = subprocess.run(["rauc", "status"], env={**os.environ, **self.env}, capture_output=True)
            if done.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("RAUC's service did not start: " + (self.folder / "service.log").read_text()[-2000:])

    def power_on(self) -> str:
        """The machine starts: the card's boot rule (deploy/image/boot.cmd, U-Boot's part, which
        cannot run here) picks the first slot of the boot order with boots left, takes one, and
        starts it. Returns the slot started."""
        order = self.boot_order()
        left = {s: int(order.get(f"BOOT_{s}_LEFT", "3")) for s in "AB"}
        slots = order.get("BOOT_ORDER", "A B").split()
        chosen = next((s for s in slots if left[s] > 0), None)
        if chosen is None:  # no slot with boots left: the script starts again from "A B", both good
            left, slots, chosen = {"A": 3, "B": 3}, ["A", "B"], "A"
        left[chosen] -= 1
        self.slot_env.write_text(f"BOOT_ORDER={' '.join(slots)}\nBOOT_A_LEFT={left['A']}\nBOOT_B_LEFT={left['B']}\n")
        self.boot(chosen)
        return chosen

    def slot_holds(self, slot: str) -> str | None:
        """The version in ``slot``'s /etc/clabber-version, read back from the slot's file."""
        done = subprocess.run(
            ["debugfs", "-R", "cat /etc/clabber-version", str(self.slots[slot])], capture_output=True, text=True
        )
        return done.stdout.strip() or None

    def boot_order(self) -> dict[str, str]:
        text = self.slot_env.read_text() if self.slot_env.exists() else ""
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def stop_service(self) -> None:
        if self.service is not None:
            self.service.send_signal(signal.SIGTERM)
            try:
                self.service.wait(10)
            except subprocess.TimeoutExpired:
                self.service.kill()
            self.service = None

    def close(self) -> None:
        self.stop_service()
        self.bus.terminate()
        self.bus.wait(10)


def _wait_for(path: Path, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path} did not appear")
        time.sleep(0.02)
