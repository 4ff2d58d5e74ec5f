"""The start screen: resume the unfinished game, or set up a new one."""

from __future__ import annotations

from typing import Any

from kivy.properties import DictProperty, ListProperty, StringProperty
from kivy.utils import escape_markup

from engine.cards import card_symbol
from engine.rules import PRESETS
from kiosk.events import new_action_id
from kiosk.ui.base import KioskScreen

FIELDS = ("NS", "EW", "N", "E", "S", "W")
MAX_NAME = 20


class StartScreen(KioskScreen):
    """Resume, or new game: names on the on-screen keyboard, rules, who deals first."""

    step = StringProperty("home")  # home, names, deal, draw
    names = DictProperty({f: "" for f in FIELDS})
    editing = StringProperty("NS")
    rules = StringProperty("evansville")
    resume_text = StringProperty("")
    draw_lines = ListProperty([])
    shift = StringProperty("upper")

    def on_step(self, _w: Any, step: str) -> None:
        self.ids.steps.current = step

    def show(self, setup: bool = False, **options: Any) -> None:
        root = self.root_
        self.message = root.notice
        open_game = root.table.open_game()
        if open_game is not None:
            t = open_game.sheet.totals
            ns, ew = escape_markup(open_game.teams["NS"]), escape_markup(open_game.teams["EW"])  # a button's markup
            self.resume_text = f"Resume: {ns} {t[0]} – {t[1]} {ew}"
        else:
            self.resume_text = ""
        self.rules = root.table.kiosk_setting("rules_for_new_games", "evansville")
        self.step = "home"
        self._start_id = new_action_id()
        if setup:
            self.new_game()

    def resume(self) -> None:
        g = self.root_.table.open_game()
        if g is not None:
            self.root_.game_id = g.id
            self.root_.show("summary" if g.pending else "sheet")

    def new_game(self) -> None:
        self.names = {f: "" for f in FIELDS}
        self.editing = "NS"
        self.message = ""
        self.step = "names"

    def type(self, key: str) -> None:
        text = self.names[self.editing]
        if key == "⌫":
            text = text[:-1]
        elif key == "space":
            text = text + " " if text and not text.endswith(" ") else text
        elif len(text) < MAX_NAME:
            text += key if not text or text.endswith(" ") else key.lower()
        self.names = {**self.names, self.editing: text}

    def next_field(self) -> None:
        i = FIELDS.index(self.editing)
        self.editing = FIELDS[(i + 1) % len(FIELDS)]

    def to_deal(self) -> None:
        missing = [t for t in ("NS", "EW") if not self.names[t].strip()]
        if missing:
            self.message = f"Give team {missing[0]} a name."
            self.editing = missing[0]
            return
        self.message = ""
        self.step = "deal"

    def choose_rules(self, name: str) -> None:
        if name in PRESETS:
            self.rules = name

    def start(self, first_dealer: str | None) -> None:
        players = {s: self.names[s] for s in "NESW" if self.names[s].strip()}
        state = self.act(
            self.table.new_game,
            [self.names["NS"], self.names["EW"]],
            players or None,
            self.rules,
            first_dealer,
            action_id=self._start_id,
        )
        if state is None:
            return
        self.root_.game_id = state.id
        if first_dealer is None and state.draw:
            self.draw_lines = self._draw_lines(state)
            self.step = "draw"
            self.root_.refresh_header()
        else:
            self.root_.show("sheet")

    def _draw_lines(self, state: Any) -> list[str]:
        draw = state.jack_draw
        dealt: dict[str, list[str]] = {s: [] for s in "NESW"}
        for seat, card in zip(draw.seats, draw.cards, strict=True):
            dealt["NESW"[seat]].append(card_symbol(card))
        first, second = "NESW"[draw.first], "NESW"[draw.second]
        lines = [f"{s}: {' '.join(dealt[s])}" for s in "NESW"]
        lines.append(f"{first} got the first Jack and deals first.")
        change = draw.change()
        if change is not None:
            lines.append(f"{second} got the second Jack: {second} and {'NESW'[change[1]]} change seats.")
        else:
            lines.append(f"{second} got the second Jack and already sits opposite {first}.")
        return lines

    def done_draw(self) -> None:
        self.root_.show("sheet")
