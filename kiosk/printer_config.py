"""The ``[printer]`` settings of the receipt printer: how it is connected, its paper, checked.

Configuration reads these without loading python-escpos; ``kiosk.printer`` talks to the printer.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from typing import Any

CONNECTIONS = ("none", "usb", "network", "serial")
PAPER_COLUMNS = {58: (32,), 80: (48, 42)}  # font A, 12 dots a character; the first is the default
DOTS = {32: 384, 42: 512, 48: 576}  # the printable width in dots at 203 dpi, for images
BAUDS = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
QR_MODES = ("auto", "native", "image")
_USB_ID = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}")


class PrinterConfigError(ValueError):
    """A printer setting that cannot work; the message names the key."""


@dataclass(frozen=True)
class PrinterConfig:
    """The receipt printer: how to reach it, its paper, and when to print."""

    connection: str = "none"  # none, usb, network or serial
    usb: str = ""  # vendor:product as lsusb shows it, e.g. "04b8:0e28"; empty: the first USB printer
    device: str = ""  # the device node: /dev/usb/lp0 (usb, instead of usb), /dev/ttyUSB0 (serial)
    host: str = ""  # the printer's IP address (network)
    port: int = 9100
    baud: int = 9600  # serial
    paper: int = 80  # roll width in mm: 58 or 80
    columns: int = 0  # characters a line; 0: 32 on 58 mm paper, 48 on 80 mm (42 for printers set so)
    profile: str = "default"  # python-escpos's printer profile: its code pages, whether it draws QR codes
    qr: str = "auto"  # native: the printer draws the QR code; image: sent as a picture; auto: as the profile says
    auto_print: bool = False  # print a receipt at every game over
    timeout: float = 10  # seconds to wait for the printer

    @property
    def width(self) -> int:
        """Characters a line."""
        return self.columns or PAPER_COLUMNS[self.paper][0]

    @property
    def dots(self) -> int:
        """The printable width in dots (a picture is never wider)."""
        return DOTS[self.width]

    @property
    def where(self) -> str:
        """The printer in words, for messages."""
        if self.connection == "usb":
            return f"USB {self.usb}" if self.usb else (self.device or "USB")
        if self.connection == "network":
            return f"{self.host}:{self.port}"
        if self.connection == "serial":
            return self.device
        return "none"

    def check(self) -> None:
        """PrinterConfigError naming the first key that cannot work."""
        if self.connection not in CONNECTIONS:
            raise PrinterConfigError(f"printer.connection: {self.connection!r} is not usb, network, serial or none")
        if self.paper not in PAPER_COLUMNS:
            raise PrinterConfigError(f"printer.paper: {self.paper!r} is not 58 or 80 (the roll's width in mm)")
        if self.columns and self.columns not in PAPER_COLUMNS[self.paper]:
            fits = " or ".join(str(c) for c in sorted(PAPER_COLUMNS[self.paper]))
            raise PrinterConfigError(f"printer.columns: {self.columns} does not fit {self.paper} mm paper ({fits})")
        if self.qr not in QR_MODES:
            raise PrinterConfigError(f"printer.qr: {self.qr!r} is not auto, native or image")
        if not 1 <= self.timeout <= 120:
            raise PrinterConfigError("printer.timeout: must be from 1 to 120 seconds")
        if self.profile != "default" and self.profile not in profiles():
            raise PrinterConfigError(
                f"printer.profile: {self.profile!r} is not a printer profile python-escpos knows "
                f"(known: {', '.join(profiles())})"
            )
        if self.usb and not _USB_ID.fullmatch(self.usb):
            raise PrinterConfigError(
                f"printer.usb: {self.usb!r} is not vendor:product as lsusb shows it, e.g. 04b8:0e28"
            )
        if self.device and not re.fullmatch(r"/dev/[\w./-]+", self.device):
            raise PrinterConfigError(f"printer.device: {self.device!r} is not a device under /dev")
        if not 1 <= self.port <= 65535:
            raise PrinterConfigError(f"printer.port: {self.port} is not a port number (1 to 65535)")
        if self.baud not in BAUDS:
            raise PrinterConfigError(f"printer.baud: {self.baud} is not one of {', '.join(map(str, BAUDS))}")
        if self.connection == "network":
            try:
                ipaddress.ip_address(self.host)
            except ValueError:
                raise PrinterConfigError(
                    f"printer.host: {self.host!r} is not an IP address (e.g. 192.168.1.50): the kiosk's service "
                    "may reach the printer's address and no other, so give the address, not a name"
                ) from None
        if self.connection == "serial" and not self.device:
            raise PrinterConfigError(
                'printer.device: give the serial port for connection = "serial", e.g. /dev/ttyUSB0'
            )


def profiles() -> list[str]:
    """The printer profiles python-escpos knows (read from its data, without loading the library)."""
    from importlib.resources import files

    try:
        data = json.loads((files("escpos") / "capabilities.json").read_text(encoding="utf-8"))
    except (ModuleNotFoundError, OSError, ValueError):
        return ["default"]
    return sorted(data.get("profiles", {"default": None}))


_WHOLE = ("port", "baud", "paper", "columns")
_TEXT = ("connection", "usb", "device", "host", "profile", "qr")


def printer_config(table: dict[str, Any] | None) -> PrinterConfig:
    """The ``[printer]`` table of the config file as a checked PrinterConfig."""
    if table is not None and not isinstance(table, dict):
        raise PrinterConfigError("printer: must be a table of settings ([printer])")
    table = dict(table or {})
    known = set(PrinterConfig.__dataclass_fields__)
    for key in table:
        if key not in known:
            raise PrinterConfigError(f"printer.{key}: unknown setting (known: {', '.join(sorted(known))})")
    for key in _WHOLE:
        if key in table and (isinstance(table[key], bool) or not isinstance(table[key], int)):
            raise PrinterConfigError(f"printer.{key}: must be a whole number")
    for key in _TEXT:
        if key in table and not isinstance(table[key], str):
            raise PrinterConfigError(f'printer.{key}: must be a text in quotes, e.g. {key} = "…"')
    if "auto_print" in table and not isinstance(table["auto_print"], bool):
        raise PrinterConfigError("printer.auto_print: must be true or false")
    if "timeout" in table and (isinstance(table["timeout"], bool) or not isinstance(table["timeout"], (int, float))):
        raise PrinterConfigError("printer.timeout: must be a number of seconds")
    for key in ("connection", "qr"):
        if key in table:
            table[key] = table[key].strip().lower()
    cfg = PrinterConfig(**table)
    cfg.check()
    return cfg


def service_access(cfg: PrinterConfig) -> str:
    """The kiosk service's drop-in that lets it reach this printer and nothing more ("" when the unit
    itself allows enough: USB printers are always allowed, see systemd/clabber-kiosk.service)."""
    lines = []
    if cfg.connection == "serial":
        # A USB serial adapter's node comes and goes with the cable: allow its kind of device, so a
        # printer plugged in after the kiosk started still works; a fixed port is allowed by its path.
        kind = re.fullmatch(r"/dev/(ttyUSB|ttyACM)\d+", cfg.device)
        lines += [f"DeviceAllow=char-{kind.group(1)} rw" if kind else f"DeviceAllow={cfg.device} rw"]
        lines += ["SupplementaryGroups=dialout"]
    elif cfg.connection == "network":
        family = "AF_INET6" if ipaddress.ip_address(cfg.host).version == 6 else "AF_INET"
        lines += [f"RestrictAddressFamilies={family}", f"IPAddressAllow={cfg.host}"]
    if not lines:
        return ""
    head = f"# Written by the installer from [printer] in /etc/clabber/config.toml: the printer at {cfg.where}.\n"
    return head + "[Service]\n" + "\n".join(lines) + "\n"
