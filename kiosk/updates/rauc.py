"""RAUC, the update controller, as the kiosk's updater uses it: what a bundle says of itself, the
slots and which one runs, an install with its progress, and the word that commits a tried slot.

Each call runs the ``rauc`` command (Debian's package; its service does the work over D-Bus) and
turns its failures into ``RaucError`` with RAUC's own words, never a traceback.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shared.bundle import BundleError, BundleInfo, rauc_reason, read_bundle

RAUC = "rauc"
PROGRESS = re.compile(r"^\s*(\d{1,3})%\s+(.*)$")


class RaucError(Exception):
    """RAUC could not do what was asked; the message is RAUC's reason in a line."""


@dataclass(frozen=True)
class Slot:
    """One system slot: its name for the boot loader (A, B) and its state."""

    name: str  # rootfs.0, rootfs.1
    bootname: str
    booted: bool
    good: bool
    version: str | None  # the version of the bundle last written into it, where RAUC recorded it


@dataclass(frozen=True)
class Status:
    """The system as RAUC sees it: which slot runs and which one boots next."""

    compatible: str
    booted: str  # the running slot's bootname
    primary: str | None  # the slot the next boot starts (its bootname)
    slots: tuple[Slot, ...]

    def slot(self, bootname: str) -> Slot | None:
        return next((s for s in self.slots if s.bootname == bootname), None)


def _run(args: list[str], conf: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    command = [RAUC, *args] + ([f"--conf={conf}"] if conf else [])
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as e:
        raise RaucError("RAUC is not installed here (on Debian: sudo apt install rauc rauc-service)") from e
    except subprocess.TimeoutExpired as e:
        raise RaucError(f"RAUC did not answer within {timeout:.0f} s") from e
    if done.returncode != 0:
        raise RaucError(rauc_reason(done.stderr + done.stdout))
    return done


def _json(text: str, what: str) -> dict[str, object]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RaucError(f"RAUC's {what} is not JSON: {e}") from e
    if not isinstance(data, dict):
        raise RaucError(f"RAUC's {what} is not an object")
    return data


def info(bundle: Path, keyring: Path) -> BundleInfo:
    """The bundle's compatible and version, its signature checked against ``keyring`` first:
    RaucError when it is not signed by a key the keyring trusts, or is not a bundle."""
    try:
        return read_bundle(bundle, keyring)
    except BundleError as e:
        raise RaucError(str(e)) from e


def status(conf: Path | None = None) -> Status:
    """The slots and their states, from the running RAUC service."""
    data = _json(_run(["status", "--detailed", "--output-format=json"], conf).stdout, "status")
    slots = []
    listed = data.get("slots")
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, dict):
            continue
        for name, s in entry.items():
            if not isinstance(s, dict) or s.get("class") != "rootfs":
                continue
            bundle = (s.get("slot_status") or {}).get("bundle") or {}
            slots.append(
                Slot(
                    name=name,
                    bootname=str(s.get("bootname")),
                    booted=s.get("state") == "booted",
                    good=s.get("boot_status") == "good",
                    version=bundle.get("version") if isinstance(bundle, dict) else None,
                )
            )
    primary = data.get("boot_primary")
    by_name = {s.name: s.bootname for s in slots}
    return Status(
        compatible=str(data.get("compatible")),
        booted=str(data.get("booted")),
        primary=by_name.get(str(primary)) if primary else None,
        slots=tuple(slots),
    )


def install(bundle: Path, progress: Callable[[int, str], None] | None = None, timeout: float = 3600) -> None:
    """Writes the bundle into the slot not running and makes that slot the next boot's (a try).
    ``progress(percent, step)`` is called as RAUC reports; RaucError with RAUC's reason on failure."""
    command = [RAUC, "install", str(bundle)]
    try:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except FileNotFoundError as e:
        raise RaucError("RAUC is not installed here (on Debian: sudo apt install rauc rauc-service)") from e
    said: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        said.append(line)
        step = PROGRESS.match(line)
        if step and progress is not None:
            progress(min(100, int(step.group(1))), step.group(2).strip())
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        proc.kill()
        raise RaucError(f"the install did not end within {timeout:.0f} s") from e
    if code != 0:
        raise RaucError(rauc_reason("".join(said)))


def mark_good() -> None:
    """The running slot has proved itself: it stays the one that boots."""
    _run(["status", "mark-good", "booted"])


def mark_bad() -> None:
    """The running slot failed its health check: the next boot is the other slot's."""
    _run(["status", "mark-bad", "booted"])


def mark_active() -> None:
    """The running slot boots next (after a rollback: the slot that failed is tried no more)."""
    _run(["status", "mark-active", "booted"])
