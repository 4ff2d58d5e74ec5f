"""What the owner must see whatever screen is open: a restored backup and what it lost, games
that need attention; and, while the database cannot be used at all, a screen that says why
and tries again (rather than the kiosk exiting into a restart loop)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, Rectangle
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView

from kiosk.ui import theme
from kiosk.ui.widgets import Big

OWNER_ONLY = "Only the owner acknowledges this: Owner menu, the PIN, then Read and Acknowledge again."


def _background(widget: Any, colour: tuple[float, ...]) -> None:
    with widget.canvas.before:
        Color(*colour)
        rect = Rectangle(pos=widget.pos, size=widget.size)
    widget.bind(pos=lambda w, v: setattr(rect, "pos", v), size=lambda w, v: setattr(rect, "size", v))


def _text(text: str, **kw: Any) -> Label:
    """A wrapped label (never markup: a notice may quote team names)."""
    label = Label(text=text, markup=False, **{"halign": "left", "valign": "middle", **kw})
    label.bind(width=lambda w, v: setattr(w, "text_size", (v - 16, None)))
    return label


class NoticeBanner(BoxLayout):
    """A strip above the header while notices wait; tapping it shows them in full."""

    def __init__(self, root: Any, **kw: Any) -> None:
        super().__init__(orientation="horizontal", size_hint_y=None, height=0, opacity=0, **kw)
        self.root_ = root
        self.texts: list[str] = []
        _background(self, theme.CHOSEN)
        self.summary = _text("", color=theme.DARK_TEXT, font_size=theme.small(), shorten=True, shorten_from="right")
        self.open_button = Big(text="Read", size_hint_x=None, width=110)
        self.open_button.bind(on_release=lambda *_: self.open())
        self.add_widget(self.summary)
        self.add_widget(self.open_button)
        self.ids = {"notice_summary": self.summary, "notice_open": self.open_button}

    def refresh(self) -> None:
        """Reads the notices afresh from the controller; hides the strip when there are none."""
        self.texts = self.root_.table.notices()
        shown = bool(self.texts)
        self.height = theme.target() if shown else 0
        self.opacity = 1 if shown else 0
        self.disabled = not shown
        first = self.texts[0] if shown else ""
        more = f" (+{len(self.texts) - 1} more)" if len(self.texts) > 1 else ""
        self.summary.text = f"Notice for the owner: {first}{more}"

    def open(self) -> None:
        NoticePopup(self).open()


class NoticePopup(ModalView):
    """Every notice in full; the owner acknowledges them here."""

    def __init__(self, banner: NoticeBanner, **kw: Any) -> None:
        super().__init__(size_hint=(0.94, 0.9), auto_dismiss=False, **kw)
        self.banner = banner
        box = BoxLayout(orientation="vertical", padding=10, spacing=8)
        _background(box, theme.PANEL)
        scroll = ScrollView()
        self.body = _text("\n\n".join(banner.texts), font_size=theme.body(), size_hint_y=None, valign="top")
        self.body.bind(texture_size=lambda w, v: setattr(w, "height", v[1]))
        scroll.add_widget(self.body)
        self.note = _text("", color=theme.ERROR, font_size=theme.small(), size_hint_y=None, height=0)
        buttons = BoxLayout(size_hint_y=None, height=theme.target(), spacing=8)
        self.ack = Big(text="Acknowledge")
        self.ack.bind(on_release=lambda *_: self.acknowledge())
        owner = Big(text="Owner menu")  # where the owner enters the PIN, then comes back here
        owner.bind(on_release=lambda *_: self.to_owner())
        close = Big(text="Close")
        close.bind(on_release=lambda *_: self.dismiss())
        for b in (self.ack, owner, close):
            buttons.add_widget(b)
        for w in (scroll, self.note, buttons):
            box.add_widget(w)
        self.add_widget(box)
        self.ids = {"notice_body": self.body, "notice_note": self.note, "notice_ack": self.ack}

    def to_owner(self) -> None:
        self.dismiss(animation=False)  # the PIN pad must be there to tap at once
        self.banner.root_.show("owner")

    def acknowledge(self) -> None:
        root = self.banner.root_
        _, problems = root.act(root.table.acknowledge, root.owner_pin)
        if problems:
            self.note.text = OWNER_ONLY if not root.owner_pin else "\n".join(problems)
            self.note.height = 48
            return
        self.dismiss()
        self.banner.refresh()


class WaitingRoot(BoxLayout):
    """While the database cannot be used (full, locked, read-only, permissions): says why in
    words and tries again every ``every`` seconds until ``retry`` succeeds."""

    def __init__(self, message: str, retry: Callable[[], str | None], every: float = 10, **kw: Any) -> None:
        super().__init__(orientation="vertical", padding=24, spacing=12, **kw)
        _background(self, theme.BG)
        self.retry_ = retry
        self.every = every
        self.add_widget(
            _text(
                "The score sheet cannot open its database",
                font_size=theme.large(),
                bold=True,
                size_hint_y=None,
                height=theme.line(theme.large(), 2),
            )
        )
        self.message = _text(message, font_size=theme.body(), color=theme.ERROR, valign="top")
        self.add_widget(self.message)
        self.status = _text(
            "", font_size=theme.small(), color=theme.MUTED, size_hint_y=None, height=theme.line(theme.small())
        )
        self.add_widget(self.status)
        again = Big(text="Try again now", size_hint_y=None, height=theme.target())
        again.bind(on_release=lambda *_: self.try_again())
        self.add_widget(again)
        self.ids = {"waiting_message": self.message, "waiting_status": self.status, "waiting_again": again}
        self._tries = 0
        self._event = Clock.schedule_interval(lambda _dt: self.try_again(), every)
        self._show_status()

    def _show_status(self) -> None:
        self.status.text = f"Nothing was moved or changed. Trying again every {self.every:g} s (tries: {self._tries})."

    def try_again(self) -> None:
        """One more try; on success the kiosk replaces this screen (``retry`` gives None)."""
        self._tries += 1
        still = self.retry_()
        if still is None:
            self._event.cancel()
            return
        self.message.text = still
        self._show_status()
