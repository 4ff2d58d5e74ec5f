"""What every screen shares: the kiosk's root, the message strip, acting through the controller."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from kiosk.ui.words import say
from shared.events import new_action_id


class KioskScreen(Screen):
    """A screen of the kiosk: reads the game from the controller, acts through it, says why in the strip."""

    message = StringProperty("")  # the message strip: one fixed place, the players' words
    landscape = BooleanProperty(True)
    root_ = ObjectProperty(None, allownone=True)  # the KioskRoot (``root`` in kv is the rule's root)

    def on_size(self, _w: Any, size: Any) -> None:
        self.landscape = size[0] >= size[1]

    @property
    def table(self) -> Any:
        return self.root_.table

    @property
    def game(self) -> Any:
        return self.root_.game

    def enter(self, root: Any, **options: Any) -> None:
        """Shown afresh: a new look at the game, no old message."""
        self.root_ = root
        self.message = ""
        self.show(**options)

    def show(self, **options: Any) -> None:
        """Reads the game and fills the screen in."""

    def act(self, fn: Any, *args: Any, action_id: str | None = "new", **kw: Any) -> Any:
        """A controller action; a refusal goes into the strip in plain words. The new state, or None."""
        if action_id == "new":
            action_id = new_action_id()
        if action_id is not None:
            kw["action_id"] = action_id
        state, problems = self.root_.act(fn, *args, **kw)
        self.message = say(problems)[1]
        return state

    def home(self) -> None:
        """Back to where the game is: the sheet, the game over, or the start."""
        g = self.game
        self.root_.show("start" if g is None else "sheet" if g.status == "open" else "over")

    def cancel(self) -> None:
        self.home()
