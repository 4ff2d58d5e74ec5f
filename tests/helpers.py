"""Small helpers that let tests speak in card names."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, NoReturn

from engine.cards import CardSet, card_set, parse_card, parse_suit
from engine.hand import Hand
from engine.record import read_hand
from engine.scoring import HandScore, score_hand

ROOT = Path(__file__).resolve().parent.parent


def cards(text: str) -> CardSet:
    """``"AS KS 9H"`` as a set of cards."""
    return card_set(parse_card(t) for t in text.split())


def card_list(text: str) -> list[int]:
    """``"AS KS 9H"`` as cards in order."""
    return [parse_card(t) for t in text.split()]


def suit(text: str) -> int:
    """A suit letter as a suit."""
    return parse_suit(text)


def hand_of(record: dict[str, Any], complete: bool = True) -> Hand:
    """The hand a record (format added) describes; ``complete=False`` for one in progress."""
    return read_hand({"format": "clabber-hand/1", **record}, complete=complete).hand


def score_of(record: dict[str, Any]) -> HandScore:
    """The score of a record (format added)."""
    rec = read_hand({"format": "clabber-hand/1", **record})
    return score_hand(rec.hand, rec.rules)


def clabber(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs a ``clabber`` command in this process (click's runner): its exit status and output.

    An exception the command does not turn into a message fails the test here, where the
    process would have said "internal error"."""
    from click.testing import CliRunner

    from shared.cli import cli

    r = CliRunner().invoke(cli, list(args), input=stdin, env=env, catch_exceptions=False)
    return subprocess.CompletedProcess(["clabber", *args], r.exit_code, r.stdout, r.stderr)


def clabber_process(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs the installed ``clabber`` command as a table's scripts would, as a process of its own."""
    exe = Path(sys.executable).with_name("clabber")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "kiosk"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
    return subprocess.run([*cmd, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60)


def write_json(path: Path, obj: Any) -> Path:
    """Writes a record to a file and returns its path."""
    path.write_text(json.dumps(obj))
    return path


def unavailable(why: str) -> NoReturn:
    """A test whose fault cannot be made on this machine (not root, no mounts, no FUSE): skipped on a
    developer's machine, but a failure in CI, which runs as root with everything installed."""
    import pytest

    if os.environ.get("CI"):
        pytest.fail(f"{why}: CI provides this, so the test must run there")
    pytest.skip(why)


FSTAB_GENERATOR = Path("/lib/systemd/system-generators/systemd-fstab-generator")


def stick_mount(root: Path) -> dict[str, object]:
    """What systemd makes of the backup stick's line in ``root``'s fstab, by its own generator:
    when the stick is mounted, whether through an automount, and how many lines name it."""
    out = Path(tempfile.mkdtemp(prefix="clabber-fstab."))
    try:
        for d in ("n", "e", "l"):
            (out / d).mkdir()
        env = {**os.environ, "SYSTEMD_FSTAB": str(root / "etc/fstab"), "SYSTEMD_PROC_CMDLINE": ""}
        done = subprocess.run(
            [str(FSTAB_GENERATOR), *(str(out / d) for d in ("n", "e", "l"))], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        unit = "mnt-clabber\\x2dusb.mount"
        wanted = (out / "n/dev-disk-by\\x2dlabel-CLABBER.device.wants" / unit).exists()
        at_boot = any((out / "n").glob(f"*.target.*/{unit}"))
        return {
            "mounted": "when the stick is plugged in" if wanted else ("at boot" if at_boot else "never"),
            "automount": (out / "n/mnt-clabber\\x2dusb.automount").exists(),
            "lines": sum(" /mnt/clabber-usb " in line for line in (root / "etc/fstab").read_text().splitlines()),
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)
