"""``clabber update``: the updater (``agent``, root's service beside the kiosk), the boot's check of a
new version (``check``), and where the update stands (``status``).

The kiosk's side of RAUC is read from RAUC's own ``system.conf`` (its ``compatible`` and its
keyring), so the card's one file says which bundles this kiosk takes.
"""

from __future__ import annotations

import configparser
import json
import logging
import os
import signal
import subprocess
import sys
import threading
from dataclasses import asdict
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

import click

from kiosk.updates.state import rauc_conf, read_state, running_version, said, state_file

if TYPE_CHECKING:
    from kiosk.config import Config

TOUCHED = Path("/run/clabber-kiosk/touched")  # the kiosk's runtime folder (clabber-kiosk.service)
USB = Path("/mnt/clabber-usb")  # the backup stick (deploy/install.sh --usb)
EVERY = 30.0  # seconds between two looks of the agent


class SetupError(Exception):
    """This machine is not set up for updates; the message says what is missing."""


def _fail(why: str) -> NoReturn:
    click.echo(f"clabber update: {why}", err=True)
    sys.exit(1)


def read_system(conf: Path) -> tuple[str, Path]:
    """This board's ``compatible`` and the keyring its bundles must be signed for, from RAUC's
    ``system.conf`` (a relative keyring path is RAUC's: beside the file)."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(conf, encoding="utf-8") as f:
            parser.read_file(f)
    except OSError as e:
        raise SetupError(f"{conf}: {e.strerror}: this machine has no RAUC system (the card image has one)") from e
    except configparser.Error as e:
        raise SetupError(f"{conf}: not a RAUC system.conf ({e.message.splitlines()[0]})") from e
    compatible = parser.get("system", "compatible", fallback="").strip()
    keyring = parser.get("keyring", "path", fallback="").strip()
    if not compatible or not keyring:
        raise SetupError(f"{conf}: needs [system] compatible= and [keyring] path=")
    return compatible, (conf.parent / keyring) if not keyring.startswith("/") else Path(keyring)


def _config() -> Config:
    from kiosk.config import ConfigError, load_config

    try:
        return load_config()
    except ConfigError as e:
        _fail(str(e))


def reboot() -> None:
    """Into the slot RAUC chose (the new one, as a try; or back to the old one)."""
    subprocess.run(["systemctl", "reboot"], check=False)


@click.group("update")
def update() -> None:
    """The kiosk's updates: signed bundles from the league or the USB stick (docs/deploy.md)."""


@update.command("agent")
@click.option("--once", is_flag=True, help="One look, then stop (for checks).")
@click.option("--every", type=click.FloatRange(1, 3600), default=EVERY, show_default=True, help="Seconds a look.")
@click.option("--quiet-after", type=click.FloatRange(0), default=None, help="Seconds without a touch first (600).")
def agent_command(once: bool, every: float, quiet_after: float | None) -> None:
    """Take a new version from the league or the stick, between games (root's service)."""
    from kiosk.updates import agent, bundles

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        compatible, keyring = read_system(rauc_conf())
    except SetupError as e:
        _fail(str(e))
    where = state_file()
    usb = Path(os.environ.get("CLABBER_UPDATE_USB") or USB)
    places = agent.Places(
        state_file=where,
        downloads=where.parent / "bundles",
        kiosk_db=_config().db,
        touched=Path(os.environ.get("CLABBER_TOUCHED") or TOUCHED),
        usb=usb,
    )
    updater = agent.Updater(
        places,
        bundles.System(keyring=keyring, compatible=compatible, running=running_version()),
        restart=reboot,
        quiet_after=agent.QUIET_AFTER if quiet_after is None else quiet_after,
    )
    stop = threading.Event()

    def stopping(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    last = ""
    while True:
        found = updater.step()
        if said(found) != last:
            logging.getLogger("clabber.update").info("update: %s", said(found))
            last = said(found)
        if once or stop.wait(every):
            return


@update.command("check")
@click.option("--within", type=click.FloatRange(1), default=None, help="Seconds the new version has (300).")
def check_command(within: float | None) -> None:
    """At a boot after an install: keep the new version once it proves itself, else go back."""
    from kiosk.updates import health, probes, rauc
    from kiosk.updates.state import write_state

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cfg = _config()
    try:
        status = rauc.status()
    except rauc.RaucError as e:
        _fail(f"RAUC does not answer: {e}")
    where = state_file()
    checks = {
        "kiosk": probes.kiosk_service(),
        "database": probes.database(cfg.db),
        "result pages": probes.result_pages(cfg.serve_port),
        "league": probes.league_sync(cfg.db),
    }
    try:
        found = health.check(
            read_state(where),
            status,
            running_version(),
            checks,
            write=lambda s: write_state(where, s),
            restart=reboot,
            within=health.PROVE_WITHIN if within is None else within,
        )
    except rauc.RaucError as e:
        _fail(f"RAUC refused the boot's word on this system: {e}")
    click.echo(said(found))


@update.command("status")
@click.option("--json", "as_json", is_flag=True, help="The state as JSON.")
def status_command(as_json: bool) -> None:
    """Where this kiosk's update stands."""
    found = read_state(state_file())
    click.echo(json.dumps(asdict(found)) if as_json else said(found))
