"""Replay for disputes: any hand of any game, trick by trick, with every renege shown, and for a hand
entered card by card what best play with every card open gave (each team's first costly card marked).

Each line of a trick is a label of its own in a list a finger scrolls: a renege in the error colour,
hindsight in amber, a card under its trick indented (its wrapped lines too). After the score, the
bid's odds from what the maker could know: seconds of work on a Pi, done off the screen's thread
(the line says it is being worked out until it is)."""

from __future__ import annotations

import threading
from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.label import Label

from engine.hand import Hand
from engine.odds import Odds
from engine.seats import seat_name
from kiosk.ui.base import KioskScreen
from shared.present import corrections_said, unbroken
from shared.replay import ODDS, Line, hindsight_lines, odds_after, odds_lines, opening_lines, result_lines, trick_lines


class ReplayLine(Label):
    """One line of the replay, styled by its kind (shared/replay.py) and indented by its depth."""

    kind = StringProperty("")
    depth = NumericProperty(0)


class ReplayScreen(KioskScreen):
    """Steps through a hand; quick entries show their entry and its trail."""

    game_number = NumericProperty(0)
    hand_number = NumericProperty(0)
    trick_number = NumericProperty(0)  # 0: the opening (deal, bidding, melds)
    tricks = NumericProperty(0)
    title = StringProperty("")
    body = StringProperty("")  # the lines shown, as plain text
    banner = StringProperty("")
    has_hands = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._worked: dict[Hand, Odds | None] = {}  # each finished hand's odds, once worked out
        self._working: set[Hand] = set()

    def show(self, game: int | None = None, hand: int | None = None, **options: Any) -> None:
        root = self.root_
        self.game_number = game or root.game_id
        g = root.table.game(self.game_number) if self.game_number else None
        self.hand_number = hand or (len(g.hands) if g else 0)
        self.trick_number = 0
        self._show()

    def step_game(self, step: int) -> None:
        ids = sorted(r["id"] for r in self.root_.table.games(500))
        if not ids:
            return
        i = ids.index(self.game_number) if self.game_number in ids else len(ids) - 1
        self.game_number = ids[max(0, min(len(ids) - 1, i + step))]
        self.hand_number = len(self.root_.table.game(self.game_number).hands)
        self.trick_number = 0
        self._show()

    def step_hand(self, step: int) -> None:
        g = self.root_.table.game(self.game_number)
        self.hand_number = max(1, min(len(g.hands), self.hand_number + step)) if g.hands else 0
        self.trick_number = 0
        self._show()

    def step_trick(self, step: int) -> None:
        self.trick_number = max(0, min(self.tricks + 1, self.trick_number + step))
        self._show()

    def back(self) -> None:
        self.home()

    def _show(self) -> None:
        if not self.game_number:
            self.title, self.banner, self.has_hands = "No games yet.", "", False
            self._lines([])
            return
        g = self.root_.table.game(self.game_number)
        self.has_hands = bool(g.hands)
        if not g.hands:
            self.title = f"Game {g.id}: {g.teams['NS']} v {g.teams['EW']} — no hands yet"
            self.banner, self.tricks = "", 0
            self._lines([])
            return
        entry = g.hands[self.hand_number - 1]
        hand = entry.hand
        self.tricks = len(hand.tricks())
        self.title = f"Game {g.id} · hand {self.hand_number} of {len(g.hands)} · {g.teams['NS']} v {g.teams['EW']}"
        reneges = hand.reneges()
        self.banner = ""
        if reneges:
            r = reneges[0]
            where = f" in trick {r.trick}" if r.trick else ""
            self.banner = f"RENEGE by {'NS' if r.team == 0 else 'EW'}{where}: {r.reason}"
        if self.trick_number == 0 or not self.tricks:
            lines = opening_lines(hand)
            if not hand.plays:
                entered = result_lines(hand, g.rules)
                lines += [Line("Entered quickly:")] + [Line(x.text, x.kind, x.depth + 1) for x in entered]
            steps = [
                f"{t['what']} {t['at'][11:16]} UTC from the {t['source']}"
                + (f" ({t['reason']})" if t["reason"] else "")
                for t in entry.trail()
            ]
            lines.append(Line("Trail: " + "; ".join(s for s in steps if not s.startswith("corrected"))))
            lines += [Line(c) for c in corrections_said(entry)]
        elif self.trick_number <= self.tricks:
            lines = trick_lines(hand, self.trick_number, g.rules)
        else:
            lines = result_lines(hand, g.rules) + hindsight_lines(hand, g.rules) + self._odds(hand)
        self._lines(lines)

    def _odds(self, hand: Hand) -> list[Line]:
        """The bid's odds once worked out; until then a line saying so, the work going on in a thread
        of its own and the screen shown again when it is done (if it still shows this hand)."""
        if not hand.finished or not hand.plays or hand.maker is None:
            return []
        if hand in self._worked:
            return odds_lines(hand, self._worked[hand])
        if hand not in self._working:
            self._working.add(hand)
            threading.Thread(target=self._work_out, args=(hand,), daemon=True, name="odds").start()
        maker = seat_name(hand.maker)
        return [Line(f"Working out the odds of {maker}'s bid from what {maker} could know…", ODDS)]

    def _work_out(self, hand: Hand) -> None:
        odds = odds_after(hand)
        Clock.schedule_once(lambda _dt: self._worked_out(hand, odds))

    def _worked_out(self, hand: Hand, odds: Odds | None) -> None:
        self._working.discard(hand)
        self._worked[hand] = odds
        if self.manager is not None and self.manager.current == self.name:
            self._show()

    def _lines(self, lines: list[Line]) -> None:
        """Shows ``lines`` in the list, from its top."""
        self.body = "\n".join(line.text for line in lines)
        box = self.ids.lines
        box.clear_widgets()
        for line in lines:
            box.add_widget(ReplayLine(text=unbroken(line.text), kind=line.kind, depth=line.depth))
        self.ids.scroll.scroll_y = 1
