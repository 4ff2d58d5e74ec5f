"""The owner's menu behind the PIN: corrections, abandoning, settings, statistics, the league, backups,
updates (kiosk/ui/owner_updates.py), restart."""

from __future__ import annotations

import threading
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.utils import escape_markup

from kiosk.league_words import all_sent, sync_words
from kiosk.pin import MAX_DIGITS, MIN_DIGITS, valid_pin
from kiosk.store import StoreError
from kiosk.ui import theme
from kiosk.ui.base import KioskScreen
from kiosk.ui.owner_updates import UpdatesStep
from kiosk.ui.pickers import ReasonPicker
from kiosk.ui.words import plain
from shared.events import new_action_id
from shared.game_state import ActionRefused
from shared.present import sheet_lines
from shared.stats import BY_KEY, Figure, Line, board

ABANDON_REASONS = ("bar closing", "players left", "started by mistake", "dispute not settled")
ROTATIONS = ("0", "90", "180", "270")
DIM_CHOICES = ("60", "300", "900", "0")  # seconds; 0 never dims
MOST_ADDRESS = 120  # characters of a league's address
MOST_CODE = 14  # the organiser's code: 10 characters, and a dash or two
LEAGUE_EVERY = 2.0  # seconds between two looks at the sync while the league's status is shown
# The statistics: the figures the owner steps through, and how many teams or players a list shows.
STATS_SORTS = (
    *("wins", "win_rate", "make_rate", "average", "biggest", "sets_taken", "sets_given"),
    *("mules", "hundreds", "fifties", "dads", "bells", "reneges", "pass_outs"),
)
STATS_SHOWN = 30


def _stats_row(x: Line, figure: Figure) -> tuple[str, str, str, str]:
    name = f"{x.position}. {x.name}" + (f" ({x.team})" if x.team else "")
    return name, str(x.figures.games), BY_KEY["wins"].shown(x.figures), figure.shown(x.figures)


def hand_button(line: dict[str, Any]) -> str:
    """A hand as "Which hand?" offers it: its number and dealer, each team's cell named, its notes."""
    notes = " · ".join(line["notes"])
    return f"{line['head']}: NS {line['ns']}, EW {line['ew']}" + (
        f"\n[size={int(theme.small())}]{notes}[/size]" if notes else ""
    )


