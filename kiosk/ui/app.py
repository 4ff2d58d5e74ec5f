"""The kiosk application: a header that is always there, the screens, idle dimming.

Every screen reads the game from the controller and calls its actions; none holds rules.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import DEFAULT_FONT, LabelBase
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from engine.seats import seat_name
from kiosk.league_words import sync_mark
from kiosk.store import StoreError
from kiosk.table import Table
from kiosk.ui import theme
from kiosk.ui.boot import font_path
from shared.events import new_action_id
from shared.game_state import ActionRefused, GameState

P = ParamSpec("P")
R = TypeVar("R")

KV = Path(__file__).parent / "kv"
DIMMED = 0.6
LOCKED_ON_DIM = "The owner's menu locked when the screen dimmed: enter the PIN again."
SYNC_EVERY = 2.0  # seconds between two looks at the sync worker's word
LOCKED_WHEN_IDLE = "The owner's menu locked after a minute without a touch: enter the PIN again."


class Dimmer(FloatLayout):
    """Darkens the screen after an idle time; any touch wakes it, and a touch on a control also
    works that control (a dimmed screen must not cost the table a tap)."""

    level = NumericProperty(0.0)

    def on_touch_down(self, touch: Any) -> bool:
        self.level = 0
        return False


class KioskRoot(FloatLayout):
    """The header, the screen manager, and the dimmer over them."""

    game_id = NumericProperty(0)
    notice = StringProperty("")
    owner_pin = StringProperty("")  # held only while the owner's menu is open
    owner_idle = NumericProperty(60.0)  # seconds without a touch before the owner's menu locks
    panel = ObjectProperty(None, allownone=True)  # the dealer buttons and seat lights, if any
    public_url = StringProperty("http://127.0.0.1:8080")  # where phones reach the result pages
    table = ObjectProperty(None)
    dim_after = NumericProperty(0)  # seconds without a touch before the screen dims; 0 never
    receipts = ObjectProperty(None, allownone=True)  # the receipt printer (kiosk.printer.ReceiptPrinter), if any
    touches = ObjectProperty(None, allownone=True)  # the updater's marker (kiosk.updates.touched.Touches), if any

    _owner_timer: Any = None
    _sync_shown = False  # in a window at least once

    def __init__(self, table: Table, notice: str | None = None, dim_after: float = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self.table = table
        self.notice = notice or ""
        self._idle: Any = None
        self.box = BoxLayout(orientation="vertical")
        from kiosk.ui.widgets import Header

        self.header = Header()
        self.manager = ScreenManager(transition=NoTransition())  # screens are built when first shown
        from kiosk.ui.notice import NoticeBanner

        self.banner = NoticeBanner(self)  # notices for the owner, over whatever screen is open
        self.box.add_widget(self.banner)
        self.box.add_widget(self.header)
        self.box.add_widget(self.manager)
        self.add_widget(self.box)
        self.bind(size=lambda *_: self._arrange())
        # The sync worker is a process of its own: its word on the league is read every few seconds.
        self._sync_timer = Clock.schedule_interval(self.refresh_sync, SYNC_EVERY)
        self.dimmer = Dimmer()
        self.add_widget(self.dimmer)
        self.dim_after = dim_after
        self.bind(dim_after=lambda *_: self.restart_idle())
        self.restart_idle()
        resumed = table.open_game()
        if resumed is not None:
            self.game_id = resumed.id
            self.show("summary" if resumed.pending else "sheet")
        else:
            self.show("start")

    # ---- the game and the screens ------------------------------------------------------------------

    @property
    def game(self) -> GameState | None:
        return self.table.game(self.game_id) if self.game_id else None

    def show(self, name: str, **options: Any) -> None:
        """Switches screens; the new screen reads the game afresh."""
        if not self.manager.has_screen(name):
            self.manager.add_widget(_screen(name))
        screen = self.manager.get_screen(name)
        screen.enter(self, **options)
        self.manager.current = name
        if name != "owner" and not (name == "quick" and options.get("correct")):
            self.owner_pin = ""  # the owner's screens are left: the next visit asks for the PIN
        self.refresh_header()
        self.refresh_sync()
        self.banner.refresh()

    # ---- the owner's menu stays open only while the owner is there ----------------------------------

    def on_owner_pin(self, _w: Any, _pin: str) -> None:
        self._owner_active()

    def _owner_active(self) -> None:
        if self._owner_timer is not None:
            self._owner_timer.cancel()
        self._owner_timer = None
        if self.owner_pin:
            self._owner_timer = Clock.schedule_once(lambda _dt: self.lock_owner(LOCKED_WHEN_IDLE), self.owner_idle)

    def lock_owner(self, why: str) -> None:
        """Ends the owner's authority (the screen dimmed, or nobody touched it for a minute): what
        was open of the owner's goes back to the PIN, saying why."""
        if not self.owner_pin or self.get_root_window() is None:
            return  # nothing open, or a screen no longer shown
        self.owner_pin = ""
        from kivy.uix.modalview import ModalView

        for w in list(Window.children):  # a reason or meld picker the owner left open
            if isinstance(w, ModalView):
                w.dismiss(animation=False)
        if self.manager.current == "owner" or getattr(self.manager.current_screen, "correcting", 0):
            self.show("owner", locked=why)

    def _arrange(self) -> None:
        self.header.arrange(portrait=self.width < self.height)
        self.refresh_sync()

    def refresh_sync(self, *_: Any) -> bool:
        """The header's league mark, as the store has the sync worker's last word (nothing outside a
        league). Stops being called once this root has left the window."""
        if self.parent is None and self._sync_shown:
            return False
        self._sync_shown = self._sync_shown or self.parent is not None
        try:
            status = self.table.league_status() if self.table.league() is not None else {"league": None}
        except (StoreError, sqlite3.Error):
            return True  # a busy or failing disk: the mark waits for the next look
        self.header.sync = sync_mark(status, short=True)  # it sits beside the EW tag
        return True

    def refresh_header(self) -> None:
        g = self.game
        h = self.header
        if self.panel is not None:
            # The seat lights follow every change, whoever made it: rules, buttons, undo.
            self.panel.show(seat_name(g.dealer) if g and g.status == "open" else None, over=bool(g and g.sheet.over))
        # With no game the header has nothing to say: the start screen gets the whole panel.
        h.height, h.opacity = (0, 0) if g is None else (h.full_height, 1)
        if g is None:
            h.ns_name, h.ew_name, h.ns_total, h.ew_total, h.dealer, h.badge, h.dealer_name, h.trump = ("",) * 8
            return
        h.ns_name, h.ew_name = g.teams["NS"], g.teams["EW"]
        h.ns_total, h.ew_total = str(g.sheet.totals[0]), str(g.sheet.totals[1])
        h.dealer = seat_name(g.dealer) if g.status == "open" else ""
        h.badge = f"{h.dealer} deals" if h.dealer else "game over"
        h.dealer_name = g.players.get(h.dealer, "") if h.dealer else ""
        record = g.pending.record if g.pending else g.draft
        trump = (record or {}).get("trump")
        h.trump = theme.suit_markup("CDHS".index(trump)) if trump in ("C", "D", "H", "S") else ""

    def act(self, fn: Callable[P, R], *args: P.args, **kw: P.kwargs) -> tuple[R | None, list[str]]:
        """Calls a controller action; a refusal comes back as its lines, for the screen to show."""
        try:
            state = fn(*args, **kw)
        except ActionRefused as e:
            self._refused()
            return None, e.problems
        except StoreError as e:
            self._refused()
            return None, [str(e)]
        self.refresh_header()
        return state, []

    def _refused(self) -> None:
        if self.panel is not None:
            self.panel.refused()

    def panel_action(self, kind: str, arg: Any = None) -> None:
        """A dealer button, on the main thread: NEXT, BACK, a long BACK (undo), or a seat button."""
        self.wake()
        g = self.game
        if g is None:
            self._refused()
            return
        table = self.table
        calls = {
            "next": (table.move_deal, ("next",)),
            "back": (table.move_deal, ("back",)),
            "undo": (table.undo, ()),
            "seat": (table.deal_to, (arg,)),
        }
        fn, args = calls[kind]
        with table.acting_as("button"):
            state, _ = self.act(fn, g.id, *args, action_id=new_action_id())
        if state is not None and self.manager.current in ("sheet", "over", "summary"):
            after = "over" if state.status != "open" else "summary" if state.pending else "sheet"
            self.show(after)

    def table_quiet(self, fn: Any, *args: Any) -> GameState | None:
        """An action whose refusal needs no words now (a half-made entry kept when it can be)."""
        state, _ = self.act(fn, *args, action_id=new_action_id())
        return state

    # ---- dimming ------------------------------------------------------------------------------------

    def on_touch_down(self, touch: Any) -> bool:
        self.restart_idle()
        if self.touches is not None:
            self.touches.touch()
        if self.owner_pin:
            self._owner_active()
        return bool(super().on_touch_down(touch))

    def restart_idle(self) -> None:
        """The idle time starts again (a touch, a button, a new dim time chosen)."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if self.dim_after > 0:
            self._idle = Clock.schedule_once(self.dim, self.dim_after)

    def dim(self, *_: Any) -> None:
        """Darkens the screen (idle), never blank: the table still needs to see whose deal it is.
        The owner's menu locks with it."""
        self.dimmer.level = DIMMED
        self.lock_owner(LOCKED_ON_DIM)

    def wake(self, *_: Any) -> None:
        self.dimmer.level = 0
        self.restart_idle()
        if self.touches is not None:
            self.touches.touch()


