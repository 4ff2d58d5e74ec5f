"""Game over: the winner, the final sheet, and the result's QR code (for a league game, the game on the
league's pages, and the league's standings one tap away)."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, StringProperty

from kiosk.ui.base import KioskScreen
from kiosk.ui.sheet import ruling_of, scroll_to_end, with_heights
from shared.present import sheet_lines, unbroken
from shared.share import qr_matrix, result_url


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
    winner = StringProperty("")  # "NS", "EW", "tie" or "": the W goes in the winner's column
    ruling = StringProperty("")  # an organiser's ruling on this league game
    standings_url = StringProperty("")  # the league's home page, for a league game
    showing_standings = BooleanProperty(False)
    game_url = StringProperty("")
    can_print = BooleanProperty(False)  # a receipt printer is set up
    print_label = StringProperty("Print")
    print_note = StringProperty("")  # what the printer last said, in the owner's words

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
            win = g.teams[g.winner]
            hi, lo = max(t), min(t)
            self.headline = f"{win} win {hi} – {lo}"
        else:
            self.headline = f"Game ended at {t[0]} – {t[1]}"
        self.headline = unbroken(self.headline)  # its score on one line
        self.ns_total, self.ew_total = str(t[0]), str(t[1])
        self.winner = g.winner or ""
        self.ids.rows.data = with_heights(sheet_lines(g), self.landscape)
        # Once the rows are laid out: the last hand (the one that won) in view.
        Clock.schedule_once(lambda _dt: scroll_to_end(self.ids.rows), 0)
        scroll_to_end(self.ids.rows)
        self.ruling = ruling_of(self.table, g)
        league = self.table.league() if g.league is not None else None
        if league is not None:
            # The league redirects its kiosk-and-game address to the game's page.
            self.game_url = f"{league['url']}/k/{league['kiosk']}/{g.id}"
            self.standings_url = f"{league['url']}/"
        else:
            self.game_url = result_url(root.public_url, g.token)
            self.standings_url = ""
        self.show_qr(standings=False)
        receipts = root.receipts
        self.can_print = bool(receipts is not None and receipts.configured)
        self.print_label, self.print_note, self._failed = "Print", "", None
        if self.can_print:
            # Only when the config asks for it, once a game; the link the QR code on screen opens.
            receipts.at_game_over(g, done=self._printed, url=self.game_url)

    def on_landscape(self, *_: Any) -> None:
        self.arrange()
        g = self.root_.game if self.root_ is not None else None
        if g is not None:  # the rows are laid out for the panel's way round
            self.ids.rows.data = with_heights(sheet_lines(g), self.landscape)
            scroll_to_end(self.ids.rows)

    def on_kv_post(self, base: Any) -> None:
        self.arrange()

    def arrange(self) -> None:
        """Where the panel is wide: the link under the QR code, an organiser's ruling over the sheet
        (the code keeps its size). Where it is narrow: both beside the code, the link at the top of
        the column with the standings and the printer (the sheet keeps its rows)."""
        ids = self.ids
        caption, ruling, side = ids.qr_text, ids.ruling, ids.qr_side
        if self.landscape:
            places = ((caption, ids.qr_column, 0), (ruling, ids.sheet_column, len(ids.sheet_column.children) - 1))
        else:
            places = ((caption, side, len(side.children)), (ruling, side, 0))
        for w, parent, index in places:  # each where it belongs this way round (the kv file starts mixed)
            if w.parent is not parent:
                w.parent.remove_widget(w)
                parent.add_widget(w, index=min(index, len(parent.children)))

    def print_receipt(self) -> None:
        """Prints the game's receipt, or the one that failed again; the screen never waits for it."""
        receipts = self.root_.receipts
        if receipts is None or self.root_.game is None:
            return
        self.print_note = "Printing…"
        if self._failed is not None:
            receipts.retry(self._failed, done=self._printed)
        else:
            receipts.print_game(self.root_.game, done=self._printed, url=self.game_url)

    def _printed(self, outcome: Any) -> None:
        self.print_note = outcome.message
        self._failed = None if outcome.ok else outcome.job
        self.print_label = "Print" if outcome.ok else "Print again"

    def show_qr(self, standings: bool) -> None:
        """The QR code of the game's result, or of the league's standings."""
        url = self.standings_url if standings and self.standings_url else self.game_url
        self.showing_standings = url == self.standings_url
        self.ids.qr.texture = qr_texture(url)
        self._url = url
        self._caption()

    def _caption(self, *_: Any) -> None:
        """The QR code's link written in full under it, to type where a phone cannot scan: without
        its scheme (a browser adds it), in a face that tells l from I and 0 from O, its address and
        its path on lines of their own where one line is too narrow; a league's says what it opens."""
        from kiosk.ui import theme
        from kiosk.ui.boot import font_path
        from kiosk.ui.widgets import text_width

        def fits(text: str) -> bool:
            return bool(text_width(text, theme.small(), font_name=font_path(mono=True)) <= self.ids.qr_text.width - 4)

        said = getattr(self, "_url", "").split("://", 1)[-1]
        host, slash, path = said.partition("/")
        lines = [said] if fits(said) else [host, slash + path]
        if not fits(lines[-1]):  # a path wider than the column: broken only before a slash
            lines = lines[:1]
            for part in (slash + path).replace("/", "\n/").split("\n")[1:]:
                if len(lines) > 1 and fits(lines[-1] + part):
                    lines[-1] += part
                else:
                    lines.append(part)
        caption = "\n".join(lines)
        if self.standings_url:
            caption = ("standings" if self.showing_standings else "this game") + ":\n" + caption
        self.qr_text = caption

    _failed: Any = None  # the receipt that did not print, for a retry

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
