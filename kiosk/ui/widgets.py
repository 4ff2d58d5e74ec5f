"""The kiosk's building blocks: big buttons, the keypads, the message strip, the header."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label

# The letter keys, the same at both panel sizes: the alphabet eight to a row (ten keys of 9 mm do
# not fit the 720 px of Touch Display 2, so a keyboard's rows cannot be the layout on both).
ALPHABET = ("ABCDEFGH", "IJKLMNOP", "QRSTUVWX", "YZ'-&.")
# For a web address and a code: digits and the address's signs, no space; its last letters share
# the row of the last keys.
ADDRESS = ("12345678", "90-./:", "ABCDEFGH", "IJKLMNOP", "QRSTUVWX", "YZ")


class Big(Button):
    """A button big enough to hit across a table; ``chosen`` lights it up, ``faulty`` outlines it."""

    chosen = BooleanProperty(False)
    faulty = BooleanProperty(False)


class CardButton(Big):
    """One of the 24 cards: drawn as a card's face while it is in a hand, as an empty slot with its
    label dimmed once ``played``; a played card still answers a tap (the screen says when it went)."""

    card = StringProperty("")  # its name, "TS"
    played = BooleanProperty(False)

    def on_kv_post(self, base: Any) -> None:
        self.bind(card=self._draw, played=self._draw, chosen=self._draw)
        self._draw()

    def _draw(self, *_: Any) -> None:
        from engine.cards import parse_card
        from kiosk.ui import theme

        if self.card:
            on = "played" if self.played else "" if self.chosen else "face"
            self.text = theme.card_markup(parse_card(self.card), self.chosen, on)


class Panel(BoxLayout):
    """A box with the panel background; ``faulty`` outlines it (the field a message is about)."""

    faulty = BooleanProperty(False)


class Note(Label):
    """A refusal in words, where a screen has no message strip (the owner's menu)."""


class Strip(Label):
    """The message strip: always in the same place and of the same size, empty or not: one line
    where the panel is wide, two where it is narrow, or ``lines``."""

    lines = NumericProperty(0)


class Keypad(GridLayout):
    """Digits, clear and backspace; fires ``on_key`` with the key's text."""

    __events__ = ("on_key",)

    def press(self, key: str) -> None:
        self.dispatch("on_key", key)

    def on_key(self, key: str) -> None:
        pass


class Keyboard(GridLayout):
    """Letters on the screen, never the system keyboard; each key calls ``typist.type(key)``,
    the last key ``typist.next_field()``."""

    typist = ObjectProperty(None)
    last_key = StringProperty("next field")
    keys = StringProperty("names")  # names (letters and space) or address (digits and signs too)

    def on_typist(self, *_: Any) -> None:
        self.build()

    def on_last_key(self, *_: Any) -> None:
        if self.typist is not None:
            self.build()

    def on_keys(self, *_: Any) -> None:
        if self.typist is not None:
            self.build()

    def build(self) -> None:
        self.clear_widgets()
        typist = self.typist
        address = self.keys == "address"
        # An address's last letters share the row of the word keys; the alphabet's rows are whole.
        rows, with_words = (ADDRESS[:-1], ADDRESS[-1]) if address else (ALPHABET, "")

        def letters_row(letters: str) -> BoxLayout:
            row = BoxLayout(spacing=4)
            for k in letters:
                key = Big(text=k)
                key.bind(on_release=lambda b: typist.type(b.text))
                row.add_widget(key)
            return row

        for letters in rows:
            self.add_widget(letters_row(letters))
        row = letters_row(with_words)
        last = [
            ("space", lambda *_: typist.type("space")),
            ("⌫", lambda *_: typist.type("⌫")),
            (self.last_key, lambda *_: typist.next_field()),
        ]
        for label, fn in last[1:] if address else last:
            b = Big(text=label, font_size=_word_key_font() if len(label) > 1 else _key_font())
            if address and len(label) > 1:
                b.size_hint_x = 2  # the words beside the letters' keys
            b.bind(on_release=fn)
            row.add_widget(b)
        self.add_widget(row)


def seat_label(name: str) -> str:
    """A player's name as a seat button shows it: the first name (the buttons are narrow; the
    dealer's badge has the whole name)."""
    words = name.split()
    return words[0] if words else ""


def fit(text: str, font_size: float, width: float) -> str:
    """``text`` as it fits ``width`` pixels on one line: whole, or cut and ended with "…"."""
    if text_width(text, font_size) <= width:
        return text
    low, high = 0, len(text)  # the longest start that fits with the "…"
    while low < high:
        mid = (low + high + 1) // 2
        if text_width(text[:mid].rstrip() + "…", font_size) <= width:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + "…"


class NameLabel(Label):
    """A name as the kiosk shortens every name: whole where it fits, else cut to the room there is
    and ended with "…" (``fit``). ``room``: the pixels it may take (0: its own width); ``hug``: as
    wide as what it shows, so a tag beside it stays beside it."""

    name = StringProperty("")
    room = NumericProperty(0)
    hug = BooleanProperty(False)
    width: float  # Kivy's own property; named so mypy knows its type where _fit sets it

    def on_kv_post(self, base: Any) -> None:
        self.bind(name=self._fit, room=self._fit, font_size=self._fit, hug=self._fit, width=self._width)
        self._fit()

    def _width(self, *_: Any) -> None:
        if not self.hug and not self.room:
            self._fit()

    def _fit(self, *_: Any) -> None:
        room = self.room or self.width
        self.text = fit(self.name, self.font_size, room - 2) if room > 2 else ""
        if self.hug:
            self.size_hint_x = None
            self.width = text_width(self.text, self.font_size) + 2


class SeatButton(Big):
    """A seat's button: its letter, and the player's first name under it (``below``) or beside it,
    shortened with "…" where the button is too narrow; never split in the middle of a word."""

    seat = StringProperty("")
    player = StringProperty("")
    below = BooleanProperty(True)

    def on_kv_post(self, base: Any) -> None:
        self.bind(seat=self._fit, player=self._fit, size=self._fit, below=self._fit)
        self._fit()

    def _fit(self, *_: Any) -> None:
        from kiosk.ui import theme

        name = seat_label(self.player)
        if not name:
            self.text = self.seat
            return
        room = self.width - 12
        if not self.below:
            room -= text_width(self.seat + " ", self.font_size)
        shown = escape(fit(name, theme.small(), room)) if room > 0 else ""
        self.text = self.seat + ("\n" if self.below else " ") + f"[size={int(theme.small())}]{shown}[/size]"


def _word_key_font() -> float:
    """A key with a word on it (space, next field): the words at the smallest size, clear of its edges."""
    from kiosk.ui import theme

    return theme.small()


def _key_font() -> float:
    from kiosk.ui import theme

    return theme.body()


LIGHT_MM, LIGHT_GAP_MM = 2.2, 1.3  # a seat light, and how far each sits from the compass's centre
COMPASS_MM = 2 * (LIGHT_GAP_MM + 0.3 + LIGHT_MM) + 0.9  # the compass's width: W's light to E's, and a margin


class Compass(FloatLayout):
    """The four seat lights as the table sits (N at the top), drawn where there is no GPIO."""

    lights = StringProperty("")


class Badge(FloatLayout):
    """The dealer at a glance ("N deals", the player's name under it or beside it); with no GPIO,
    the seat lights drawn beside the words as a compass."""

    said = StringProperty("")
    said_markup = StringProperty("")
    name = StringProperty("")
    lights = StringProperty("")
    show_lights = BooleanProperty(False)
    row = BooleanProperty(False)  # the name beside "N deals" rather than under it

    def on_said(self, _w: Any, said: str) -> None:
        self.said_markup = badge_markup(said)


def badge_markup(said: str) -> str:
    """ "N deals" with the seat's letter at button size and the word at the smallest size: one line
    that fits the header's centre."""
    from kiosk.ui import theme

    seat, _, rest = said.partition(" ")
    if len(seat) != 1 or not rest:
        return escape(said)
    return f"[size={int(theme.body())}][b]{seat}[/b][/size] {escape(rest)}"


def escape(text: str) -> str:
    from kivy.utils import escape_markup

    return str(escape_markup(text))


def text_width(
    text: str, font_size: float, markup: bool = False, bold: bool = False, font_name: str | None = None
) -> float:
    """How wide ``text`` is drawn, in pixels (with the kiosk's font, or ``font_name``)."""
    from kivy.core.text import Label as CoreLabel
    from kivy.core.text.markup import MarkupLabel

    face = {"font_name": font_name} if font_name else {}
    core = (MarkupLabel if markup else CoreLabel)(text=text, font_size=font_size, bold=bold, **face)
    core.refresh()
    return float(core.content_width)


def centre_width(lights: bool) -> float:
    """The header's centre in landscape: the dealer's badge as wide as "W deals" (the widest seat)
    plus the seat lights if drawn, and the trump beside it."""
    from kiosk.ui import theme

    badge = text_width(badge_markup("W deals"), theme.small(), markup=True) + theme.mm(2) + 4
    if lights:
        badge += theme.mm(COMPASS_MM) + theme.mm(1)
    trump = text_width("trump", theme.small()) + theme.mm(1.5)
    return round(badge + theme.mm(1) + trump)


class Header(BoxLayout):
    """Always on top: team names and totals, the dealer's badge, the trump of the hand in progress."""

    ns_name = StringProperty("NS")
    ew_name = StringProperty("EW")
    ns_total = StringProperty("0")
    ew_total = StringProperty("0")
    dealer = StringProperty("")  # the dealer's seat letter
    badge = StringProperty("")  # "N deals"
    dealer_name = StringProperty("")  # the dealer's name, when the table gave the players' names
    trump = StringProperty("")
    show_lights = BooleanProperty(False)  # with no GPIO: the four seat lights drawn on screen
    height: float  # Kivy's; said here for the type checker
    lights = StringProperty("")  # the seats lit, e.g. "E"
    portrait = BooleanProperty(False)
    full_height = NumericProperty(0)  # its height while a game is open (none on the start screen)
    sync = StringProperty("")  # the league's sync mark ("" outside a league)

    def arrange(self, portrait: bool) -> None:
        """Lays the header out for the panel's orientation (see the rule in common.kv)."""
        from kiosk.ui import theme

        ids = self.ids
        centre = ids.centre
        if portrait == (centre.parent is ids.lower):
            return
        self.portrait = portrait
        centre.parent.remove_widget(centre)
        if portrait:
            ids.lower.add_widget(centre)
            centre.size_hint_x, centre.padding = 1, 0  # the row's own padding is enough
            # as tall as the seat lights drawn in it, so none sticks out of the badge
            ids.lower.height = max(theme.line(theme.body()), theme.mm(2 * (LIGHT_GAP_MM + LIGHT_MM) + 0.5)) + theme.mm(
                2
            )
            ids.dealer_badge.row = True
            for side, names in ((ids.ns_side, ids.ns_names), (ids.ew_side, ids.ew_names)):
                side.orientation = "vertical"
                side.remove_widget(names)
                side.add_widget(names, index=len(side.children))  # the names above the total
                names.orientation, names.size_hint_y, names.height = "horizontal", None, theme.line(theme.small())
            ids.ns_total.size_hint_x = ids.ew_total.size_hint_x = 1
            self.full_height = theme.line(theme.total()) + theme.line(theme.small()) + ids.lower.height
        else:
            ids.scores.add_widget(centre, index=1)
            centre.size_hint_x, centre.padding = None, (0, theme.mm(1))
            ids.lower.height = 0
            ids.dealer_badge.row = False
            for side, names, first in ((ids.ns_side, ids.ns_names, True), (ids.ew_side, ids.ew_names, False)):
                side.orientation = "horizontal"
                side.remove_widget(names)
                side.add_widget(names, index=len(side.children) if first else 0)
                names.orientation, names.size_hint_y = "vertical", 1
            ids.ns_total.size_hint_x = ids.ew_total.size_hint_x = None
            self.full_height = theme.line(theme.total())
        if self.height:
            self.height = self.full_height

    def set_lights(self, lit: dict[str, bool]) -> None:
        self.lights = "".join(s for s in "NESW" if lit.get(s))
