"""Game over: the winner, the final sheet, and the place for the result's QR code."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.properties import StringProperty

from kiosk.present import sheet_lines
from kiosk.share import qr_matrix, result_url
from kiosk.ui.base import KioskScreen
from kiosk.ui.sheet import scroll_to_end, with_heights


def qr_texture(url: str) -> Any:
    """The result's QR code as a Kivy texture, one texel a module, quiet zone included."""
    from kivy.graphics.texture import Texture

    matrix = qr_matrix(url)
    n = len(matrix)
    pixels = bytes(0 if dark else 255 for row in reversed(matrix) for dark in row)  # Kivy's rows go up
    texture = Texture.create(size=(n, n), colorfmt="luminance")
    texture.blit_buffer(pixels, colorfmt="luminance", bufferfmt="ubyte")
    texture.mag_filter = "nearest"  # sharp modules, however big it is drawn
    texture.min_filter = "nearest"
    return texture


class OverScreen(KioskScreen):
    """The end of a game: the winner, the whole sheet down to the last hand, the totals, the QR code."""

    headline = StringProperty("")
    qr_text = StringProperty("The result's QR code appears here.")
    ns_total = StringProperty("")
    ew_total = StringProperty("")

    def show(self, **options: Any) -> None:
        root = self.root_
        g = root.game
        if g is None:
            self.headline = ""
            return
        t = g.sheet.totals
        if g.status == "abandoned":
            self.headline = f"Game abandoned ({g.end_reason}) at {t[0]} – {t[1]}"
        elif g.winner == "tie":
            self.headline = f"A tie: {t[0]} – {t[1]}"
        elif g.winner in ("NS", "EW"):
            win, lose = (g.teams["NS"], g.teams["EW"]) if g.winner == "NS" else (g.teams["EW"], g.teams["NS"])
            hi, lo = max(t), min(t)
            self.headline = f"W  {win} win {hi} – {lo} over {lose}"
        else:
            self.headline = f"Game ended at {t[0]} – {t[1]}"
        self.ns_total, self.ew_total = str(t[0]), str(t[1])
        self.ids.rows.data = with_heights(sheet_lines(g))
        # Once the rows are laid out: the last hand (the one that won) in view.
        Clock.schedule_once(lambda _dt: scroll_to_end(self.ids.rows), 0)
        scroll_to_end(self.ids.rows)
        url = result_url(root.public_url, g.token)
        self.ids.qr.texture = qr_texture(url)
        self.qr_text = url

    def new_game(self) -> None:
        """Straight to the new game's names: the table has just finished one."""
        self.root_.game_id = 0
        self.root_.show("start", setup=True)

    def replay(self) -> None:
        self.root_.show("replay")

    def undo(self) -> None:
        state = self.act(self.table.undo, self.root_.game_id)
        if state is not None and state.status == "open":
            self.root_.show("summary" if state.pending else "sheet")
