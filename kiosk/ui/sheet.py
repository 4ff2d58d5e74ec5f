"""The sheet, the home screen: each hand's scores and marks, the check column, the next actions."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, DictProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from engine.seats import seat_name
from kiosk.league_words import ruling_line
from kiosk.ui.base import KioskScreen
from shared.present import sheet_lines, unbroken


class SheetLine(BoxLayout):
    """One hand on the sheet: its number and dealer, each team's cell, the two check columns, and its
    notes on a line under it."""

    number = StringProperty("")
    head = StringProperty("")  # the hand's number, a correction's mark, the dealer
    ns = StringProperty("")
    ew = StringProperty("")
    check = StringProperty("")  # this hand's two scores added
    so_far = StringProperty("")  # every hand's so far: the two running totals added
    note = StringProperty("")
    corrected = BooleanProperty(False)
    landscape = BooleanProperty(True)


def columns(landscape: bool) -> dict[str, float]:
    """The widths of the sheet's fixed columns, the same in its headings, rows and totals row (the
    two teams share what is left); a row's notes go on a line under it."""
    from kiosk.ui import theme

    if landscape:
        return {"head": theme.mm(13), "check": theme.mm(12), "so_far": theme.mm(13)}
    return {"head": theme.mm(14), "check": theme.mm(13), "so_far": theme.mm(13)}


def w_mark(landscape: bool) -> str:
    """The winner's W beside their total, a size smaller than it (so "551 W" fits the column)."""
    from kiosk.ui import theme

    size = int(max(theme.small(), score_font(landscape) * 0.7))
    return f"\u2009[size={size}]W[/size]"  # a thin space: it is the total's mark


def gutter() -> float:
    """Room at the sheet's right for its scroll bar: no text runs under it."""
    from kiosk.ui import theme

    return theme.mm(2.2)


def score_font(landscape: bool) -> float:
    """The teams' scores in a row: large on the 7" display; a size smaller on Touch Display 2, where
    eight rows must fit beside the seat buttons."""
    from kiosk.ui import theme

    return theme.large() if landscape else theme.cap(4.0)


def row_height(landscape: bool) -> float:
    """A row with no notes: its scores' line."""
    from kiosk.ui import theme

    return theme.line(score_font(landscape)) - (0 if landscape else 4)


def scroll_to_end(rows: Any) -> None:
    """The newest hand in view: the bottom of the sheet once it is longer than its box (the rows
    stay at the top while they fit). Scrolled down, the sheet starts with a whole row under its
    headings, the room left over below the last one."""
    from kivy.clock import Clock

    def scroll(*_: Any) -> None:
        heights = [float(line["height"]) for line in rows.data]
        layout = rows.layout_manager
        if layout is None:
            return
        if sum(heights) <= rows.height:
            layout.padding = [0, 0, gutter(), 0]
            rows.scroll_y = 1
            return
        shown = 0.0
        for h in reversed(heights):
            if shown + h > rows.height:
                break
            shown += h
        layout.padding = [0, 0, gutter(), rows.height - shown]
        rows.scroll_y = 0

    scroll()
    Clock.schedule_once(scroll, 0)  # again once the new rows are laid out
    if not getattr(rows, "_follows_height", False):  # and whenever the box changes size
        rows._follows_height = True
        rows.bind(height=scroll)


def ruling_of(table: Any, g: Any) -> str:
    """The organiser's ruling on a league game, in a line ("" for none, or a friendly game); its
    score kept on one line."""
    if g.league is None:
        return ""
    return unbroken(ruling_line(table.rulings().get(str(g.id)), g.league, table.tonight()))


def with_heights(lines: list[dict[str, Any]], landscape: bool) -> list[dict[str, Any]]:
    """The rows for the list: each as tall as it is shown (the rows' layout reads ``height`` from the
    data), its notes on one line under it."""
    from kiosk.ui import theme

    note_line = theme.line(theme.small()) - 4
    return [
        {
            **{k: v for k, v in line.items() if k != "notes"},
            "note": " · ".join(line["notes"]),
            "height": row_height(landscape) + (note_line if line["notes"] else 0),
            "landscape": landscape,
        }
        for line in lines
    ]


class SheetScreen(KioskScreen):
    """Home: the sheet and what the table can do next."""

    status = StringProperty("")
    pending = BooleanProperty(False)
    drafting = BooleanProperty(False)
    players = DictProperty({s: "" for s in "NESW"})
    named = BooleanProperty(False)  # the table gave players' names: the seat buttons show them
    ruling = StringProperty("")  # an organiser's ruling on this league game

    def show(self, **options: Any) -> None:
        self.update()

    def on_landscape(self, *_: Any) -> None:
        if self.root_ is not None:
            self.update()

    def update(self) -> None:
        g = self.game
        if g is None:
            return
        rows = self.ids.rows
        lines = with_heights(sheet_lines(g), self.landscape)
        if len(lines) > len(rows.data) and lines[: len(rows.data)] == list(rows.data):
            rows.data.extend(lines[len(rows.data) :])  # only the new hand is laid out and drawn
        elif lines != list(rows.data):
            rows.data = lines
        scroll_to_end(rows)
        self.ruling = ruling_of(self.table, g)
        self.players = {s: g.players.get(s, "") for s in "NESW"}
        self.named = any(self.players.values())
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
        g = self.game
        if g is None:
            self.home()
        elif g.pending:
            self.root_.show("summary")
        elif maker is None and not g.draft:
            self.root_.show("quick", passed_out=True)
        else:
            self.root_.show("quick", maker=maker)

    def card_by_card(self) -> None:
        self.root_.show("cards")

    def undo(self) -> None:
        self._do(self.table.undo)

    def deal(self, step: str) -> None:
        self._do(self.table.move_deal, step)

    def _do(self, fn: Any, *args: Any) -> None:
        state = self.act(fn, self.root_.game_id, *args)
        if state is not None and state.status != "open":
            self.root_.show("over")
            return
        self.update()

    def replay(self) -> None:
        self.root_.show("replay")

    def owner(self) -> None:
        self.root_.show("owner")
