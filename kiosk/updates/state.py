"""The updater's state: one small JSON file the updater writes and the kiosk's screen and its sync
worker read (the owner's screen, the league's fleet page). Written whole and renamed into place, so
a reader sees the old state or the new one, never half of one."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shared import update_states as S
from shared.bundle import version_key

BUSY = (S.INSTALLING,)  # no new game while the slot is written
REQUEST_KEY = "update_request"  # the owner's word to the updater (Table.ask_update), a kiosk setting
STATE_FILE = Path("/var/lib/clabber-update/state.json")  # the updater's own folder, which the kiosk may read
RAUC_CONF = Path("/etc/rauc/system.conf")  # RAUC's system: present on a card with two slots


def state_file(env: dict[str, str] | None = None) -> Path:
    """Where the updater writes its state: ``CLABBER_UPDATE_STATE``, else its state directory."""
    env = dict(os.environ) if env is None else env
    return Path(env["CLABBER_UPDATE_STATE"]) if env.get("CLABBER_UPDATE_STATE") else STATE_FILE


def rauc_conf(env: dict[str, str] | None = None) -> Path:
    """RAUC's system file: ``CLABBER_RAUC_CONF``, else RAUC's own place."""
    env = dict(os.environ) if env is None else env
    return Path(env["CLABBER_RAUC_CONF"]) if env.get("CLABBER_RAUC_CONF") else RAUC_CONF


def updater_here(env: dict[str, str] | None = None) -> Path | None:
    """The updater's state file where this machine updates itself (a card with RAUC's two slots,
    or ``CLABBER_UPDATE_STATE`` given); None on a Pi set up by hand, which the installer updates."""
    env = dict(os.environ) if env is None else env
    if env.get("CLABBER_UPDATE_STATE") or rauc_conf(env).is_file():
        return state_file(env)
    return None


@dataclass(frozen=True)
class UpdateState:
    """Where the update of this kiosk stands. ``version``: the version offered or being put in;
    ``running``: the version running; ``source``: "league" or "usb"; ``why``: a refusal's or a
    rollback's reason, or what the updater waits for."""

    state: str = S.UP_TO_DATE
    running: str = ""
    version: str = ""
    percent: int = 0
    source: str = ""
    why: str = ""
    slot: str = ""  # the slot running when this state was written (A, B)
    bundle: str = ""  # the bundle file offered or being put in
    previous: str = ""  # the slot that ran before this update was written: where a rollback lands
    at: str = ""

    def to(self, state: str, **changes: Any) -> UpdateState:
        """This state moved on: ``percent`` and ``why`` start afresh unless given."""
        return replace(self, state=state, percent=changes.pop("percent", 0), why=changes.pop("why", ""), **changes)


def running_version() -> str:
    """The version of the kiosk running (the system slot's: one version a slot)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("clabber-kiosk")
    except PackageNotFoundError:
        return "0+unknown"


def read_state(path: Path) -> UpdateState:
    """The state as last written; "up to date" when there is none or it cannot be read (a reader
    never stops for it: the updater writes it again at its next step)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return UpdateState()
    if not isinstance(data, dict) or data.get("state") not in S.STATES:
        return UpdateState()
    fields = UpdateState.__dataclass_fields__
    kept = {k: v for k, v in data.items() if k in fields and isinstance(v, type(getattr(UpdateState(), k)))}
    return UpdateState(**kept)


def write_state(path: Path, state: UpdateState) -> UpdateState:
    """Writes ``state`` (stamped with the time) whole; returns it as written."""
    state = replace(state, at=datetime.now(UTC).isoformat(timespec="seconds"))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".new")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(asdict(state), f)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, 0o644)  # the kiosk and its sync worker read it
    os.replace(tmp, path)
    return state


def can_put_back(s: UpdateState) -> bool:
    """A bundle refused only for being older than the running version: the owner may force it."""
    if s.state != S.REFUSED or not s.version or not s.running:
        return False
    try:
        return version_key(s.version) < version_key(s.running)
    except ValueError:
        return False


def said(s: UpdateState, percent: bool = True) -> str:
    """The state in a line for the owner's screen (``percent`` False: a bar beside it shows it)."""
    done = f": {s.percent} %" if percent else ""
    match s.state:
        case S.OFFERED:
            where = "on the USB stick" if s.source == "usb" else "from the league"
            return f"Version {s.version} {where} can be installed"
        case S.DOWNLOADING:
            return f"Downloading version {s.version}{done}" + (f" ({s.why})" if s.why else "")
        case S.DOWNLOADED:
            return f"Version {s.version} is ready: it is installed when no game is open"
        case S.INSTALLING:
            return f"Writing version {s.version}{done}"
        case S.INSTALLED:
            return f"Version {s.version} is installed: the kiosk restarts into it when no game is open"
        case S.TRYING:
            return f"Trying version {s.version}: it is kept once it has proved itself"
        case S.COMMITTED:
            return f"Version {s.running} runs"
        case S.ROLLED_BACK:
            return f"Rolled back from version {s.version}: {s.why}"
        case S.REFUSED if can_put_back(s):
            where = " on the USB stick" if s.source == "usb" else " from the league"
            return (
                f"Version {s.version}{where} is older than the running {s.running}: it goes in only if you put it back"
            )
        case S.REFUSED:
            return f"Version {s.version or '?'} refused: {s.why}"
    return f"Version {s.running} runs: up to date" if s.running else "Up to date"
