"""The start screen: resume the unfinished game, or set up a new one; in a league, tonight's
meetings first, each started in one tap."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.utils import escape_markup

from engine.cards import card_name, card_symbol
from engine.deal import JackDraw
from engine.rules import PRESETS
from kiosk.league_words import Choice, Team, Tonight, meeting_between, new_game_for, sync_mark, tonight_view
from kiosk.ui import words
from kiosk.ui.base import KioskScreen
from shared.events import new_action_id

FIELDS = ("NS", "EW", "N", "E", "S", "W")
MAX_NAME = 24  # as typed on the screen's keys; the seat buttons shorten what does not fit


class StartScreen(KioskScreen):
    """Resume, or a new game: the rules and who deals first (the seat that got the first Jack, or
    the kiosk deals for the Jacks and says who changes seats), then the names where the players
    now sit, on the on-screen keyboard."""

    step = StringProperty("home")  # home (or tonight, in a league), deal, draw, names, league_teams
    names = DictProperty({f: "" for f in FIELDS})
    editing = StringProperty("NS")
    rules = StringProperty("evansville")
    resume_text = StringProperty("")
    draw_lines = ListProperty([])
    draw_next = StringProperty("Names ▶")  # what the draw's button leads to
    first_dealer = StringProperty("")  # who deals first, once the table has said or the draw has
    shift = StringProperty("upper")
    league_note = StringProperty("")  # where tonight's meetings are, or why the list may be old
    sync = StringProperty("")  # the league's sync mark, in words
    league_teams = BooleanProperty(False)  # an unscheduled league game can be picked
    pick_text = StringProperty("")
    start_text = StringProperty("Start ▶")  # or "Friendly game ▶": the two teams picked have no meeting
    tonight = ObjectProperty(Tonight())

    def on_step(self, _w: Any, step: str) -> None:
        self.ids.steps.current = step

    def show(self, setup: bool = False, **options: Any) -> None:
        root = self.root_
        self.message = ""  # a notice for the owner is in the banner over every screen
        open_game = root.table.open_game()
        if open_game is not None:
            t = open_game.sheet.totals
            ns, ew = escape_markup(open_game.teams["NS"]), escape_markup(open_game.teams["EW"])  # a button's markup
            self.resume_text = f"Resume: {ns} {t[0]} – {t[1]} {ew}"
        else:
            self.resume_text = ""
        self.rules = root.table.kiosk_setting("rules_for_new_games", "evansville")
        self.tonight = self._tonight()
        self.step = self.first_step()
        self._start_id = new_action_id()
        if setup:
            self.new_game()

    def _tonight(self) -> Tonight:
        table = self.table
        status = table.league_status()
        self.sync = sync_mark(status)
        return tonight_view(table.tonight(), status, table.league_games(), table.clock())

    def owner(self) -> None:
        self.root_.show("owner")

    def first_step(self) -> str:
        """Tonight's meetings in a league, the plain start otherwise."""
        return "tonight" if self.tonight.joined else "home"

    def on_tonight(self, _w: Any, view: Tonight) -> None:
        from shared.present import unbroken

        self.league_note = unbroken(view.note)
        self.league_teams = len(view.teams) >= 2
        grid = self.ids.meetings
        grid.clear_widgets()
        _forget_ids(self, "meeting_")
        from kiosk.ui.widgets import Big

        for i, choice in enumerate(view.meetings):
            b = Big(text=escape_markup(choice.text), disabled=not choice.playable)  # names are anyone's text
            b.bind(on_release=lambda _b, c=choice: self.start_meeting(c))
            grid.add_widget(b)
            self.ids[f"meeting_{i}"] = b

    # ---- league night ---------------------------------------------------------------------------------

    def start_meeting(self, choice: Choice) -> None:
        """One tap: the meeting's game starts with both teams, their players, the season's rules and
        the Jack draw for the first dealer (or its game still open here is resumed)."""
        if choice.open_game is not None:
            self.root_.game_id = choice.open_game
            g = self.root_.game
            self.root_.show("summary" if g.pending else "sheet")
            return
        self._start_league(choice.a, choice.b, choice.rules, choice.meeting)

    def _start_league(self, ns: Team, ew: Team, rules: dict[str, Any] | None, meeting: int | None) -> None:
        game = new_game_for(ns, ew, rules, meeting)
        state = self.act(
            self.table.new_game,
            game["teams"],
            game["players"],
            game["rules"] or self.rules,
            None,
            league=game["league"],
            action_id=self._start_id,
        )
        if state is None:
            return
        self.root_.game_id = state.id
        draw = state.jack_draw  # the kiosk dealt it: no first dealer was given
        self.draw_lines = _draw_lines(draw, league=True) if draw is not None else []
        self.draw_next = "Play ▶"
        self.step = "draw"
        self.root_.refresh_header()

    def unscheduled(self) -> None:
        """A league game the schedule does not list tonight: the table picks the team at NS, then EW."""
        self._picks: list[Team] = []
        self._fill_teams()
        self.step = "league_teams"

    def _fill_teams(self) -> None:
        from kiosk.ui.widgets import Big

        grid = self.ids.team_buttons
        grid.clear_widgets()
        _forget_ids(self, "team_")
        picks = self._picks
        for team in self.tonight.teams:
            seat = "NS" if picks and picks[0] == team else "EW" if len(picks) > 1 and picks[1] == team else ""
            b = Big(text=escape_markup(f"{seat}: {team.name}" if seat else team.name), chosen=bool(seat))
            b.bind(on_release=lambda _b, t=team: self.pick_team(t))
            grid.add_widget(b)
            self.ids[f"team_{team.id}"] = b
        ns = picks[0].name if picks else "tap the team at NS"
        ew = picks[1].name if len(picks) > 1 else ("tap the team at EW" if picks else "…")
        meeting = meeting_between(self.tonight, picks[0], picks[1]) if len(picks) == 2 else None
        self.start_text = "Friendly game ▶" if len(picks) == 2 and meeting is None else "Start ▶"
        self.pick_text = f"NS: {ns}    EW: {ew}"
        if len(picks) == 2 and meeting is None:
            self.pick_text += (
                "\nThey have no meeting in the league's list: the league cannot count their game."
                " Play it as a friendly game?"
            )
        self.message = ""

    def pick_team(self, team: Team) -> None:
        """The first team tapped sits NS, the second EW; tapping a picked team takes it back."""
        if team in self._picks:
            self._picks.remove(team)
        elif len(self._picks) < 2:
            self._picks.append(team)
        else:
            self._picks[1] = team
        self._fill_teams()

    def start_unscheduled(self) -> None:
        if len(self._picks) != 2:
            self.message = words.PICK_BOTH_TEAMS
            return
        ns, ew = self._picks
        meeting = meeting_between(self.tonight, ns, ew)
        if meeting is None:
            self._start_league(ns, ew, None, None)  # a friendly game between the two teams
        else:
            self._start_league(ns, ew, meeting.rules, meeting.meeting)

    def back_home(self) -> None:
        self.message = ""
        self.step = self.first_step()

    def resume(self) -> None:
        g = self.root_.table.open_game()
        if g is not None:
            self.root_.game_id = g.id
            self.root_.show("summary" if g.pending else "sheet")

    def new_game(self) -> None:
        """Who deals first comes first: the Jack draw may change seats, and names go where the
        players then sit."""
        self.names = {f: "" for f in FIELDS}
        self.editing = "NS"
        self.message = ""
        self.first_dealer = ""
        self._draw: JackDraw | None = None
        self.step = "deal"

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

    def choose_rules(self, name: str) -> None:
        if name in PRESETS:
            self.rules = name

    def choose_first(self, seat: str) -> None:
        """The table drew for the Jacks itself and sits as it says: this seat deals first."""
        self.first_dealer = seat
        self._draw = None
        self.message = ""
        self.step = "names"

    def deal_for_jacks(self) -> None:
        """The kiosk deals face up until the second Jack and says who changes seats."""
        self._draw = draw = self.table.deal_for_jacks()
        self.first_dealer = "NESW"[draw.first]
        self.draw_lines = _draw_lines(draw, league=False)
        self.draw_next = "Seated: names ▶" if draw.change() else "Names ▶"
        self.step = "draw"

    def start(self) -> None:
        """Starts the game with the names as typed, where the players sit now."""
        missing = [t for t in ("NS", "EW") if not self.names[t].strip()]
        if missing:
            self.message = words.name_the_team(missing[0])
            self.editing = missing[0]
            return
        players = {s: self.names[s] for s in "NESW" if self.names[s].strip()}
        draw = [card_name(c) for c in self._draw.cards] if self._draw is not None else None
        state = self.act(
            self.table.new_game,
            [self.names["NS"], self.names["EW"]],
            players or None,
            self.rules,
            None if draw else self.first_dealer,
            action_id=self._start_id,
            draw=draw,
        )
        if state is not None:
            self.root_.game_id = state.id
            self.root_.show("sheet")

    def done_draw(self) -> None:
        """Seated as the draw says: a league game starts (its teams are the league's); a friendly
        game goes on to the names."""
        if self.root_.game is not None:
            self.root_.show("sheet")
        else:
            self.step = "names"


def _draw_lines(draw: JackDraw, league: bool) -> list[str]:
    """The Jack draw for the table: who was dealt what, who deals first, who changes seats."""
    dealt: dict[str, list[str]] = {s: [] for s in "NESW"}
    for seat, card in zip(draw.seats, draw.cards, strict=True):
        dealt["NESW"[seat]].append(card_symbol(card))
    first, second = "NESW"[draw.first], "NESW"[draw.second]
    lines = [f"{s}: {' '.join(dealt[s])}" for s in "NESW"]
    lines.append(f"{first} got the first Jack and deals first.")
    if league:
        lines.append("The teams are the league's: nobody changes seats.")
        return lines
    change = draw.change()
    if change is not None:
        lines.append(f"{second} got the second Jack: {second} and {'NESW'[change[1]]} change seats.")
    else:
        lines.append(f"{second} got the second Jack and already sits opposite {first}.")
    return lines


def _forget_ids(screen: Any, prefix: str) -> None:
    """Drops the ids of buttons made for the last list (a shorter list must not leave old ones)."""
    for name in [n for n in screen.ids if n.startswith(prefix) and n[len(prefix) :].isdigit()]:
        del screen.ids[name]
