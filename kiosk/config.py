"""Configuration: one TOML file, environment overrides, then flags; every key has a default.

Looked for in ``$CLABBER_CONFIG``, else ``/etc/clabber/config.toml``, else
``~/.config/clabber/config.toml``; none is needed to start.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from kiosk.gpio_config import GpioConfig, GpioConfigError, gpio_config
from kiosk.printer_config import PrinterConfig, PrinterConfigError, printer_config

SYSTEM_CONFIG = Path("/etc/clabber/config.toml")


class ConfigError(ValueError):
    """A configuration value that cannot be used: says which key and why."""


def _data_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".local" / "share")
    return Path(base) / "clabber"


@dataclass(frozen=True)
class Config:
    """Every setting of the kiosk, with where it came from already resolved."""

    db: Path
    backup_dir: Path
    backups_keep: int = 14
    width: int = 800  # the panel, before rotation: 800x480 (7" display), 720x1280 (Touch Display 2)
    height: int = 480
    px_per_mm: float = 0  # the panel's pixels per millimetre; 0: known from its size (5.2 on the 7", 8.2 on TD2)
    rotation: int = 0  # degrees, 0 90 180 270: Kivy rotates (the kernel's rotation does not reach SDL)
    fullscreen: str = "auto"  # auto: fullscreen on the Pi's console (no desktop), a window on a desktop
    touch: str = "auto"  # auto: SDL finger events on the Pi's console, the mouse on a desktop
    dim_after: int = 300  # seconds without a touch before the screen dims; 0 never
    gpio: GpioConfig = field(default_factory=GpioConfig)  # the checked [gpio] table
    public_url: str = ""  # where phones reach the result pages, e.g. http://clabber-3.local:8080
    viewer_url: str = ""  # a copy of the static viewer page; default: the kiosk's own /view
    table_name: str = ""  # shown on the result pages, e.g. "Table 3"
    bar_name: str = ""  # at the top of a printed receipt, e.g. "The Red Lion"
    printer: PrinterConfig = field(default_factory=PrinterConfig)  # the checked [printer] table
    show_recent: bool = False  # let /recent list the table's recent games
    serve_host: str = "0.0.0.0"  # the result pages listen here (all of the Pi's addresses)
    serve_port: int = 8080
    source: str = "defaults"  # the config file read, for messages

    @property
    def damaged_dir(self) -> Path:
        """Where a damaged database is moved aside to (never deleted)."""
        return self.db.parent / "damaged"


# key -> (environment variable, parser)
def _path(value: Any) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a file path")
    return Path(value).expanduser()


def _whole(low: int, high: int, what: str) -> Any:
    """A parser for a whole number from ``low`` to ``high`` (also given as text, from the environment)."""

    def parse(value: Any) -> int:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"must be {what}")
        return value

    return parse


_count = _whole(1, 1000, "a whole number from 1 to 1000")
_pixels = _whole(200, 4000, "a whole number of pixels from 200 to 4000")
_port = _whole(0, 65535, "a port number from 0 to 65535")
_seconds = _whole(0, 86400, "a whole number of seconds from 0 (never) to 86400")


def _rotation(value: Any) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if value not in (0, 90, 180, 270) or isinstance(value, bool):
        raise ValueError("must be 0, 90, 180 or 270")
    return int(value)


def _switch(value: Any) -> str:
    text = str(value).strip().lower() if not isinstance(value, bool) else ("yes" if value else "no")
    if text in ("auto",):
        return "auto"
    if text in ("yes", "true", "1", "on"):
        return "yes"
    if text in ("no", "false", "0", "off"):
        return "no"
    raise ValueError("must be auto, yes or no")


def _density(value: Any) -> float:
    try:
        number = float(value) if not isinstance(value, bool) else -1
    except (TypeError, ValueError):
        number = -1
    if number != 0 and not 2 <= number <= 30:
        raise ValueError("must be the panel's pixels per millimetre, from 2 to 30 (0: from the panel's size)")
    return number


def _url(value: Any) -> str:
    if not isinstance(value, str) or not value.startswith(("http://", "https://")) or " " in value:
        raise ValueError("must be an http:// or https:// address")
    return value.rstrip("/")


def _text(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 60:
        raise ValueError("must be a text of at most 60 characters")
    return value.strip()


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "true", "1", "on"):
        return True
    if text in ("no", "false", "0", "off"):
        return False
    raise ValueError("must be true or false")


def _host(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or " " in value:
        raise ValueError("must be a host name or address")
    return value.strip()


KEYS = {
    "db": ("CLABBER_DB", _path),
    "backup_dir": ("CLABBER_BACKUP_DIR", _path),
    "backups_keep": (None, _count),
    "width": (None, _pixels),
    "height": (None, _pixels),
    "rotation": (None, _rotation),
    "px_per_mm": (None, _density),
    "fullscreen": (None, _switch),
    "touch": (None, _switch),
    "dim_after": (None, _seconds),
    "public_url": ("CLABBER_PUBLIC_URL", _url),
    "viewer_url": ("CLABBER_VIEWER_URL", _url),
    "table_name": ("CLABBER_TABLE_NAME", _text),
    "bar_name": (None, _text),
    "show_recent": (None, _flag),
    "serve_host": (None, _host),
    "serve_port": (None, _port),
}


def config_file(env: Mapping[str, str]) -> Path | None:
    """The config file in force, if any."""
    if env.get("CLABBER_CONFIG"):
        return Path(env["CLABBER_CONFIG"]).expanduser()
    for path in (SYSTEM_CONFIG, Path(env.get("HOME", "~")).expanduser() / ".config" / "clabber" / "config.toml"):
        if path.is_file():
            return path
    return None


def load_config(flags: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The configuration from file, environment and flags (later ones win); ConfigError names the key."""
    env = os.environ if env is None else env
    data_dir = _data_dir(env)
    config = Config(db=data_dir / "clabber.db", backup_dir=data_dir / "backups")
    values: dict[str, Any] = {}
    path = config_file(env)
    if path is not None:
        try:
            with open(path, "rb") as f:
                table = tomllib.load(f)
        except OSError as e:
            raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from None
        for key, value in table.items():
            if key in ("gpio", "printer"):
                values[key] = (value, f"{path}: {key}")
                continue
            if key not in KEYS:
                raise ConfigError(f"{path}: {key}: unknown setting (known: {', '.join([*KEYS, 'gpio', 'printer'])})")
            values[key] = (value, f"{path}: {key}")
        config = replace(config, source=str(path))
    for key, (var, _) in KEYS.items():
        if var and env.get(var):
            values[key] = (env[var], var)
    for key, value in (flags or {}).items():
        if value is not None and key != "gpio":
            values[key] = (value, f"--{key.replace('_', '-')}")
    parsed: dict[str, Any] = {}
    gpio_table, gpio_where = values.pop("gpio", ({}, "gpio"))

    try:
        if not isinstance(gpio_table, dict):
            raise GpioConfigError("gpio: must be a table of settings ([gpio])")
        parsed["gpio"] = gpio_config(gpio_table, (flags or {}).get("gpio"))
    except GpioConfigError as e:
        where = gpio_where.rsplit(": ", 1)[0] + ": " if ": " in gpio_where else ""
        raise ConfigError(f"{where}{e}") from None
    printer_table, printer_where = values.pop("printer", ({}, "printer"))
    try:
        if not isinstance(printer_table, dict):
            raise PrinterConfigError("printer: must be a table of settings ([printer])")
        parsed["printer"] = printer_config(printer_table)
    except PrinterConfigError as e:
        where = printer_where.rsplit(": ", 1)[0] + ": " if ": " in printer_where else ""
        raise ConfigError(f"{where}{e}") from None
    for key, (value, where) in values.items():
        try:
            parsed[key] = KEYS[key][1](value)
        except ValueError as e:
            raise ConfigError(f"{where}: {value!r} {e}") from None
    if "db" in parsed and "backup_dir" not in parsed:
        parsed["backup_dir"] = parsed["db"].parent / "backups"
    known = {f.name for f in fields(Config)}
    return replace(config, **{k: v for k, v in parsed.items() if k in known})


