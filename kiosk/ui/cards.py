"""Card by card: tap the 24 cards in play order; the kiosk follows the turn and the tricks.

An unlawful card is only taken after "record as renege?": the engine proves a renege as soon
as the cards show one (a player who did not follow and later plays that suit, say).
"""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen

from engine.cards import SUIT_NAMES, card, card_name, card_symbol, parse_card
from engine.seats import SEAT_NAMES, team_name, team_of
from kiosk.game_state import ActionRefused
from kiosk.ui import theme
from kiosk.ui.app import action_id
from kiosk.ui.widgets import Big

ROWS = (3, 2, 1, 0)  # spades, hearts, diamonds, clubs from the top
COLUMNS = (5, 4, 3, 2, 1, 0)  # A K Q J 10 9


class RenegeQuestion(ModalView):
    """ "Record as renege?" before an unlawful card is taken."""

    _anim_duration = 0

    question = StringProperty("")

    def __init__(self, screen: Any, card_: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.screen, self.card_ = screen, card_

    def answer(self, record: bool) -> None:
        self.dismiss()
        if record:
            self.screen.play(self.card_, accept_renege=True)


class CardsScreen(Screen):
    """The 4x6 grid of cards, the trick on the table, whose turn, the points so far."""

    turn = StringProperty("")
    trick = StringProperty("")
    so_far = StringProperty("")
    notes = StringProperty("")
    maker = StringProperty("")
    trump = StringProperty("")
    finished = BooleanProperty(False)
    plays = ListProperty([])

    def enter(self, root: Any, **options: Any) -> None:
        self.root_ = root
        g = root.game
        draft = (g.draft or {}) if g else {}
        self.maker = draft.get("maker") or ""
        self.trump = draft.get("trump") or ""
        self.plays = list(draft.get("plays") or [])
        self._melds = draft.get("melds")
        self.notes = ""
        if not self.ids.grid.children:
            self._build_grid()
        self._done_id = action_id()
        self._show()

    def _build_grid(self) -> None:
        for suit in ROWS:
            for rank in COLUMNS:
                c = card(rank, suit)
                b = Big(text=theme.card_markup(c), font_size="22sp")
                b.card = card_name(c)
                b.bind(on_release=lambda btn: self.tap(btn.card))
                self.ids.grid.add_widget(b)
                self.ids[f"card_{card_name(c)}"] = b

    def set_maker(self, seat: str) -> None:
        self.maker = seat
        self._save(self._record())
        self._show()

    def set_trump(self, suit: str) -> None:
        self.trump = suit
        self._save(self._record())
        self._show()

    def _record(self, plays: list[str] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.trump:
            out["trump"] = self.trump
        if self.maker:
            out["maker"] = self.maker
        if self._melds:
            out["melds"] = self._melds
        out["plays"] = list(self.plays if plays is None else plays)
        if not out["plays"]:
            del out["plays"]
        return out

    def tap(self, name: str) -> None:
        if not (self.maker and self.trump):
            self.notes = "First tap who said play and the trump."
            return
        self.play(name)

    def play(self, name: str, accept_renege: bool = False) -> None:
        table, game_id = self.root_.table, self.root_.game_id
        before = table.preview(game_id, self._record())
        try:
            after = table.preview(game_id, self._record([*self.plays, name]))
        except ActionRefused as e:  # the card cannot be played at all (already played, say)
            self.notes = "\n".join(e.problems)
            return
        new = [r for r in after.reneges() if r not in before.reneges()]
        if new and not accept_renege:
            r = new[0]
            who = SEAT_NAMES[r.seat] if r.seat is not None else team_name(r.team)
            played = card_symbol(r.card) if r.card is not None else card_symbol(parse_card(name))
            q = RenegeQuestion(self, name)
            q.question = (f"{card_symbol(parse_card(name))} shows a renege by {who}: in trick {r.trick} "
                          f"{who} played {played} — {r.reason}.\nRecord it as a renege?")  # fmt: skip
            q.open()
            self._question = q
            return
        self.plays = [*self.plays, name]
        self._save(self._record())
        self._show(after)

    def undo(self) -> None:
        state, problems = self.root_.act(self.root_.table.undo, self.root_.game_id, action_id=action_id())
        self.notes = "\n".join(problems)
        if state is not None:
            self.enter(self.root_)

    def done(self) -> None:
        g = self.root_.game
        state, problems = self.root_.act(self.root_.table.enter_hand, g.id, self._record(), action_id=self._done_id)
        if state is None:
            self.notes = "\n".join(problems)
            return
        self.root_.show("summary")

    def cancel(self) -> None:
        g = self.root_.game
        if g is not None and g.draft:
            self.root_.act(self.root_.table.discard_draft, g.id, action_id=action_id())
        self.root_.show("sheet")

    def _save(self, record: dict[str, Any]) -> None:
        _, problems = self.root_.act(self.root_.table.save_draft, self.root_.game_id, record, action_id=action_id())
        self.notes = "\n".join(problems)

    def _show(self, hand: Any = None) -> None:
        table, game_id = self.root_.table, self.root_.game_id
        if hand is None:
            try:
                hand = table.preview(game_id, self._record())
            except ActionRefused:  # nothing tapped yet that the engine can read
                hand = None
        for s in SEAT_NAMES:
            self.ids[f"maker_{s}"].chosen = self.maker == s
        for i, letter in enumerate(SUIT_NAMES):
            self.ids[f"trump_{letter}"].chosen = self.trump == letter
            self.ids[f"trump_{letter}"].text = theme.suit_markup(i)
        played = set(self.plays)
        for suit in ROWS:
            for rank in COLUMNS:
                name = card_name(card(rank, suit))
                self.ids[f"card_{name}"].disabled = name in played
        if hand is None or hand.trump is None:
            self.turn, self.trick, self.so_far, self.finished = "Who said play, and trump?", "", "", False
            return
        self.finished = hand.finished
        reneges = hand.reneges()
        if reneges:
            r = reneges[0]
            self.turn = f"Renege by {team_name(r.team)}: play ends."
        elif len(hand.plays) == 24:
            self.turn = "All 24 cards played."
        else:
            seat = hand.next_player
            self.turn = f"{SEAT_NAMES[seat]} ({team_name(team_of(seat))}) to play"
        tricks = hand.tricks()
        if tricks:
            last = tricks[-1]
            cards = "  ".join(f"{SEAT_NAMES[last.seat_of(i)]} {theme.card_markup(c)}" for i, c in enumerate(last.cards))
            won = f"  → {SEAT_NAMES[last.winner]} wins {last.points}" if last.winner is not None else ""
            self.trick = f"Trick {len(tricks)}: {cards}{won}"
        else:
            self.trick = f"{SEAT_NAMES[hand.next_player]} leads trick 1" if hand.next_player is not None else ""
        self.so_far = f"So far NS {hand.won[0]} · EW {hand.won[1]}"
