"""Pop-ups shared by the screens: a reason from big buttons, a renege, free text on the letter keys."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from kiosk.ui.widgets import Big

# The rulebook's reneges (RULES.md, "Renege"), short enough for a button.
RENEGE_REASONS = (
    "didn't follow suit",
    "didn't trump",
    "didn't overtrump",
    "said play, no trump",
    "named round 1's suit",
    "meld out of turn",
    "bell too early",
    "played out of turn",
    "exposed a card",
    "table talk",
    "looked at a trick",
    "false renege call",
)
MAX_REASON = 40


def _reason_buttons(picker: Any, grid: Any) -> None:
    """A big button for each of the picker's reasons; a tap chooses it."""
    from kivy.core.window import Window

    from kiosk.ui import theme

    # Landscape: two lines of the smallest size fit a 7" display's rows; portrait has the room.
    font = theme.small() if Window.width > Window.height else theme.body()
    for i, reason in enumerate(picker.reasons):
        b = Big(text=reason, font_size=font)
        b.bind(on_release=lambda _b, r=reason: picker.choose(r))
        grid.add_widget(b)
        picker.ids[f"reason_{i}"] = b


class ReasonPicker(ModalView):
    """Picks a reason from big buttons (a correction's, an abandoned game's); Cancel picks none."""

    _anim_duration = 0  # open and close at once: a closing pop-up must not swallow the next tap

    title = StringProperty("")
    reasons = ListProperty([])
    screen = ObjectProperty(None)
    purpose = StringProperty("")

    def fill(self, grid: Any) -> None:
        _reason_buttons(self, grid)

    def choose(self, reason: str) -> None:
        self.dismiss()
        self.screen.reason_chosen(self.purpose, reason)


class RenegePicker(ModalView):
    """A renege: the team (or the seat, which gives the team), and why; or no renege at all.

    Nothing is preselected: the table says who reneged."""

    _anim_duration = 0

    team = StringProperty("")
    seat = StringProperty("")
    names = DictProperty({})  # seat -> player's name, for the seat buttons
    reasons = ListProperty(list(RENEGE_REASONS))
    has_renege = BooleanProperty(False)  # one is already set: offer "No renege"
    screen = ObjectProperty(None)
    message = StringProperty("")

    def fill(self, grid: Any) -> None:
        _reason_buttons(self, grid)

    def pick_team(self, team: str) -> None:
        self.team = team
        if self.seat and (self.seat in "NS") != (team == "NS"):
            self.seat = ""  # a seat of the other team no longer fits
        self.message = ""

    def pick_seat(self, seat: str) -> None:
        self.seat = "" if self.seat == seat else seat
        if self.seat:
            self.team = "NS" if seat in "NS" else "EW"
        self.message = ""

    def choose(self, reason: str) -> None:
        if not self.team:
            self.message = "First tap the team (or the player) who reneged"
            return
        self.dismiss()
        self.screen.renege_chosen({"by": self.team, "reason": reason, **({"seat": self.seat} if self.seat else {})})

    def other(self) -> None:
        if not self.team:
            self.message = "First tap the team (or the player) who reneged"
            return
        TextPicker(title="Why was it a renege?", done=self.choose).open()

    def clear(self) -> None:
        self.dismiss()
        self.screen.renege_chosen(None)


class TextPicker(ModalView):
    """A short text typed on the screen's letter keys; ``done`` gets it."""

    _anim_duration = 0

    title = StringProperty("")
    text = StringProperty("")
    done = ObjectProperty(None)

    def type(self, key: str) -> None:
        if key == "⌫":
            self.text = self.text[:-1]
        elif key == "space":
            self.text = self.text + " " if self.text and not self.text.endswith(" ") else self.text
        elif len(self.text) < MAX_REASON:
            self.text += key.lower()

    def next_field(self) -> None:
        if self.text.strip():
            self.dismiss()
            self.done(self.text.strip())