@dataclass(frozen=True)
class Display:
    """How the kiosk draws and takes input."""

    width: int = 800
    height: int = 480
    rotation: int = 0  # degrees; the kernel's rotation does not rotate an SDL app, Kivy's does
    fullscreen: bool = False
    touch: bool = False  # True: SDL finger events only (a touchscreen); False: the mouse provider only
    headless: bool = False  # draw offscreen (tests, benchmarks, screenshots)
    maxfps: int = 30  # a score sheet needs no more, and the Pi stays cool; 0: as fast as it can (measuring)


def kiosk_flags(
    *, db: str | None, size: str | None, rotation: str | None, fullscreen: bool | None, gpio: str | None
) -> dict[str, Any]:
    """``clabber kiosk``'s flags as settings: ``--size WxH`` is the width and the height."""
    flags: dict[str, Any] = {"db": db, "rotation": rotation, "gpio": gpio}
    if size:
        w, _, h = size.lower().partition("x")
        flags.update(width=w, height=h)
    if fullscreen is not None:
        flags["fullscreen"] = fullscreen
    return flags


def on_console(env: Mapping[str, str] | None = None) -> bool:
    """No desktop session: the Pi's console, where SDL draws straight to the display (KMS)."""
    env = os.environ if env is None else env
    return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def display_of(
    cfg: Config,
    stored: Callable[[str], str | None] | None,
    *,
    rotation: int | None,
    headless: bool,
    console: bool | None = None,
) -> Display:
    """How the kiosk draws: the command line's rotation, else the owner's stored choice, else the file;
    fullscreen and touch input on the console unless told otherwise, never when headless."""
    console = on_console() if console is None else console
    if rotation is None:
        rotation = int((stored("rotation") if stored else None) or cfg.rotation)
    return Display(
        width=cfg.width,
        height=cfg.height,
        rotation=rotation,
        headless=headless,
        fullscreen=(cfg.fullscreen == "yes" or (cfg.fullscreen == "auto" and console)) and not headless,
        touch=cfg.touch == "yes" or (cfg.touch == "auto" and console and not headless),
    )
