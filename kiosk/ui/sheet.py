"""The sheet, the home screen: each hand's scores and marks, the check column, the next actions."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from engine.seats import seat_name
from kiosk.ui.app import action_id


class SheetLine(BoxLayout):
    """One hand on the sheet."""

    number = StringProperty("")
    head = StringProperty("")  # the hand's number and dealer: one text, so one property to set
    ns = StringProperty("")
    ew = StringProperty("")
    tail = StringProperty("")  # the check column and the notes


def _cell(s: Any, team: int) -> str:
    """A team's cell: its score, or its mark (XX set, - zero)."""
    if s.passed_out or s.void or s.misdeal:
        return "0"
    return s.marks[team] or str(s.score[team])


def sheet_lines(state: Any) -> list[dict[str, str]]:
    """The sheet's rows as the screen shows them."""
    lines = []
    for row in state.sheet.rows:
        s = row.score
        note = "passed out" if s.passed_out else "misdeal" if s.misdeal else "void: both reneged" if s.void else ""
        if s.renege is not None and not s.void:
            note = f"renege {'NS' if s.renege.team == 0 else 'EW'}"
        if row.rules_dealer is not None and row.rules_dealer != row.dealer:
            note = (note + " · " if note else "") + "deal moved"
        lines.append({
            "number": str(row.number), "head": f"{row.number}  {seat_name(row.dealer)}",
            "ns": _cell(s, 0), "ew": _cell(s, 1), "tail": f"{s.in_play}   {note}".rstrip(),
        })  # fmt: skip
    return lines


class SheetScreen(Screen):
    """Home: the sheet and what the table can do next."""

    status = StringProperty("")
    pending = BooleanProperty(False)
    drafting = BooleanProperty(False)
    notes = StringProperty("")

    def enter(self, root: Any, **options: Any) -> None:
        self.root_ = root
        self.notes = ""
        self.update()

    def update(self) -> None:
        g = self.root_.game
        if g is None:
            return
        rows = self.ids.rows
        lines = sheet_lines(g)
        if len(lines) > len(rows.data) and lines[: len(rows.data)] == list(rows.data):
            rows.data.extend(lines[len(rows.data) :])  # only the new hand is laid out and drawn
        elif lines != list(rows.data):
            rows.data = lines
        # The newest hand stays in view: scroll to the bottom once the sheet is longer than the screen.
        rows.scroll_y = 0 if len(rows.data) * 44 > rows.height else 1
        self.pending = g.pending is not None
        self.drafting = bool(g.draft)
        if g.pending is not None:
            self.status = "A hand is waiting to be confirmed."
        elif g.draft:
            self.status = "A hand is being entered."
        else:
            self.status = f"{seat_name(g.dealer)} deals hand {len(g.hands) + 1}."

    def enter_hand(self, maker: str | None) -> None:
        """Quick entry, starting with who said play (one tap for two); or the hand in hand."""
        g = self.root_.game
        if g.pending:
            self.root_.show("summary")
        elif maker is None and not g.draft:
            self.root_.show("quick", passed_out=True)
        else:
            self.root_.show("quick", maker=maker)

    def card_by_card(self) -> None:
        self.root_.show("cards")

    def undo(self) -> None:
        self._do(self.root_.table.undo)

    def deal(self, step: str) -> None:
        self._do(self.root_.table.move_deal, step)

    def _do(self, fn: Any, *args: Any) -> None:
        state, problems = self.root_.act(fn, self.root_.game_id, *args, action_id=action_id())
        self.notes = "\n".join(problems)
        if state is not None and state.status != "open":
            self.root_.show("over")
            return
        self.update()

    def replay(self) -> None:
        self.root_.show("replay")

    def owner(self) -> None:
        self.root_.show("owner")
