"""What every screen shares: the kiosk's root, the message strip, acting through the controller."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from kiosk.ui.words import say
from shared.events import new_action_id

if TYPE_CHECKING:
    from kiosk.table import Table
    from shared.game_state import GameState

P = ParamSpec("P")
R = TypeVar("R")


class KioskScreen(Screen):
    """A screen of the kiosk: reads the game from the controller, acts through it, says why in the strip."""

    message = StringProperty("")  # the message strip: one fixed place, the players' words
    landscape = BooleanProperty(True)
    root_ = ObjectProperty(None, allownone=True)  # the KioskRoot (``root`` in kv is the rule's root)

    def on_size(self, _w: Any, size: Any) -> None:
        self.landscape = size[0] >= size[1]

    @property
    def table(self) -> Table:
        table: Table = self.root_.table
        return table

    @property
    def game(self) -> GameState | None:
        game: GameState | None = self.root_.game
        return game

    def enter(self, root: Any, **options: Any) -> None:
        """Shown afresh: a new look at the game, no old message."""
        self.root_ = root
        self.message = ""
        self.show(**options)

    def show(self, **options: Any) -> None:
        """Reads the game and fills the screen in."""

    def act(self, fn: Callable[P, R], *args: P.args, **kw: P.kwargs) -> R | None:
        """A controller action; a refusal goes into the strip in plain words. What it returned, or
        None. An action that takes an ``action_id`` (the controller's guard against one tap
        counted twice) and was given none gets a new one."""
        if "action_id" not in kw and "action_id" in inspect.signature(fn).parameters:
            kw["action_id"] = new_action_id()
        result: R | None
        result, problems = self.root_.act(fn, *args, **kw)
        self.message = say(problems)[1]
        return result

    def home(self) -> None:
        """Back to where the game is: the sheet, the game over, or the start."""
        g = self.game
        self.root_.show("start" if g is None else "sheet" if g.status == "open" else "over")

    def cancel(self) -> None:
        self.home()
