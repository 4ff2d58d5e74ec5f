"""RAUC, the update controller, as the kiosk's updater uses it: the slots and which one runs, an
install with its progress, and the word that commits a tried slot (what a bundle says of itself is
shared/bundle.py's).

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

from shared.bundle import rauc_reason

RAUC = "rauc"
PROGRESS = re.compile(r"^\s*(\d{1,3})%\s+(.*)$")


class RaucError(Exception):
    """RAUC could not do what was asked; the message is RAUC's reason in a line."""


@dataclass(frozen=True)
class Slot:
    """One system slot, by its name for the boot loader (A, B), and whether it may still boot."""

    bootname: str
    good: bool


@dataclass(frozen=True)
class Status:
    """The system as RAUC sees it: which slot runs, and each slot's state."""

    booted: str  # the running slot's bootname
    slots: tuple[Slot, ...]

    def slot(self, bootname: str) -> Slot | None:
        return next((s for s in self.slots if s.bootname == bootname), None)


def _run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run([RAUC, *args], capture_output=True, text=True, timeout=timeout)
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


def status() -> Status:
    """The slots and their states, from the running RAUC service."""
    data = _json(_run(["status", "--output-format=json"]).stdout, "status")
    listed = data.get("slots")
    slots = [
        Slot(bootname=str(s.get("bootname")), good=s.get("boot_status") == "good")
        for entry in (listed if isinstance(listed, list) else [])
        if isinstance(entry, dict)
        for s in entry.values()
        if isinstance(s, dict) and s.get("class") == "rootfs"
    ]
    return Status(booted=str(data.get("booted")), slots=tuple(slots))


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