# Each screen's module and class, imported when the screen is first shown: a table starts on
# the start screen and most never open the replay or the owner's menu.
SCREEN_CLASS = {
    "start": ("start", "StartScreen"),
    "sheet": ("sheet", "SheetScreen"),
    "quick": ("quick", "QuickScreen"),
    "summary": ("summary", "SummaryScreen"),
    "cards": ("cards", "CardsScreen"),
    "replay": ("dispute", "ReplayScreen"),
    "over": ("over", "OverScreen"),
    "owner": ("owner", "OwnerScreen"),
}


def _screen(name: str) -> Any:
    module, cls = SCREEN_CLASS[name]
    load_style(name)  # its rules first: a rule loaded later does not reach a widget made before
    return getattr(import_module(f"kiosk.ui.{module}"), cls)(name=name)


# The kv rules each screen needs besides the shared ones (common, app), loaded when the screen is
# first made: parsing all of them before the first frame cost a table's start-up a fifth of a second.
KV_OF = {
    "start": ("start",),
    "sheet": ("sheet",),
    "quick": ("quick", "pickers"),
    "summary": ("quick",),
    "cards": ("quick", "pickers", "cards"),
    "replay": ("dispute",),
    "over": ("sheet", "over"),
    "owner": ("pickers", "owner"),
}


