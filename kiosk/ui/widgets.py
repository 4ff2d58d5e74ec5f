"""The kiosk's building blocks: big buttons, the keypad, the header with totals and the deal."""

from __future__ import annotations

from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label


class Big(Button):
    """A button big enough to hit across a table; ``chosen`` lights it up."""

    chosen = BooleanProperty(False)


class Panel(BoxLayout):
    """A box with the panel background."""


class Note(Label):
    """A refusal, shown next to the thing that is wrong."""


class Keypad(GridLayout):
    """Digits, clear and backspace; fires ``on_key`` with the key's text."""

    __events__ = ("on_key",)

    def press(self, key: str) -> None:
        self.dispatch("on_key", key)

    def on_key(self, key: str) -> None:
        pass


class Compass(FloatLayout):
    """The four seats as they sit at the table; the dealer's lit (as the seat lights are)."""

    dealer = StringProperty("")
    players = StringProperty("")  # unused names fall back to the seat letter


class Header(BoxLayout):
    """Always on top: team names and totals, whose deal it is, the trump of the hand in progress."""

    ns_name = StringProperty("NS")
    ew_name = StringProperty("EW")
    ns_total = StringProperty("0")
    ew_total = StringProperty("0")
    dealer = StringProperty("")
    trump = StringProperty("")
    show_lights = BooleanProperty(False)  # with no GPIO: the four seat lights drawn on screen
    lights = StringProperty("")  # the seats lit, e.g. "E"

    def set_lights(self, lit: dict[str, bool]) -> None:
        self.lights = "".join(s for s in "NESW" if lit.get(s))
