"""The kiosk application: a header that is always there, the screens, idle dimming.

Every screen reads the game from the controller and calls its actions; none holds rules.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

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
from kiosk.game_state import ActionRefused, GameState
from kiosk.store import StoreError
from kiosk.table import Table
from kiosk.ui import theme
from kiosk.ui.boot import font_path

KV = Path(__file__).parent / "kv"
SCREENS = ("start", "sheet", "quick", "summary", "cards", "replay", "over", "owner")


def action_id() -> str:
    """A fresh id for one thing a player means to do; a double tap repeats it, not a new one."""
    return uuid.uuid4().hex


class Dimmer(FloatLayout):
    """Darkens the screen after an idle time; the first touch only wakes it."""

    level = NumericProperty(0.0)

    def on_touch_down(self, touch: Any) -> bool:
        if self.level > 0:
            self.level = 0
            return True
        return False


class KioskRoot(FloatLayout):
    """The header, the screen manager, and the dimmer over them."""

    game_id = NumericProperty(0)
    notice = StringProperty("")
    owner_pin = StringProperty("")  # held only while the owner's menu is open
    table = ObjectProperty(None)

    def __init__(self, table: Table, notice: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.table = table
        self.notice = notice or ""
        self.box = BoxLayout(orientation="vertical")
        from kiosk.ui.widgets import Header

        self.header = Header()
        self.manager = ScreenManager(transition=NoTransition())  # screens are built when first shown
        self.box.add_widget(self.header)
        self.box.add_widget(self.manager)
        self.add_widget(self.box)
        self.dimmer = Dimmer()
        self.add_widget(self.dimmer)
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
        self.refresh_header()

    def refresh_header(self) -> None:
        g = self.game
        h = self.header
        if g is None:
            h.ns_name, h.ew_name, h.ns_total, h.ew_total, h.dealer, h.trump = "Clabber", "", "", "", "", ""
            return
        h.ns_name, h.ew_name = f"{g.teams['NS']} · NS", f"{g.teams['EW']} · EW"
        h.ns_total, h.ew_total = str(g.sheet.totals[0]), str(g.sheet.totals[1])
        h.dealer = seat_name(g.dealer) if g.status == "open" else ""
        record = g.pending.record if g.pending else g.draft
        trump = (record or {}).get("trump")
        h.trump = f"trump {theme.suit_markup('CDHS'.index(trump))}" if trump in ("C", "D", "H", "S") else ""

    def act(self, fn: Any, *args: Any, **kw: Any) -> tuple[GameState | None, list[str]]:
        """Calls a controller action; a refusal comes back as its lines, for the screen to show."""
        try:
            state = fn(*args, **kw)
        except ActionRefused as e:
            return None, e.problems
        except StoreError as e:
            return None, [str(e)]
        self.refresh_header()
        return state, []

    def table_quiet(self, fn: Any, *args: Any) -> GameState | None:
        """An action whose refusal needs no words now (a half-made entry kept when it can be)."""
        state, _ = self.act(fn, *args, action_id=action_id())
        return state

    def wake(self, *_: Any) -> None:
        self.dimmer.level = 0


def _screen(name: str) -> Any:
    from kiosk.ui import cards, dispute, over, owner, quick, sheet, start

    classes = {
        "start": start.StartScreen, "sheet": sheet.SheetScreen, "quick": quick.QuickScreen,
        "summary": quick.SummaryScreen, "cards": cards.CardsScreen, "replay": dispute.ReplayScreen,
        "over": over.OverScreen, "owner": owner.OwnerScreen,
    }  # fmt: skip
    return classes[name](name=name)


def load_style() -> None:
    """Fonts and kv rules, once per process."""
    LabelBase.register(DEFAULT_FONT, fn_regular=font_path(), fn_bold=font_path(bold=True))
    for kv in sorted(KV.glob("*.kv")):
        if str(kv) not in Builder.files:
            Builder.load_file(str(kv))
    Window.clearcolor = theme.BG


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

    def __init__(self, table: Table, notice: str | None = None, dim_after: float = 300,
                 backup_dir: Path | None = None, backups_keep: int = 14, exit_at_first_frame: bool = False,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(**kw)
        self.table = table
        self.notice = notice
        self.dim_after = dim_after
        self.backup_dir = backup_dir
        self.backups_keep = backups_keep
        self.exit_action: str | None = None  # "restart" or "shutdown", chosen in the owner's menu
        self._exit_at_first_frame = exit_at_first_frame
        self._idle: Any = None

    def build(self) -> KioskRoot:
        load_style()
        root = KioskRoot(self.table, self.notice)
        if self.dim_after > 0:
            Window.bind(on_touch_down=self._touched)
            self._idle = Clock.schedule_once(self._dim, self.dim_after)
        if self._exit_at_first_frame:
            Window.bind(on_flip=self._first_frame)
        return root

    def _first_frame(self, *_: Any) -> None:
        Window.unbind(on_flip=self._first_frame)
        print(f"first-frame rss_kb={_rss_kb()}", flush=True)
        self.stop()

    def _touched(self, *_: Any) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = Clock.schedule_once(self._dim, self.dim_after)

    def _dim(self, *_: Any) -> None:
        # Dim, never blank, while a game is open: the table still needs to see whose deal it is.
        if self.root is not None:
            self.root.dimmer.level = 0.6
