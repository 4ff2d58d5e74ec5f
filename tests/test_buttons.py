"""The dealer buttons and seat lights, on gpiozero's own mock pin factory."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from kiosk.buttons import DealerPanel, GpioConfig, GpioConfigError, gpio_config, pin_factory

CFG = GpioConfig(seat_button_pins={"N": 22, "E": 23, "S": 24, "W": 25}, hold_s=0.3, debounce_ms=40)


class Bench:
    """A panel on mock pins; what it hands to the main thread waits in a queue until drained."""

    def __init__(self, cfg: GpioConfig = CFG) -> None:
        self.factory = MockFactory()
        self.queue: list = []
        self.acted: list = []
        self.main = threading.current_thread()
        self.panel = DealerPanel(cfg, self.factory, act=self.act, post=self.queue.append)

    def act(self, kind, arg):
        self.acted.append((kind, arg, threading.current_thread() is self.main))

    def drain(self) -> list:
        while self.queue:
            self.queue.pop(0)()
        return [(k, a) for k, a, _ in self.acted]

    def press(self, pin: int, hold: float = 0.05) -> None:
        p = self.factory.pin(pin)
        p.drive_low()
        time.sleep(hold)
        p.drive_high()
        time.sleep(0.06)

    def bounce(self, pin: int, ms: float = 30) -> None:
        """Contact bounce: the line chatters for ``ms`` before it settles low, then released cleanly."""
        p = self.factory.pin(pin)
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end:
            p.drive_low()
            time.sleep(0.002)
            p.drive_high()
            time.sleep(0.002)
        p.drive_low()
        time.sleep(0.08)
        p.drive_high()
        time.sleep(0.06)


@pytest.fixture
def bench():
    b = Bench()
    yield b
    b.panel.close()


def test_next_passes_the_deal_once_per_press(bench):
    bench.press(CFG.next_pin)
    assert bench.drain() == [("next", None)]


def test_back_moves_the_deal_back_on_release(bench):
    bench.press(CFG.back_pin)
    assert bench.drain() == [("back", None)]


def test_a_long_press_of_back_undoes_and_does_not_also_move_the_deal(bench):
    bench.press(CFG.back_pin, hold=0.6)
    assert bench.drain() == [("undo", None)]


def test_a_seat_button_says_this_seat_deals(bench):
    bench.press(24)
    assert bench.drain() == [("seat", "S")]


def test_a_button_that_bounces_for_30_ms_moves_the_deal_once(bench):
    bench.bounce(CFG.next_pin, ms=30)
    assert bench.drain() == [("next", None)]
    bench.bounce(CFG.back_pin, ms=30)
    assert bench.drain() == [("next", None), ("back", None)]


def test_two_real_presses_200_ms_apart_move_it_twice(bench):
    p = bench.factory.pin(CFG.next_pin)
    p.drive_low()
    time.sleep(0.05)
    p.drive_high()
    time.sleep(0.15)
    p.drive_low()
    time.sleep(0.05)
    p.drive_high()
    assert bench.drain() == [("next", None), ("next", None)]


def test_presses_from_gpio_threads_are_acted_on_in_the_main_thread(bench):
    presser = threading.Thread(target=bench.press, args=(CFG.next_pin,))
    presser.start()
    presser.join()
    assert bench.acted == []  # nothing acts on the GPIO thread itself
    bench.drain()
    assert bench.acted == [("next", None, True)]


@pytest.mark.slow
def test_the_lights_show_the_dealer_and_blink_at_game_over(bench):
    bench.panel.show("E")
    assert bench.panel.lit() == {"N": False, "E": True, "S": False, "W": False}
    bench.panel.show("W")
    assert bench.panel.lit() == {"N": False, "E": False, "S": False, "W": True}
    bench.panel.show(None, over=True)
    seen = set()
    for _ in range(30):
        seen.add(tuple(bench.panel.lit().values()))
        time.sleep(0.05)
    assert (True, True, True, True) in seen and (False, False, False, False) in seen


def test_a_refusal_flashes_all_four_then_shows_the_dealer_again(bench):
    bench.panel.show("S")
    bench.panel.refused()
    assert all(bench.panel.lit().values())  # the first frame of the flash is lit before refused() returns
    time.sleep(0.5)
    assert bench.panel.lit() == {"N": False, "E": False, "S": True, "W": False}


def test_the_self_test_chases_round_the_table(bench):
    seen = []
    bench.panel.self_test()
    for _ in range(40):
        lit = tuple(s for s, on in bench.panel.lit().items() if on)
        if lit and (not seen or seen[-1] != lit):
            seen.append(lit)
        time.sleep(0.02)
    assert [s for s in seen if len(s) == 1][:4] == [("N",), ("E",), ("S",), ("W",)]


def test_leds_active_low(bench):
    b = Bench(GpioConfig(leds_active_high=False))
    b.panel.show("N")
    assert b.factory.pin(5).state == 0 and b.factory.pin(6).state == 1
    b.panel.close()


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"next_pin": 40}, "gpio.next_pin: 40 is not a GPIO pin"),
        ({"back_pin": 17}, "gpio.back_pin: pin 17 is already used by gpio.next_pin"),
        ({"led_pins": {"N": 5, "E": 6, "S": 13}}, "gpio.led_pins: give a pin for each of N, E, S and W"),
        ({"seat_button_pins": {"X": 22}}, "'X' is not a seat"),
        ({"mode": "real"}, "gpio.mode"),
        ({"hold": 2}, "gpio.hold: unknown setting"),
        ({"pull_up": "yes"}, "gpio.pull_up: must be true or false"),
        ({"debounce_ms": 0}, "gpio.debounce_ms"),
        ({"led_pins": [5, 6, 13, 19]}, "gpio.led_pins: must be a table"),
    ],
)
def test_a_bad_pin_configuration_is_refused_naming_the_key(table, key):
    with pytest.raises(GpioConfigError, match=key.replace("(", r"\(").replace(".", r"\.")):
        gpio_config(table)


def test_with_no_gpio_hardware_the_kiosk_falls_back_to_mock_pins_and_says_so():
    factory, what = pin_factory("auto")
    assert isinstance(factory, MockFactory) and "no GPIO hardware" in what
    factory, what = pin_factory("mock")
    assert isinstance(factory, MockFactory) and "mock" in what


def test_only_a_raspberry_pi_is_probed_for_gpio(tmp_path):
    from kiosk.buttons import on_a_pi

    model = tmp_path / "model"
    model.write_text("Raspberry Pi 5 Model B Rev 1.0\x00")
    assert on_a_pi(model)
    model.write_text("QEMU Virtual Machine\x00")
    assert not on_a_pi(model)
    assert not on_a_pi(tmp_path / "missing")
