"""Game over: the winner, the final sheet, and the place for the result's QR code."""

from __future__ import annotations

from typing import Any

from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from kiosk.share import qr_matrix, result_url
from kiosk.ui.sheet import sheet_lines


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


class OverScreen(Screen):
    """The end of a game."""

    headline = StringProperty("")
    qr_text = StringProperty("The result's QR code appears here.")

    def enter(self, root: Any, **options: Any) -> None:
        self.root_ = root
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
        self.ids.rows.data = sheet_lines(g)
        url = result_url(root.public_url, g.token)
        self.ids.qr.texture = qr_texture(url)
        self.qr_text = url

    def new_game(self) -> None:
        self.root_.game_id = 0
        self.root_.show("start")

    def replay(self) -> None:
        self.root_.show("replay")

    def undo(self) -> None:
        from kiosk.ui.app import action_id

        state, _ = self.root_.act(self.root_.table.undo, self.root_.game_id, action_id=action_id())
        if state is not None and state.status == "open":
            self.root_.show("summary" if state.pending else "sheet")
