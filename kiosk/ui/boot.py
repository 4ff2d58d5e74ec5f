"""Sets up Kivy before it is first imported: window, rotation, one input path, fonts.

Kivy reads its configuration when first imported, so everything here happens before any
``import kivy``; ``clabber kiosk`` calls ``configure`` and only then imports the app.
"""

from __future__ import annotations

import os
from pathlib import Path

from kiosk.config import Display

__all__ = ["Display", "configure", "font_path"]

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))


def font_path(bold: bool = False, mono: bool = False) -> str:
    """DejaVu Sans, which has the suit symbols Kivy's own font lacks; ``mono``: DejaVu Sans Mono,
    for a link to be typed (its l, I and 1, O and 0 told apart)."""
    name = ("DejaVuSansMono" if mono else "DejaVuSans") + ("-Bold.ttf" if bold else ".ttf")
    for folder in FONT_DIRS:
        if (folder / name).is_file():
            return str(folder / name)
    raise RuntimeError(f"the font {name} is missing: install it with 'sudo apt install fonts-dejavu-core'")


def configure(display: Display, kivy_home: Path | None = None) -> None:
    """Environment and Kivy config for ``display``; must run before Kivy is imported."""
    os.environ["KIVY_NO_ARGS"] = "1"  # our command line is ours
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    os.environ["KIVY_WINDOW"] = "sdl2"
    if kivy_home is not None:
        kivy_home.mkdir(parents=True, exist_ok=True)
        os.environ["KIVY_HOME"] = str(kivy_home)
    if display.headless:
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
    if display.touch:
        # One input path (a Pi's console otherwise registers every tap twice): SDL's finger
        # events, with SDL's synthetic mouse events from the same touches switched off.
        os.environ["SDL_TOUCH_MOUSE_EVENTS"] = "0"
    from kivy.config import Config

    Config.set("graphics", "width", str(display.width))
    Config.set("graphics", "height", str(display.height))
    Config.set("graphics", "rotation", str(display.rotation))
    Config.set("graphics", "maxfps", str(display.maxfps))
    Config.set("graphics", "fullscreen", "auto" if display.fullscreen else "0")
    Config.set("graphics", "show_cursor", "0" if display.touch else "1")
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("kivy", "keyboard_mode", "system")  # never a Kivy virtual keyboard: ours are on screen
    # Replace every configured input provider (Kivy adds probesysfs on Linux, which would read
    # the touchscreen a second time) with exactly one.
    for name in list(Config.options("input")):
        Config.remove_option("input", name)
    if not display.touch:
        Config.set("input", "mouse", "mouse,disable_multitouch")
    # No developer modules (inspector, console, screen keys, recorder), whatever a config.ini in
    # Kivy's home asks for: on the kiosk a key on a USB keyboard must not open them.
    for name in list(Config.options("modules")):
        Config.remove_option("modules", name)
