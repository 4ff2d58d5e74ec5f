"""The owner's Updates step: which version runs, what the updater is doing (with its progress), and
the owner's words to it: update now, install the stick's bundle, put an older version back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from kiosk.updates.state import UpdateState, can_put_back, said
from shared import update_states as S

if TYPE_CHECKING:  # mixed into the owner's screen, whose step and strip it uses
    from kiosk.ui.base import KioskScreen as _Screen
else:
    _Screen = object

UPDATES_EVERY = 2.0  # seconds between two looks at the updater's state while the step is shown
NO_UPDATER = (
    "This kiosk does not update itself: it was set up by hand, and its installer updates it "
    "(deploy/install.sh). The card image takes new versions from the league or a USB stick."
)
ASKED = "Asked: the updater starts within half a minute."


def now_button(s: UpdateState) -> str:
    """The owner's main word to the updater in this state ("" when there is none to say)."""
    if s.state == S.INSTALLED:
        return f"Restart into {s.version} now"
    if s.state == S.OFFERED and s.source == "usb":
        return f"Install {s.version} from the stick"
    if s.state in (S.DOWNLOADING, S.DOWNLOADED):
        return f"Update to {s.version} now"
    return ""


class UpdatesStep(_Screen):
    """Mixed into the owner's screen: the 'updates' step."""

    if TYPE_CHECKING:
        step: str

    update_said = StringProperty("")  # the updater's state in a sentence
    update_running = StringProperty("")  # "Running version 0.1.0 (system A)"
    update_percent = NumericProperty(-1)  # the progress bar's, -1: no bar
    update_now = StringProperty("")  # the main button's words, "": no button
    update_older = StringProperty("")  # the version the owner may put back, "": none
    update_sure = BooleanProperty(False)  # "put back" tapped once: the second tap does it
    _updates_watch: Any = None

    def updates(self) -> None:
        self.update_sure = False
        self._show_updates()
        self.step = "updates"
        if self._updates_watch is None:
            self._updates_watch = Clock.schedule_interval(self._watch_updates, UPDATES_EVERY)

    def _show_updates(self) -> None:
        s = self.table.update_state()
        if s is None:
            self.update_said, self.update_running = NO_UPDATER, ""
            self.update_percent, self.update_now, self.update_older = -1, "", ""
        else:
            self._show_state(s)
        self.fill_update_buttons(self.ids.update_buttons)

    def _show_state(self, s: UpdateState) -> None:
        self.update_said = said(s, percent=False)  # the bar shows it
        where = f" (system {s.slot})" if s.slot else ""
        self.update_running = f"Running version {s.running}{where}" if s.running else ""
        self.update_percent = s.percent if s.state in (S.DOWNLOADING, S.INSTALLING) else -1
        self.update_now = now_button(s)
        self.update_older = s.version if can_put_back(s) else ""

    def fill_update_buttons(self, box: Any) -> None:
        """Only the words the updater can act on now, each a whole button, "◀ Menu" last."""
        from kiosk.ui import theme
        from kiosk.ui.widgets import Big

        box.clear_widgets()
        shown: list[tuple[str, str, Any]] = []
        if self.update_older:
            older = ("Yes, put back " if self.update_sure else "Put back ") + self.update_older
            shown.append(("update_older", older, self.put_back))
        if self.update_now:
            shown.append(("update_now", self.update_now, self.ask_now))
        shown.append(("updates_menu", "◀ Menu", lambda: setattr(self, "step", "menu")))
        for name, text, then in shown:
            b = Big(text=text, font_size=theme.small(), chosen=name == "update_now" or len(shown) == 1)
            b.bind(on_release=lambda _b, do=then: do())
            box.add_widget(b)
            self.ids[name] = b
        rows = 1 if self.landscape else len(shown)
        box.height = theme.target() * rows + theme.mm(0.6) * (rows - 1)

    def _watch_updates(self, _dt: float) -> bool:
        """The updater writes as it goes: its state is read again while the step is shown."""
        if self.get_root_window() is None or self.manager.current != "owner" or self.step != "updates":
            self._updates_watch = None
            return False
        self._show_updates()
        return True

    def ask_now(self) -> None:
        s = self.table.update_state()
        action = "install" if s is not None and s.state == S.OFFERED else "now"
        self._ask(action, s.version if s is not None else None)

    def put_back(self) -> None:
        if not self.update_sure:
            self.update_sure = True
            self.message = f"Tap again to put back {self.update_older} (the games stay)."
            self.fill_update_buttons(self.ids.update_buttons)
            return
        self.update_sure = False
        self._ask("force", self.update_older)

    def _ask(self, action: str, version: str | None) -> None:
        self.act(self.table.ask_update, action, self.root_.owner_pin, version)
        if not self.message:
            self.message = ASKED
        self._show_updates()
