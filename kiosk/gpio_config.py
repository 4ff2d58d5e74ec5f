"""The ``[gpio]`` settings of the dealer buttons and seat lights: pins, polarity, timings, checked.

Configuration reads these without loading gpiozero; ``kiosk.buttons`` wires them to the pins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEATS = ("N", "E", "S", "W")
GPIO_PINS = range(2, 28)  # BCM numbers on the 40-pin header


class GpioConfigError(ValueError):
    """A pin setting that cannot work; the message names the key."""


@dataclass(frozen=True)
class GpioConfig:
    """Pins (BCM numbers) and timings of the dealer buttons and seat lights."""

    mode: str = "auto"  # auto: the Pi's pins if there are any, else mock; mock; off
    next_pin: int = 17
    back_pin: int = 27
    seat_button_pins: dict[str, int] = field(default_factory=dict)  # optional: {"N": 22, ...}
    led_pins: dict[str, int] = field(default_factory=lambda: {"N": 5, "E": 6, "S": 13, "W": 19})
    pull_up: bool = True  # buttons wired to ground
    leds_active_high: bool = True
    debounce_ms: int = 40  # edges closer than this to the previous one are contact bounce
    hold_s: float = 1.5  # a BACK press this long undoes instead

    def check(self) -> None:
        """GpioConfigError naming the first key that cannot work."""
        if self.mode not in ("auto", "mock", "off"):
            raise GpioConfigError(f"gpio.mode: {self.mode!r} is not auto, mock or off")
        pins: dict[int, str] = {}
        named = [("gpio.next_pin", self.next_pin), ("gpio.back_pin", self.back_pin)]
        named += [(f"gpio.seat_button_pins.{s}", p) for s, p in self.seat_button_pins.items()]
        named += [(f"gpio.led_pins.{s}", p) for s, p in self.led_pins.items()]
        for seat in list(self.seat_button_pins) + list(self.led_pins):
            if seat not in SEATS:
                raise GpioConfigError(f"gpio: {seat!r} is not a seat (N, E, S or W)")
        if sorted(self.led_pins) != sorted(SEATS):
            raise GpioConfigError("gpio.led_pins: give a pin for each of N, E, S and W")
        for key, pin in named:
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in GPIO_PINS:
                raise GpioConfigError(f"{key}: {pin!r} is not a GPIO pin (BCM 2 to 27)")
            if pin in pins:
                raise GpioConfigError(f"{key}: pin {pin} is already used by {pins[pin]}")
            pins[pin] = key
        if not 1 <= self.debounce_ms <= 500:
            raise GpioConfigError("gpio.debounce_ms: must be from 1 to 500")
        if not 0.3 <= self.hold_s <= 10:
            raise GpioConfigError("gpio.hold_s: must be from 0.3 to 10 seconds")


def gpio_config(table: dict[str, Any] | None, mode: str | None = None) -> GpioConfig:
    """The ``[gpio]`` table of the config file (and ``--gpio``) as a checked GpioConfig."""
    table = dict(table or {})
    known = set(GpioConfig.__dataclass_fields__)
    for key in table:
        if key not in known:
            raise GpioConfigError(f"gpio.{key}: unknown setting (known: {', '.join(sorted(known))})")
    if mode is not None:
        table["mode"] = mode
    for key in ("debounce_ms",):
        if key in table and (isinstance(table[key], bool) or not isinstance(table[key], int)):
            raise GpioConfigError(f"gpio.{key}: must be a whole number")
    if "hold_s" in table and (isinstance(table["hold_s"], bool) or not isinstance(table["hold_s"], (int, float))):
        raise GpioConfigError("gpio.hold_s: must be a number of seconds")
    for key in ("pull_up", "leds_active_high"):
        if key in table and not isinstance(table[key], bool):
            raise GpioConfigError(f"gpio.{key}: must be true or false")
    for key in ("seat_button_pins", "led_pins"):
        if key in table and not isinstance(table[key], dict):
            raise GpioConfigError(f"gpio.{key}: must be a table of seat = pin, e.g. {{N = 5, E = 6, S = 13, W = 19}}")
    cfg = GpioConfig(**table)
    cfg.check()
    return cfg
