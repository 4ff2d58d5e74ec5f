"""Drives the kiosk as a player would: taps at a widget's centre through Kivy's event loop."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.tests.common import UnitTestTouch
from kivy.uix.recycleview import views as recycled_views

from kiosk.recovery import open_store
from kiosk.table import Table
from kiosk.ui import theme
from kiosk.ui.app import KioskRoot, load_style

LANDSCAPE = (800, 480)
PORTRAIT = (720, 1280)


class Kiosk:
    """One kiosk on a real database file, its root widget in the (offscreen) window."""

    def __init__(
        self,
        db: Path,
        size: tuple[int, int] = LANDSCAPE,
        notice: str | None = None,
        check_layout: bool = False,
        lights: bool = False,
    ) -> None:
        """``check_layout``: after every tap the screen is checked as a player would see it
        (tests/ui/layout.py), and a fault fails the tap. ``lights``: the seat lights drawn in the
        header, as a desktop kiosk with no GPIO shows them."""
        EventLoop.ensure_window()
        theme.set_panel(theme.panel_px_per_mm(*size))  # the screens are built for this panel
        # Kivy keeps the rows a list has let go (the sheet's lines) for any list of the process to
        # take again, with the sizes they were built with: an earlier test's, perhaps for the other
        # panel. A kiosk never changes its panel; a test process does, so it starts without them.
        recycled_views._cached_views.clear()
        load_style()
        self.db = db
        self.store, report = open_store(db, db.parent / "backups")
        self.table = Table(self.store, rng=random.Random(7))
        self.taps = 0
        self.resize(size)
        self.check_layout = check_layout
        self.lights = lights
        self.root = KioskRoot(self.table, notice or report.notice)
        self._show_lights()
        Window.add_widget(self.root)
        self.frames(3)

    def _show_lights(self) -> None:
        if self.lights:
            header = self.root.header
            header.show_lights = True
            header.lights = header.dealer
            header.bind(dealer=lambda _h, seat: setattr(header, "lights", seat))

    def resize(self, size: tuple[int, int]) -> None:
        Window.size = size
        self.frames(3)

    def restart(self) -> None:
        """The kiosk restarted: a new controller and screen on the same file."""
        self.root.owner_pin = ""  # its timers end with it, as they do with the process
        Window.remove_widget(self.root)
        self.store.close()
        self.store, report = open_store(self.db, self.db.parent / "backups")
        self.table = Table(self.store, rng=random.Random(8))
        self.root = KioskRoot(self.table, report.notice)
        self._show_lights()
        Window.add_widget(self.root)
        self.frames(3)

    def close(self) -> None:
        self.root.owner_pin = ""
        for child in list(Window.children):
            Window.remove_widget(child)
        self.store.close()

    # ---- looking -----------------------------------------------------------------------------------

    @property
    def screen(self) -> Any:
        return self.root.manager.current_screen

    def widget(self, name: str) -> Any:
        """A widget of the current screen (or of an open popup, or the header) by its id."""
        for holder in [*self._popups(), self.screen, self.root.header, self.root.banner]:
            if name in holder.ids:
                return holder.ids[name]
        raise KeyError(f"no widget {name!r} on the {self.root.manager.current} screen")

    def text(self, name: str) -> str:
        """A widget's text as a player reads it (a no-break space is a space)."""
        return str(self.widget(name).text).replace("\u00a0", " ")

    def _popups(self) -> list[Any]:
        from kivy.uix.modalview import ModalView

        return [w for w in Window.children if isinstance(w, ModalView)]

    # ---- acting ------------------------------------------------------------------------------------

    def frames(self, n: int = 2) -> None:
        for _ in range(n):
            EventLoop.idle()

    def tap(self, name_or_widget: Any) -> None:
        """A finger down and up at the widget's centre, through the window's input dispatch."""
        w = self.widget(name_or_widget) if isinstance(name_or_widget, str) else name_or_widget
        assert not w.disabled, f"{name_or_widget!r} is disabled"
        x, y = w.to_window(*w.center)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.taps += 1
        self.frames(2)
        if self.check_layout:
            self.assert_layout(f"after tapping {_said(w)}")

    def drag(self, name_or_widget: Any, dy: float, steps: int = 10) -> None:
        """A finger laid on the widget and drawn ``dy`` pixels up (down if negative), a move every
        20 ms as a finger moves, then lifted; the screen left to settle."""
        w = self.widget(name_or_widget) if isinstance(name_or_widget, str) else name_or_widget
        x, y = w.to_window(w.center_x, w.y + w.height * (0.2 if dy > 0 else 0.8))
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        for i in range(1, steps + 1):
            time.sleep(0.02)
            touch.touch_move(x, y + dy * i / steps)
            EventLoop.idle()
        touch.touch_up()
        self.wait(0.4)  # whatever the list does after the lift ends
        if self.check_layout:
            self.assert_layout("after a drag")

    def where(self) -> str:
        """The screen (and its step, and any pop-up) in a few words."""
        screen = self.screen
        step = getattr(screen, "step", "")
        popups = [type(p).__name__ for p in self._popups()]
        return " ".join([self.root.manager.current, step, *popups]).strip()

    def assert_layout(self, how: str = "") -> None:
        """Fails when the screen as drawn now has a layout fault a player would see."""
        from tests.ui.layout import problems

        self.settle()
        found = problems(f"{Window.width}x{Window.height} {self.where()}")
        assert not found, f"{how}:\n" + "\n".join(dict.fromkeys(found))

    def settle(self, most: int = 8) -> None:
        """Frames until the layout stops moving (a text that changed its size moves its neighbours
        a frame or two later): what a player sees once it is drawn."""

        from kivy.uix.label import Label

        def where() -> list[tuple[float, ...]]:
            found = []
            for child in Window.children:
                for w in child.walk(restrict=True):
                    if isinstance(w, Label):
                        w.texture_update()  # a text just changed: its new size, now
                    found.append((*w.pos, *w.size))
            return found

        before, still = where(), 0
        for _ in range(most):
            self.frames(1)
            now = where()
            still = still + 1 if now == before else 0
            if still == 2:
                return
            before = now

    def press_key(self, key: int, scancode: int = 0, text: str | None = None) -> None:
        """A key on a USB keyboard, down and up, dispatched as SDL's window dispatches it."""
        if not Window.dispatch("on_key_down", key, scancode, text, []):
            Window.dispatch("on_keyboard", key, scancode, text, [])
        Window.dispatch("on_key_up", key, scancode)
        self.frames(2)

    def wait(self, seconds: float) -> None:
        """Lets the Kivy clock run for ``seconds`` of real time."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            EventLoop.idle()
            time.sleep(0.01)

    def tap_text(self, text: str) -> None:
        """Taps the visible button whose text contains ``text``."""
        from kivy.uix.button import Button

        roots = self._popups() or [self.screen]
        for root in roots:
            for w in root.walk():
                if isinstance(w, Button) and text in w.text and not w.disabled and w.opacity > 0:
                    self.tap(w)
                    return
        raise KeyError(f"no button {text!r} on the {self.root.manager.current} screen")

    def tap_exact(self, text: str) -> None:
        """Taps the visible button whose text is exactly ``text``."""
        from kivy.uix.button import Button

        roots = self._popups() or [self.screen]
        for root in roots:
            for w in root.walk():
                if isinstance(w, Button) and w.text == text and not w.disabled and w.opacity > 0:
                    self.tap(w)
                    return
        raise KeyError(f"no button {text!r} on the {self.root.manager.current} screen")

    def screenshot(self, path: Path) -> Path:
        """The window as drawn, saved to exactly ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.frames(3)
        path.unlink(missing_ok=True)
        saved = Path(Window.screenshot(name=str(path)))  # Kivy adds a counter: path stem + 0001
        saved.replace(path)
        return path


def _said(w: Any) -> str:
    text = getattr(w, "text", "")
    return repr(text[:20]) if text else type(w).__name__
