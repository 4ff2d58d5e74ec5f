"""Whether this kiosk takes a bundle: signed by a key it trusts, made for it, and newer than what
runs (an older one only when the owner forces it). Each refusal says why, in the owner's words."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shared.bundle import BundleError, BundleInfo, read_bundle, version_key


class Refusal(Exception):
    """The bundle is not for this kiosk, or not now; the message says why. ``version``: the
    bundle's, where it could be read; ``running``: it is the version running (nothing to do)."""

    def __init__(self, why: str, version: str = "", running: bool = False) -> None:
        super().__init__(why)
        self.version = version
        self.running = running


@dataclass(frozen=True)
class System:
    """What a bundle is judged against: the keys trusted, this board's name, the version running."""

    keyring: Path
    compatible: str
    running: str


def judge(bundle: Path, system: System, force_older: bool = False) -> BundleInfo:
    """The bundle's own word on itself, when this kiosk takes it; Refusal with why otherwise."""
    if not bundle.is_file():
        raise Refusal(f"{bundle}: no such bundle")
    try:
        found = read_bundle(bundle, system.keyring)
    except BundleError as e:
        raise Refusal(f"not signed by a key this kiosk trusts, or not a bundle ({e})") from e
    if found.compatible != system.compatible:
        raise Refusal(f"made for {found.compatible!r}, not for this kiosk ({system.compatible!r})", found.version)
    try:
        offered, running = version_key(found.version), version_key(system.running)
    except ValueError as e:
        raise Refusal(f"its version cannot be compared with the running one: {e}", found.version) from e
    if offered == running:
        raise Refusal(f"version {found.version} is the one running", found.version, running=True)
    if offered < running and not force_older:
        raise Refusal(
            f"version {found.version} is older than the running {system.running}: "
            "only the owner can put an older version back (Owner → Updates)",
            found.version,
        )
    return found
