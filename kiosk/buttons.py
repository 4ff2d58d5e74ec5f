"""The dealer buttons and seat lights on the Pi's GPIO (gpiozero).

NEXT passes the deal to the left, BACK moves it back, a long press of BACK undoes the last
action; optional seat buttons say "this seat deals". Four seat lights show the dealer.

gpiozero calls back on its own threads: every press is handed to the kiosk's main thread
through ``post`` and acted on there; nothing here touches the store. Presses are debounced
here too, because some pin factories (the mock one among them) ignore ``bounce_time``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiosk.gpio_config import SEATS, GpioConfig, GpioConfigError, gpio_config

__all__ = ["SEATS", "DealerPanel", "GpioConfig", "GpioConfigError", "gpio_config", "pin_factory"]

log = logging.getLogger("clabber.gpio")

Post = Callable[[Callable[[], None]], None]  # runs a function on the kiosk's main thread


class Debounce:
    """Accepts an edge only after the line was quiet for a while: a bounce train counts once."""

    def __init__(self, quiet_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.quiet_s = quiet_s
        self.clock = clock
        self.last = float("-inf")
        self.lock = threading.Lock()

    def edge(self) -> bool:
        with self.lock:
            now = self.clock()
            quiet = now - self.last >= self.quiet_s
            self.last = now
            return quiet


def on_a_pi(model: Path = Path("/proc/device-tree/model")) -> bool:
    """Whether this is a Raspberry Pi (so that probing for its GPIO is worth the time)."""
    try:
        return "Raspberry Pi" in model.read_text(errors="replace")
    except OSError:
        return False


def pin_factory(mode: str, state_dir: Path | None = None) -> tuple[Any, str]:
    """The pin factory for ``mode`` and what it is, in words for the log."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    if mode == "mock":
        return MockFactory(), "mock pins (no GPIO hardware used)"
    if not on_a_pi():
        return MockFactory(), "no GPIO hardware (not a Raspberry Pi); using mock pins"
    if state_dir is not None:
        # lgpio (the Pi 5's factory) writes notification files into its working directory.
        state_dir.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("LG_WD", str(state_dir))
    try:
        with warnings.catch_warnings():  # each factory tried and passed over is one warning: we say it once
            warnings.simplefilter("ignore")
            Device.ensure_pin_factory()
        factory = Device.pin_factory
        return factory, f"GPIO through {type(factory).__name__}"
    except Exception as e:
        return MockFactory(), f"no GPIO hardware ({type(e).__name__}: {e}); using mock pins"


class DealerPanel:
    """The buttons and lights, wired to the kiosk through two functions.

    ``post(fn)`` runs ``fn`` on the kiosk's main thread; ``act(kind, arg)`` is called there with
    "next", "back", "undo" or ("seat", "N").
    """

    def __init__(
        self,
        cfg: GpioConfig,
        factory: Any,
        act: Callable[[str, Any], None],
        post: Post,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from gpiozero import Button, LEDBoard

        self.cfg, self.factory, self.act, self.post = cfg, factory, act, post
        quiet = cfg.debounce_ms / 1000
        self._debounce = {name: Debounce(quiet, clock) for name in ("next", "back", *cfg.seat_button_pins)}
        self._back_down = False
        self._back_held = False

        def button(pin: int) -> Any:
            # bounce_time is left to Debounce: some factories ignore it, and one rule is enough.
            return Button(pin, pull_up=cfg.pull_up, bounce_time=None, hold_time=cfg.hold_s, pin_factory=factory)

        self.next = button(cfg.next_pin)
        self.back = button(cfg.back_pin)
        self.next.when_pressed = self._next_pressed
        self.next.when_released = lambda: self._debounce["next"].edge()
        self.back.when_pressed = self._back_pressed
        self.back.when_released = self._back_released
        self.back.when_held = self._back_held_down
        self.seat_buttons = {}
        for seat, pin in cfg.seat_button_pins.items():
            b = button(pin)
            b.when_pressed = lambda seat=seat: self._seat_pressed(seat)
            b.when_released = lambda seat=seat: self._debounce[seat].edge()
            self.seat_buttons[seat] = b
        self.lights = LEDBoard(
            **{s: cfg.led_pins[s] for s in SEATS}, _order=SEATS, active_high=cfg.leds_active_high, pin_factory=factory
        )
        self._wanted: str | None = None  # the dealer's seat, "over", or None
        self._playing = False  # a pattern is running; it shows the wanted state when done
        self._lock = threading.Lock()

    # ---- from gpiozero's threads: hand over, never act here ----------------------------------------

    def _next_pressed(self) -> None:
        if self._debounce["next"].edge():
            self.post(lambda: self.act("next", None))

    def _seat_pressed(self, seat: str) -> None:
        if self._debounce[seat].edge():
            self.post(lambda: self.act("seat", seat))

    def _back_pressed(self) -> None:
        if self._debounce["back"].edge() and not self._back_down:
            self._back_down, self._back_held = True, False

    def _back_held_down(self) -> None:
        if self._back_down and not self._back_held:
            self._back_held = True  # is_held is already false by when_released: keep our own
            self.post(lambda: self.act("undo", None))

    def _back_released(self) -> None:
        self._debounce["back"].edge()
        if self._back_down:
            self._back_down = False
            if not self._back_held:
                self.post(lambda: self.act("back", None))

    # ---- on the main thread ------------------------------------------------------------------------------

    def show(self, dealer: str | None, over: bool = False) -> None:
        """Lights the dealer's seat; all four blink when the game is over."""
        wanted = "over" if over else dealer
        with self._lock:
            if wanted == self._wanted and not self._playing:
                return
            self._wanted = wanted
            if not self._playing:
                self._apply(wanted)

    def _apply(self, wanted: str | None) -> None:
        if wanted == "over":
            self.lights.blink(on_time=0.5, off_time=0.5)
            return
        self.lights.off()
        if wanted in SEATS:
            getattr(self.lights, wanted).on()

    def self_test(self) -> None:
        """A short chase round the table at start-up: every light works."""
        self._pattern([(s,) for s in SEATS] + [SEATS, ()], 0.15)

    def refused(self) -> None:
        """A quick double flash of all four: that press was refused."""
        self._pattern([SEATS, (), SEATS, ()], 0.08)

    def _pattern(self, frames: list[tuple[str, ...]], step: float) -> None:
        """Plays a pattern in the background, then shows the dealer again (the screen never waits)."""

        def play() -> None:
            time.sleep(step)
            for lit in frames:
                self.lights.value = tuple(1 if s in lit else 0 for s in SEATS)
                time.sleep(step)
            with self._lock:
                self._playing = False
                self._apply(self._wanted)

        with self._lock:
            if self._playing:
                return
            self._playing = True
        first, frames = frames[0], frames[1:]
        self.lights.value = tuple(1 if s in first else 0 for s in SEATS)  # at once: the press is answered
        threading.Thread(target=play, name="seat-light-pattern", daemon=True).start()

    def lit(self) -> dict[str, bool]:
        """Which seat lights are on now (the on-screen lights in mock mode read this)."""
        return {s: bool(getattr(self.lights, s).value) for s in SEATS}

    def close(self) -> None:
        for device in (self.next, self.back, *self.seat_buttons.values(), self.lights):
            device.close()
