"""A receipt in a printer's bytes (ESC/POS, through python-escpos's Dummy printer).

The text goes in the printer's code pages (python-escpos picks the page for each run of text, from
the printer's profile); the QR code is drawn by the printer itself (GS ( k) where its profile says
it can, else sent as a picture (GS v 0); then the paper is cut.
"""

from __future__ import annotations

import logging
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from kiosk.printer_config import PrinterConfig
from kiosk.receipt import Code, GameFacts, Line, Receipt, receipt


def load_escpos(state_dir: Path | None = None) -> None:
    """Imports python-escpos once, on our terms: it caches its printer data as a pickle in a fresh
    temporary folder at every import (one folder of ours instead: no litter, and no pickle read
    from /tmp), and it sets up Python's logging for the whole program unless that is done (its
    messages go where ours go instead).

    python-escpos writes its pickle in place and reads it without a lock: two programs importing
    it at once (the kiosk and a command, at first boot or after an upgrade) could read the other's
    half-written file and fail. So each import works in a private folder, from a copy of the kept
    pickle, and the pickle it leaves there replaces the kept one in one rename."""
    if "escpos.printer" in sys.modules:
        return
    private: Path | None = None
    if "ESCPOS_CAPABILITIES_PICKLE_DIR" not in os.environ:
        folder = (state_dir or Path.home() / ".cache" / "clabber") / "escpos"
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            private = Path(tempfile.mkdtemp(prefix="import-", dir=folder))
            kept = folder / _pickle_name()
            if kept.exists():
                shutil.copy2(kept, private / kept.name)  # its time kept: python-escpos compares it
            os.environ["ESCPOS_CAPABILITIES_PICKLE_DIR"] = str(private)
        except OSError:
            pass  # python-escpos makes its own temporary one
    root = logging.getLogger()
    guard = logging.NullHandler()  # logging.basicConfig() leaves a program with a handler alone
    root.addHandler(guard)
    try:
        import escpos.printer  # noqa: F401
    finally:
        root.removeHandler(guard)
        if private is not None:
            del os.environ["ESCPOS_CAPABILITIES_PICKLE_DIR"]  # read at import only; not for our children
            _keep_pickle(private)


def _pickle_name() -> str:
    """The name python-escpos gives its pickle."""
    return f"{platform.python_version()}.capabilities.pickle"


def _keep_pickle(private: Path) -> None:
    """The pickle an import left in its private folder becomes the kept one (a rename: whole or
    not at all); the private folder goes."""
    made = private / _pickle_name()
    try:
        if made.exists():
            os.replace(made, private.parent / made.name)
    except OSError:
        pass  # the next import makes it again
    finally:
        shutil.rmtree(private, ignore_errors=True)


def dummy(cfg: PrinterConfig) -> Any:
    """python-escpos's Dummy printer for this printer's profile, its paper width set to ours."""
    load_escpos()
    from escpos.printer import Dummy

    printer = Dummy(profile=cfg.profile)
    data = printer.profile.profile_data
    # The profile's own width, when it has one, is the printer's; ours is the paper's (and an
    # unknown width makes python-escpos print a warning on standard output at every picture).
    printer.profile.profile_data = {**data, "media": {**data.get("media", {}), "width": {"pixels": cfg.dots}}}
    return printer


def can_print(cfg: PrinterConfig) -> Callable[[str], bool]:
    """Whether the printer has a character in one of its profile's code pages."""
    from escpos.magicencode import Encoder

    encoder = Encoder(dummy(cfg).profile.get_code_pages())
    pages = list(encoder.codepages)

    def has(ch: str) -> bool:
        return any(encoder.can_encode(page, ch) for page in pages)

    return has


def native_qr(cfg: PrinterConfig) -> bool:
    """Whether the printer draws the QR code itself (GS ( k), as configured or as its profile says."""
    if cfg.qr != "auto":
        return cfg.qr == "native"
    return bool(dummy(cfg).profile.supports("qrCode"))


def receipt_bytes(rcpt: Receipt, cfg: PrinterConfig) -> bytes:
    """The printer's bytes for a receipt: text in the printer's code pages (python-escpos picks the
    page for each run of text), the QR code drawn by the printer or sent as a picture, then the cut."""
    from escpos.constants import QR_ECLEVEL_M

    from kiosk.receipt_image import module_size, qr_picture

    p = dummy(cfg)
    p.hw("INIT")
    native = native_qr(cfg)
    style: dict[str, Any] = {"align": "left", "bold": False, "big": False}  # as the printer is after INIT

    def restyle(align: str, bold: bool, big: bool) -> None:
        """Sends only what changes (each style command stays in force until the next)."""
        changed = {k: v for k, v in {"align": align, "bold": bold}.items() if style[k] != v}
        if big != style["big"]:
            changed.update(double_width=big, double_height=big, normal_textsize=True)
        if changed:
            p.set(**changed)
        style.update(align=align, bold=bold, big=big)

    for part in rcpt.parts:
        if isinstance(part, Line):
            restyle(part.align, part.bold, part.big)
            p.textln(part.text)
        elif isinstance(part, Code):
            restyle("center", False, False)
            if native:
                p.qr(part.url, ec=QR_ECLEVEL_M, size=module_size(part.url, cfg.dots), native=True)
                p.ln()
            else:
                p.image(qr_picture(part.url, cfg.dots), impl="bitImageRaster")
    restyle("left", False, False)
    p.cut()
    return bytes(p.output)


def receipt_of(
    facts: GameFacts,
    cfg: PrinterConfig,
    *,
    url: str,
    bar_name: str = "",
    table_name: str = "",
    tz: tzinfo | None = None,
    reprinted_at: datetime | None = None,
) -> Receipt:
    """A game's receipt in what this printer can print."""
    return receipt(
        facts,
        url=url,
        columns=cfg.width,
        bar_name=bar_name,
        table_name=table_name,
        tz=tz,
        reprinted_at=reprinted_at,
        can_print=can_print(cfg),
    )
