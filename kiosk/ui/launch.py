"""``clabber kiosk`` from its settings to a running score sheet, and what it does on exit.

The order matters: the display is decided and Kivy configured (``boot.configure``) before the
app, and so Kivy, is imported. Trouble with the database (full, locked, read-only) does not stop
the kiosk: the app shows it and retries, since exiting would only make systemd start it again.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from kiosk.config import Config, display_of, on_console
from kiosk.store import StoreError
from kiosk.table import Table, open_table
from kiosk.updates.state import updater_here
from kiosk.updates.touched import touches_here

log = logging.getLogger("clabber.store")


class KivyStacks(logging.Filter):
    """Keeps the journal readable: Kivy writes a failing provider's stack into its messages; the
    first lines (what failed, and why) stay, the stack goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cut = message.find('\n  File "')
        if record.name.startswith("kivy") and cut >= 0:
            record.msg, record.args = message[:cut], None
        return True


def log_to_journal() -> None:
    """One line a message, to standard error (the journal on a Pi), Kivy's included."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(KivyStacks())


class CannotStart(RuntimeError):
    """The kiosk cannot start here, in words for the person at the console."""


def kivy_home(wanted: Path) -> Path:
    """Kivy's settings folder beside the database, or a temporary one when that cannot be written
    (a read-only disk): the kiosk then still starts and says what is wrong with the database."""
    try:
        wanted.mkdir(parents=True, exist_ok=True)
        free = os.statvfs(wanted)
        if os.access(wanted, os.W_OK) and free.f_bavail * free.f_frsize > 1024 * 1024:
            return wanted
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="clabber-kivy-"))


def run(cfg: Config, *, rotation: int | None, headless: bool, exit_at_first_frame: bool) -> str | None:
    """Runs the score sheet until it closes; the owner's exit action ("restart", "shutdown") or None.

    ``rotation`` is the command line's, which wins over the owner's stored choice and the file."""
    if not headless and on_console() and not any(Path("/dev/dri").glob("card*")):
        raise CannotStart(
            "no display here (no desktop session and no /dev/dri): run it on a desktop, on the Pi, or with --headless"
        )

    def reopen() -> tuple[Table, str | None]:
        table, report = open_table(cfg.db, cfg.backup_dir, cfg.damaged_dir, source="screen", updates=updater_here())
        for e in table.attention():
            log.warning("%s", e)
        return table, report.notice

    table: Table | None = None
    try:
        table, notice = reopen()
    except StoreError as e:
        notice = str(e)
        log.warning("%s", e)

    def stored(key: str) -> str | None:  # the owner's choice on the screen, which wins over the file
        return table.kiosk_setting(key, "") or None if table is not None else None

    display = display_of(cfg, stored, rotation=rotation, headless=headless)
    from kiosk.ui.boot import configure

    configure(display, kivy_home=kivy_home(cfg.db.parent / "kivy"))
    from kivy.core.window import Window

    from shared.share import base_url

    if Window is None:  # Kivy logged why; say it in words rather than fail on the first use
        raise CannotStart(
            "no window could be opened: OpenGL is missing or not working "
            "(on Debian: sudo apt install libegl1 libgl1 libgl1-mesa-dri)"
        )
    from kiosk.printer import ReceiptPrinter
    from kiosk.ui.app import KioskApp, post_to_main

    receipts = ReceiptPrinter(
        cfg.printer,
        base_url=base_url(cfg.public_url, cfg.serve_port),
        bar_name=cfg.bar_name,
        table_name=cfg.table_name,
        post=post_to_main,  # each outcome is told on the screen's thread
        state_dir=cfg.db.parent,
    )
    dim_after = int(stored("dim_after") or cfg.dim_after)
    app: Any = KioskApp(
        table,
        notice,
        dim_after=dim_after,
        backup_dir=cfg.backup_dir,
        backups_keep=cfg.backups_keep,
        exit_at_first_frame=exit_at_first_frame,
        gpio=cfg.gpio,
        state_dir=cfg.db.parent,
        public_url=base_url(cfg.public_url, cfg.serve_port),
        reopen=reopen,
        retry_every=float(os.environ.get("CLABBER_RETRY_SECONDS", "10")),
        px_per_mm=cfg.px_per_mm or None,
        panel=(cfg.width, cfg.height),
        receipts=receipts,
        touches=touches_here(),
    )
    try:
        app.run()
    finally:
        if app.table is not None:
            app.table.close(fold_log=True)
    action: str | None = app.exit_action
    return action


def after(exit_action: str | None) -> None:
    """The owner's choice on the way out: start again, or power the Pi off (as the systemd service)."""
    if exit_action == "restart":
        os.execv(sys.executable, [sys.executable, "-m", "kiosk", *sys.argv[1:]])
    if exit_action == "shutdown" and os.environ.get("INVOCATION_ID"):
        os.execvp("systemctl", ["systemctl", "poweroff"])