def load_style(*screens: str) -> None:
    """Fonts and the shared kv rules, once per process; and those of ``screens`` (every screen's
    when none is named: a test's walk)."""
    LabelBase.register(DEFAULT_FONT, fn_regular=font_path(), fn_bold=font_path(bold=True))
    names = ["common", "app"] + [n for s in (screens or KV_OF) for n in KV_OF[s]]
    for name in dict.fromkeys(names):
        kv = KV / f"{name}.kv"
        if str(kv) not in Builder.files:
            Builder.load_file(str(kv))
    Window.clearcolor = theme.BG


def post_to_main(fn: Any) -> None:
    """Runs ``fn`` on Kivy's main thread (gpiozero calls back on threads of its own)."""
    Clock.schedule_once(lambda _dt: fn(), 0)


def mock_keys(gpio: Any) -> dict[int, int]:
    """Keyboard keys for the buttons with no GPIO: arrows or n/b for NEXT/BACK, 1-4 for seat buttons."""
    keys = {275: gpio.next_pin, ord("n"): gpio.next_pin, 276: gpio.back_pin, ord("b"): gpio.back_pin}
    for i, seat in enumerate("NESW"):
        if seat in gpio.seat_button_pins:
            keys[ord(str(i + 1))] = gpio.seat_button_pins[seat]
    return keys