class OwnerScreen(UpdatesStep, KioskScreen):
    """PIN first; then the menu."""

    step = StringProperty("pin")  # pin, choose, menu, correct, settings, reprint, stats, league, join, leave, updates
    recent = ListProperty([])  # "id|label" of the recent games to print again
    printed = StringProperty("")  # what the printer last said about a reprint
    pin = StringProperty("")
    choosing = StringProperty("")  # the new PIN as first typed, while it is typed again
    notes = StringProperty("")
    message = StringProperty("")
    hands = ListProperty([])
    rules = StringProperty("evansville")
    rotation = StringProperty("0")
    dim_after = StringProperty("300")
    light = StringProperty("")
    locked_for = NumericProperty(0)  # seconds PIN entry stays locked after wrong PINs
    address = StringProperty("")  # the league's address, as typed
    code = StringProperty("")  # the organiser's one-time code, as typed
    editing = StringProperty("address")
    joining = BooleanProperty(False)  # the code is on its way to the league
    league_said = StringProperty("")  # the sync in a sentence
    league_lines = StringProperty("")  # where the kiosk sits, deliveries, errors, games held
    league_good = BooleanProperty(False)  # everything delivered
    stats_who = StringProperty("teams")  # or players
    stats_sort = StringProperty("wins")
    stats_said = StringProperty("")  # what the list counts, in a sentence
    stats_rows = ListProperty([])  # a heading and one row a team or player: name, games, wins, the figure
    join_timeout = 10.0  # seconds the league has to answer a code
    _ticking: Any = None
    _watching: Any = None
    _stats: Any = (0, [], [])

    def on_step(self, _w: Any, step: str) -> None:
        self.ids.steps.current = step

    def enter(self, root: Any, locked: str | None = None, **options: Any) -> None:
        self.root_ = root
        self.pin = ""
        self.notes = locked or ""
        self.message = ""  # a notice for the owner is in the banner over every screen
        self.choosing = ""
        # No PIN yet (a new kiosk): the owner chooses one here, on the screen.
        self.step = "menu" if root.owner_pin else "pin" if root.table.has_pin() else "choose"
        self._show_lock()
        table = root.table
        self.rules = table.kiosk_setting("rules_for_new_games", "evansville")
        self.rotation = table.kiosk_setting("rotation", "0")
        self.dim_after = table.kiosk_setting("dim_after", str(int(root.dim_after)))

    def key(self, key: str) -> None:
        if key == "C":
            self.pin = ""
        elif key == "⌫":
            self.pin = self.pin[:-1]
        elif len(self.pin) < MAX_DIGITS:
            self.pin += key

    def unlock(self) -> None:
        _, problems = self.root_.act(self.root_.table.check_pin, self.pin)
        if problems:
            self.pin = ""
            lock = self._show_lock()
            said = "\n".join(plain(p)[1] for p in problems)  # the controller's words, capitalised as the screen's
            self.notes = f"{lock.failures} wrong PINs in a row." if lock.seconds_left else said
            return
        self.root_.owner_pin = self.pin
        self.notes = ""
        if len(self.pin) < MIN_DIGITS:  # set before PINs needed six digits: still opens, but is weak
            self.notes = f"This PIN has {len(self.pin)} digits: choose one of {MIN_DIGITS} or more (New PIN)."
        self.step = "menu"

    def new_pin(self) -> None:
        """The owner chooses a new PIN (the menu is open: the old one was just typed)."""
        self.pin, self.choosing, self.notes = "", "", ""
        self.step = "choose"

    def choose(self) -> None:
        """The new PIN typed once, then again; the same twice, it is the owner's PIN."""
        table = self.root_.table
        if not self.choosing:
            why = valid_pin(self.pin)
            if why:
                self.notes, self.pin = why[:1].upper() + why[1:] + ".", ""
                return
            self.choosing, self.pin, self.notes = self.pin, "", ""
            return
        if self.pin != self.choosing:
            self.notes, self.pin, self.choosing = "The two PINs differ: choose it again.", "", ""
            return
        _, problems = self.root_.act(table.set_pin, self.pin, self.root_.owner_pin or None)
        if problems:
            self.notes, self.pin, self.choosing = problems[0][:1].upper() + problems[0][1:] + ".", "", ""
            return
        self.root_.owner_pin, self.pin, self.choosing = self.pin, "", ""
        self.message, self.notes = "The owner's PIN is set.", ""
        self.step = "menu"

    def cancel_choosing(self) -> None:
        self.pin, self.choosing, self.notes = "", "", ""
        if self.root_.owner_pin:
            self.step = "menu"
        else:
            self.close()

    def _show_lock(self) -> Any:
        """Shows how long PIN entry stays locked, counting down while it is."""
        lock = self.root_.table.pin_lock()
        self.locked_for = lock.seconds_left
        if lock.seconds_left and self._ticking is None:
            self._ticking = Clock.schedule_interval(self._tick, 0.5)
        return lock

    def _tick(self, _dt: float) -> bool:
        if self.get_root_window() is None or self.manager is None or self.manager.current != "owner":
            self._ticking = None
            return False  # not shown: entering the screen again starts the countdown again
        self.locked_for = self.root_.table.pin_lock().seconds_left
        if self.locked_for:
            return True
        self._ticking = None
        self.notes = ""
        return False

    def close(self) -> None:
        self.root_.owner_pin = ""
        g = self.root_.game
        self.root_.show("start" if g is None else "sheet" if g.status == "open" else "over")

    # ---- the menu -------------------------------------------------------------------------------------

    def correct(self) -> None:
        g = self.root_.game
        if g is None or not g.hands:
            self.notes = "No hand on the sheet to correct."
            return
        # Each hand with what it scored, as the sheet has it: the owner finds the one to correct.
        self.hands = [f"{line['number']}|{hand_button(line)}" for line in sheet_lines(g)]
        self.step = "correct"

    def fill_hands(self, grid: Any) -> None:
        from kiosk.ui.widgets import Big

        grid.clear_widgets()
        for entry in self.hands:
            number, text = entry.split("|", 1)
            b = Big(text=text)
            b.bind(on_release=lambda _b, n=int(number): self.correct_hand(n))
            grid.add_widget(b)
            self.ids[f"hand_{number}"] = b

    def correct_hand(self, number: int) -> None:
        g = self.root_.game
        self.root_.show("quick", correct=number, record=g.hands[number - 1].record)

    def abandon(self) -> None:
        if self.root_.game is None:
            self.notes = "No game is open."
            return
        ReasonPicker(
            title="Why abandon this game?", reasons=list(ABANDON_REASONS), screen=self, purpose="abandon"
        ).open()

    def reason_chosen(self, purpose: str, reason: str) -> None:
        if not self.root_.owner_pin:
            return  # the menu locked while the picker was open
        state, problems = self.root_.act(
            self.root_.table.abandon, self.root_.game_id, reason, self.root_.owner_pin, action_id=new_action_id()
        )
        self.notes = "\n".join(problems)
        if state is not None:
            self.root_.owner_pin = ""
            self.root_.show("over")

    def settings(self) -> None:
        self.step = "settings"

    # ---- receipts -------------------------------------------------------------------------------------

    def reprint(self) -> None:
        """The recent games, newest first, to print again."""
        receipts = self.root_.receipts
        if receipts is None or not receipts.configured:
            self.notes = "No receipt printer is set up (the config's [printer] section)."
            return
        games = [g for g in self.root_.table.games(limit=6) if g.get("hands")][:6]
        if not games:
            self.notes = "No game with a hand on the sheet to print."
            return
        self.recent = [
            f"{g['id']}|#{g['id']} {g['team_ns']} {g['total_ns']} – {g['total_ew']} {g['team_ew']}" for g in games
        ]
        self.printed = ""
        self.step = "reprint"

    def fill_recent(self, grid: Any) -> None:
        from kiosk.ui.widgets import Big

        grid.clear_widgets()
        for entry in self.recent:
            game, text = entry.split("|", 1)
            b = Big(text=text)
            b.bind(on_release=lambda _b, n=int(game): self.reprint_game(n))
            grid.add_widget(b)
            self.ids[f"reprint_{game}"] = b

    def reprint_game(self, game: int) -> None:
        receipts = self.root_.receipts
        self.printed = f"Printing game {game}…"
        receipts.print_game(self.root_.table.game(game), reprint=True, done=self._reprinted)

    def _reprinted(self, outcome: Any) -> None:
        self.printed = outcome.message

    def set_setting(self, key: str, value: str) -> None:
        """Stores the owner's choice and applies it at once."""
        try:
            self.root_.table.set_kiosk_setting(key, value)
        except (ActionRefused, StoreError) as e:
            self.notes = str(e)
            return
        setattr(self, {"rules_for_new_games": "rules", "rotation": "rotation", "dim_after": "dim_after"}[key], value)
        if key == "dim_after":
            self.root_.dim_after = int(value)
        elif key == "rotation":
            from kivy.core.window import Window

            Window.rotation = int(value)

    # ---- the statistics --------------------------------------------------------------------------------

    def statistics(self) -> None:
        """The teams' (or players') figures over the games that ended here, by the names typed."""
        try:
            self._stats = self.table.statistics()
        except StoreError as e:
            self.notes = str(e)
            return
        self.step = "stats"
        self._show_stats()

    def show_stats(self, who: str) -> None:
        self.stats_who = who
        self._show_stats()

    def next_sort(self) -> None:
        self.stats_sort = STATS_SORTS[(STATS_SORTS.index(self.stats_sort) + 1) % len(STATS_SORTS)]
        self._show_stats()

    def _show_stats(self) -> None:
        games, teams, players = self._stats
        b = board(teams if self.stats_who == "teams" else players, self.stats_sort, 1)
        figure = BY_KEY["win_rate" if self.stats_sort == "wins" else self.stats_sort]
        heading = ("Team" if self.stats_who == "teams" else "Player (team)", "G", "W", figure.header)
        self.stats_rows = [heading, *(_stats_row(x, figure) for x in b.lines[:STATS_SHOWN])]
        more = f", the first {STATS_SHOWN} shown" if len(b.lines) > STATS_SHOWN else ""
        self.stats_said = (
            f"{games} game{'' if games == 1 else 's'} ended at this table; "
            f"{len(b.lines)} {self.stats_who} by the names typed{more}, by {BY_KEY[self.stats_sort].words}."
            if b.lines
            else "No game has ended at this table yet."
        )

    def fill_stats(self, box: Any) -> None:
        """The list: a row a team or player, the name wide, then games, wins and the figure sorted by."""
        from kivy.uix.boxlayout import BoxLayout
        from kivy.uix.label import Label

        from kiosk.ui import theme as T
        from kiosk.ui.widgets import text_width

        box.clear_widgets()
        # The figures' columns as wide as their widest text, the heading's in bold; the name the rest.
        widths: list[float | None] = [None]
        for j in (1, 2, 3):
            texts = [(row[j], i == 0) for i, row in enumerate(self.stats_rows)]
            widths.append(max(text_width(t, T.small(), bold=b) for t, b in texts) + T.mm(5))  # apart: "1 1" is not 11
        one = T.line(T.small())
        for i, row in enumerate(self.stats_rows):
            line = BoxLayout(size_hint_y=None, height=one)
            for j, text in enumerate(row):
                cell = Label(text=text, bold=i == 0, halign="left" if j == 0 else "right", valign="middle")
                if widths[j] is not None:
                    cell.size_hint_x, cell.width = None, widths[j]
                cell.bind(size=lambda c, size: setattr(c, "text_size", (size[0] - T.mm(1), None)))
                if j == 0:  # a long name (and its team) takes a second line rather than being cut
                    cell.bind(texture_size=lambda _c, ts, line=line: setattr(line, "height", max(one, ts[1] + 4)))
                line.add_widget(cell)
            box.add_widget(line)

    # ---- the league ------------------------------------------------------------------------------------

    def league(self) -> None:
        """The league's status, or the form to join one."""
        joined = self._show_league()
        self.step = "league" if joined else "join"
        if joined and self._watching is None:
            self._watching = Clock.schedule_interval(self._watch_league, LEAGUE_EVERY)

    def _show_league(self) -> bool:
        status = self.table.league_status()
        said, lines = sync_words(status, self.table.clock())
        from shared.present import unbroken

        said, lines = unbroken(said), [unbroken(line) for line in lines]
        self.league_said, self.league_lines, self.league_good = said, "\n".join(lines), all_sent(status)
        return status["league"] is not None

    def _watch_league(self, _dt: float) -> bool:
        """The sync worker writes as it goes: its word is read again while the status is shown."""
        if self.get_root_window() is None or self.manager.current != "owner" or self.step != "league":
            self._watching = None
            return False
        self._show_league()
        return True

    def type(self, key: str) -> None:
        """A key of the on-screen keyboard, into the address (lower case) or the code (capitals)."""
        text = getattr(self, self.editing)
        if key == "⌫":
            text = text[:-1]
        elif self.editing == "code":
            text = (text + key.upper())[:MOST_CODE]
        else:
            text = (text + key.lower())[:MOST_ADDRESS]
        setattr(self, self.editing, text)

    def next_field(self) -> None:
        self.editing = "code" if self.editing == "address" else "address"

    def join(self) -> None:
        """Sends the code to the league on a thread of its own: the screen never waits on the network."""
        if self.joining or not self.root_.owner_pin:
            return
        try:
            enrolment = self.table.start_joining(self.address, self.code, self.root_.owner_pin)
        except (ActionRefused, StoreError) as e:
            self.notes = str(e)
            return
        self.joining = True
        self.notes = ""
        self.message = "Joining the league…"
        ask = threading.Thread(target=self._exchange, args=(enrolment, self.join_timeout), name="league-join")
        ask.daemon = True
        ask.start()

    def _exchange(self, enrolment: Any, timeout: float) -> None:
        """On its own thread: asks the league, touching neither the store nor a widget."""
        from kiosk.league_link import LinkRefused

        try:
            outcome: tuple[str, Any] = ("joined", enrolment.exchange(timeout))
        except LinkRefused as e:
            outcome = ("refused", str(e))
        except Exception as e:  # anything else is still a refusal in words, never a dead screen
            outcome = ("refused", f"joining failed: {e}")
        Clock.schedule_once(lambda _dt: self._answered(*outcome), 0)

    def _answered(self, outcome: str, answer: Any) -> None:
        """Back on the screen's thread: the league's answer is kept (or its refusal shown)."""
        self.joining = False
        self.message = ""
        if outcome != "joined":
            self.notes = answer
            return
        try:
            joined = self.table.finish_joining(answer)
        except (ActionRefused, StoreError) as e:
            self.notes = str(e)
            return
        self.code = ""
        self.message = f"Joined the league: {joined['venue']['name']}, table {joined['table']}."
        self.root_.refresh_sync()
        if self.step == "join":
            self.league()

    def leave(self) -> None:
        if not self.root_.owner_pin:
            return
        try:
            self.table.leave_league(self.root_.owner_pin)
        except (ActionRefused, StoreError) as e:
            self.notes = str(e)
            return
        self.message = "This kiosk has left the league; its league games stay on it."
        self.root_.refresh_sync()
        self.step = "menu"

    def field_text(self, label: str, text: str, empty: str) -> str:
        return f"{label}: {escape_markup(text) if text else empty}"

    def light_test(self) -> None:
        if self.root_.panel is not None:
            self.root_.panel.self_test()  # the real lights (or, with no GPIO, the ones on screen)
        seats = ["N", "E", "S", "W", "N", "E", "S", "W", ""]

        def step(i: int) -> None:
            self.light = seats[i]
            self.root_.header.dealer = seats[i]
            if i + 1 < len(seats):
                Clock.schedule_once(lambda _dt: step(i + 1), 0.35)
            else:
                self.root_.refresh_header()

        step(0)

    def backup(self) -> None:
        app = App.get_running_app()
        folder = getattr(app, "backup_dir", None) if app else None
        keep = getattr(app, "backups_keep", 14) if app else 14
        if folder is None:
            self.notes = "No backup folder is configured."
            return
        try:
            path = self.root_.table.backup(folder, keep)
        except StoreError as e:
            self.notes = str(e)
            return
        self.message = f"Backed up to {path}"

    def restart(self) -> None:
        self._leave("restart")

    def shutdown(self) -> None:
        self._leave("shutdown")

    def _leave(self, how: str) -> None:
        app = App.get_running_app()
        if app is None:
            self.notes = "Not running as the kiosk."
            return
        app.exit_action = how
        app.stop()
