"""What a RAUC update bundle says of itself (its compatible and version), read with RAUC's own
``rauc info``: checked against a keyring on a kiosk, read unchecked by the league that only hands
it on (the kiosk checks it before it installs anything)."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

RAUC_NOISE = re.compile(r"^rauc-(Message|Warning|Critical)[^:]*:\s*[\d:.]*:\s*")
SIGNED_BY = re.compile(r"Verified \w+ signature by '([^']*)'")
VERSION = re.compile(r"^(\d+(?:\.\d+)*)(?:\+[0-9A-Za-z.-]+)?$")


class BundleError(Exception):
    """Not a bundle RAUC can read (or, with a keyring, not signed by a key in it); RAUC's reason."""


@dataclass(frozen=True)
class BundleInfo:
    compatible: str
    version: str
    signer: str  # the signing certificate's subject where the signature was checked, else ""


def version_key(text: str) -> tuple[int, ...]:
    """``"0.10.2"`` as ``(0, 10, 2)``, so that 0.10 comes after 0.9; a build tag (``+g1a2b``) is
    not compared. ValueError for anything else."""
    found = VERSION.match(text.strip())
    if found is None:
        raise ValueError(f"{text!r} is not a version like 1.2.3")
    numbers = [int(n) for n in found.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()  # 1.2 and 1.2.0 are one version
    return tuple(numbers)


def rauc_reason(text: str) -> str:
    """RAUC's last words, without its log prefixes."""
    lines = [RAUC_NOISE.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not re.match(r"^\s*\d{1,3}%", line)]
    failed = [line for line in lines if "fail" in line.lower() or "error" in line.lower()]
    return (failed or lines or ["RAUC gave no reason"])[-1]


def read_bundle(bundle: Path, keyring: Path | None = None) -> BundleInfo:
    """The bundle's compatible and version; its signature checked first against ``keyring`` if given."""
    check = [f"--keyring={keyring}"] if keyring is not None else ["--no-verify"]
    try:
        done = subprocess.run(
            ["rauc", "info", *check, "--output-format=json", str(bundle)], capture_output=True, text=True, timeout=120
        )
    except FileNotFoundError as e:
        raise BundleError("RAUC is not installed here (on Debian: sudo apt install rauc)") from e
    except subprocess.TimeoutExpired as e:
        raise BundleError("RAUC did not read the bundle within 120 s") from e
    if done.returncode != 0:
        raise BundleError(rauc_reason(done.stderr + done.stdout))
    try:
        data = json.loads(done.stdout)
    except ValueError as e:
        raise BundleError(f"RAUC's word on the bundle is not JSON: {e}") from e
    compatible, version = (data.get("compatible"), data.get("version")) if isinstance(data, dict) else (None, None)
    if not isinstance(compatible, str) or not isinstance(version, str):
        raise BundleError("the bundle names no compatible or no version")
    signer = SIGNED_BY.search(done.stderr)
    return BundleInfo(compatible, version, signer.group(1) if signer else "")