def _rss_kb() -> int:
    """This process's resident memory, for the benchmarks."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class KioskApp(App):
    """``clabber kiosk``: the score sheet on the table's touchscreen."""

    title = "Clabber"
    root: Any  # the score sheet, or the waiting screen while the database cannot open
    use_kivy_settings = False

    def __init__(
        self,
        table: Table | None,
        notice: str | None = None,
        dim_after: float = 300,
        backup_dir: Path | None = None,
        backups_keep: int = 14,
        exit_at_first_frame: bool = False,
        gpio: Any = None,
        state_dir: Path | None = None,
        public_url: str = "http://127.0.0.1:8080",
        reopen: Any = None,
        retry_every: float = 10,
        px_per_mm: float | None = None,
        panel: tuple[int, int] = (800, 480),
        receipts: Any = None,
        touches: Any = None,
        **kw: Any,
    ) -> None:
        """``table`` None: the database could not be opened (``notice`` says why); ``reopen``
        tries again, giving (table, notice) or raising StoreError, until it works."""
        super().__init__(**kw)
        self.reopen = reopen
        self.retry_every = retry_every
        self.public_url = public_url
        self.gpio = gpio
        self.state_dir = state_dir
        self.panel: Any = None
        self.table = table
        self.notice = notice
        self.dim_after = dim_after
        self.backup_dir = backup_dir
        self.backups_keep = backups_keep
        self.exit_action: str | None = None  # "restart" or "shutdown", chosen in the owner's menu
        self._exit_at_first_frame = exit_at_first_frame
        self.px_per_mm = px_per_mm or theme.panel_px_per_mm(*panel)
        self.receipts = receipts
        self.touches = touches

    def build(self) -> Any:
        theme.set_panel(self.px_per_mm)
        load_style("start")  # the shared rules now; each other screen's when it is first made
        if self.table is None:
            from kiosk.ui.notice import WaitingRoot

            root = WaitingRoot(self.notice or "", self._reopen, every=self.retry_every)
        else:
            root = self._kiosk_root()
        if self._exit_at_first_frame:
            Window.bind(on_flip=self._first_frame)
        Window.bind(on_flip=self._ready)
        return root

    def _kiosk_root(self) -> KioskRoot:
        assert self.table is not None  # the score sheet starts once the database is open
        root = KioskRoot(self.table, self.notice, dim_after=self.dim_after)
        root.public_url = self.public_url
        root.receipts = self.receipts
        root.touches = self.touches
        return root

    def _reopen(self) -> str | None:
        """One more try at the database; on success the score sheet replaces the waiting screen.
        Returns why it still cannot be used, or None."""
        import logging

        try:
            self.table, self.notice = self.reopen()
        except StoreError as e:
            if str(e) != self.notice:
                logging.getLogger("clabber.store").warning("%s", e)
            self.notice = str(e)
            return str(e)
        logging.getLogger("clabber.store").info("the database is open: the score sheet starts")
        waiting = self.root
        self.root = self._kiosk_root()
        Window.remove_widget(waiting)
        Window.add_widget(self.root)
        if self.panel is not None:
            self.root.panel = self.panel
            self.panel.act = self.root.panel_action
            self.root.refresh_header()
        return None

    def _ready(self, *_: Any) -> None:
        """The first frame is drawn: tell systemd, and ping its watchdog from the Kivy clock, so a
        frozen screen (a clock that stops) gets the kiosk restarted."""
        from kiosk.notify import notify, watchdog_interval

        Window.unbind(on_flip=self._ready)
        if self.gpio is not None and self.gpio.mode != "off":
            # The buttons and lights come up right after the first frame: the screen never waits.
            Clock.schedule_once(lambda _dt: self._start_panel(self.root), 0)
        notify("READY=1")
        interval = watchdog_interval()
        if interval:
            Clock.schedule_interval(lambda _dt: notify("WATCHDOG=1"), interval)

    def _start_panel(self, root: KioskRoot) -> None:
        import logging

        from gpiozero.pins.mock import MockFactory

        from kiosk.buttons import DealerPanel, pin_factory

        factory, what = pin_factory(self.gpio.mode, self.state_dir)
        logging.getLogger("clabber.gpio").info("dealer buttons and seat lights: %s", what)
        waiting = not isinstance(root, KioskRoot)  # the database is not open yet: buttons do nothing
        act = (lambda *_a: None) if waiting else root.panel_action
        self.panel = DealerPanel(self.gpio, factory, act=act, post=post_to_main)
        self.panel.self_test()
        if not waiting:
            root.panel = self.panel
            root.refresh_header()
        if isinstance(factory, MockFactory):
            # No GPIO here: the keyboard presses the buttons and the screen shows the lights.
            self._keys = mock_keys(self.gpio)
            Window.bind(on_key_down=self._key_down, on_key_up=self._key_up)
            Clock.schedule_interval(lambda _dt: self._show_lights(), 0.1)

    def _show_lights(self) -> None:
        root = self.root
        if isinstance(root, KioskRoot):
            root.header.show_lights = True
            root.header.set_lights(self.panel.lit())

    def _key_down(self, _w: Any, key: int, *_: Any) -> bool:
        return self._drive(key, pressed=True)

    def _key_up(self, _w: Any, key: int, *_: Any) -> bool:
        return self._drive(key, pressed=False)

    def _drive(self, key: int, pressed: bool) -> bool:
        pin_number = self._keys.get(key)
        if pin_number is None:
            return False
        pin = self.panel.factory.pin(pin_number)
        level = not pressed if self.gpio.pull_up else pressed  # pulled up: pressing pulls the pin low
        if pin.state != level:  # the keyboard's auto-repeat is not a new press
            (pin.drive_high if level else pin.drive_low)()
        return True

    def on_stop(self) -> None:
        if self.panel is not None:
            self.panel.close()
        if self.receipts is not None:
            self.receipts.close()  # a receipt being printed is finished first (a few seconds at most)

    def _first_frame(self, *_: Any) -> None:
        Window.unbind(on_flip=self._first_frame)
        print(f"first-frame rss_kb={_rss_kb()}", flush=True)
        Clock.schedule_once(lambda _dt: self.stop(), 0)  # after what the first frame set going

    def open_settings(self, *_: Any) -> bool:
        """Kivy opens its settings panel on F1 (a USB keyboard at the bar): never on the kiosk."""
        return False

    def close_settings(self, *_: Any) -> bool:
        return False
