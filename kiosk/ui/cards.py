"""Card by card: tap the 24 cards in play order; the kiosk follows the turn and the tricks.

An unlawful card is only taken after "record as renege?": the engine proves a renege as soon
as the cards show one (a player who did not follow and later plays that suit, say). Melds are
announced before trick 1 with the quick entry's chips; a bell the plays complete is said at once,
and the table may take the card back.
"""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, DictProperty, ListProperty, StringProperty
from kivy.uix.modalview import ModalView

from engine.cards import SUIT_NAMES, card, card_name, card_symbol, parse_card
from engine.seats import SEAT_NAMES, team_name, team_of
from kiosk.ui import theme, words
from kiosk.ui.base import KioskScreen
from kiosk.ui.entry import MeldChip, chip_of
from kiosk.ui.quick import MeldPicker, chip_markup
from kiosk.ui.widgets import Big, CardButton
from shared.events import new_action_id
from shared.game_state import ActionRefused

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


class BellNotice(ModalView):
    """ "Bell — 20 for NS": said when the plays complete a bell; the card may be taken back."""

    _anim_duration = 0

    said = StringProperty("")

    def __init__(self, screen: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.screen = screen

    def answer(self, keep: bool) -> None:
        self.dismiss()
        if not keep:
            self.screen.take_back()


class MeldsPopup(ModalView):
    """The melds announced before trick 1, as the quick entry's chips, seat by seat."""

    _anim_duration = 0

    texts = DictProperty({s: "" for s in SEAT_NAMES})

    def __init__(self, screen: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.screen = screen
        self.refresh()

    def refresh(self) -> None:
        for s in SEAT_NAMES:
            row = self.ids[f"meldrow_{s}"].ids.chips
            row.clear_widgets()
            for i, chip in enumerate(self.screen.chips.get(s, ())):
                b = Big(text=f"{chip_markup(chip)} · {chip.points}", font_size=theme.small())
                b.bind(on_release=lambda _b, seat=s, index=i: self.open_melds(seat, index))
                row.add_widget(b)
            self.ids[f"meldchips_{s}"] = row

    def open_melds(self, seat: str, index: int = -1) -> None:
        picker = MeldPicker(seat=seat, index=index, screen=self, with_bell=False)
        picker.suit = SUIT_NAMES.index(self.screen.trump) if self.screen.trump else 0
        if index >= 0:
            chip = self.screen.chips[seat][index]
            picker.suit, picker.top_rank, picker.kind = chip.suit, chip.top, chip.kind
        picker.open()

    def put_meld(self, seat: str, index: int, chip: MeldChip) -> None:
        self.screen.put_meld(seat, index, chip)
        self.refresh()

    def remove_meld(self, seat: str, index: int) -> None:
        self.screen.remove_meld(seat, index)
        self.refresh()


class CardsScreen(KioskScreen):
    """The 4x6 grid of cards, the trick on the table, whose turn, the points so far."""

    turn = StringProperty("")
    trick = StringProperty("")
    so_far = StringProperty("")
    maker = StringProperty("")
    trump = StringProperty("")
    finished = BooleanProperty(False)
    plays = ListProperty([])
    chips = DictProperty({})  # seat -> meld chips announced
    melds_text = StringProperty("")
    cells = ListProperty([("", "", False)] * 4)  # the trick: (seat, card's markup, whose turn) from its leader

    def show(self, **options: Any) -> None:
        g = self.game
        draft = (g.draft or {}) if g else {}
        self.maker = draft.get("maker") or ""
        self.trump = draft.get("trump") or ""
        self.plays = list(draft.get("plays") or [])
        chips = {
            s: tuple(c for c in (chip_of(cards) for cards in lists) if c is not None)
            for s, lists in (draft.get("melds") or {}).items()
        }
        self.chips = chips
        if not self.ids.grid.children:
            self._build_grid()
        self._done_id = new_action_id()
        self._show()

    @property
    def _melds(self) -> dict[str, list[list[str]]] | None:
        melds = {s: [c.cards() for c in self.chips[s]] for s in SEAT_NAMES if self.chips.get(s)}
        return melds or None

    def open_melds(self) -> None:
        if self.plays:
            self.message = words.MELDS_BEFORE_PLAY
            return
        MeldsPopup(self).open()

    def put_meld(self, seat: str, index: int, chip: MeldChip) -> None:
        if not chip.valid:
            self.message = chip.too_low()
            return
        chips = list(self.chips.get(seat, ()))
        if index < 0:
            chips.append(chip)
        else:
            chips[index] = chip
        self.chips = {**self.chips, seat: tuple(chips)}
        self._save(self._record())
        self._show()

    def remove_meld(self, seat: str, index: int) -> None:
        chips = list(self.chips.get(seat, ()))
        del chips[index]
        self.chips = {**self.chips, seat: tuple(chips)}
        self._save(self._record())
        self._show()

    def take_back(self) -> None:
        """The last card played is taken back (a bell the table does not want yet, a wrong card)."""
        if self.plays:
            self.plays = self.plays[:-1]
            self._save(self._record())
            self._show()

    def _build_grid(self) -> None:
        for suit in ROWS:
            for rank in COLUMNS:
                b = CardButton(card=card_name(card(rank, suit)))
                b.bind(on_release=lambda btn: self.tap(btn.card))
                self.ids.grid.add_widget(b)
                self.ids[f"card_{b.card}"] = b

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
            self.message = words.MAKER_AND_TRUMP_FIRST
            for s in SEAT_NAMES:  # what is missing outlined, as every refusal's field is
                self.ids[f"maker_{s}"].faulty = not self.maker
            for letter in SUIT_NAMES:
                self.ids[f"trump_{letter}"].faulty = not self.trump
            return
        if name in self.plays:  # gone already: say when, and by whom
            i = self.plays.index(name)
            hand = self.table.preview(self.root_.game_id, self._record())
            self.message = words.played_already(name, SEAT_NAMES[hand.players[i]], i // 4 + 1)
            return
        self.play(name)

    def play(self, name: str, accept_renege: bool = False) -> None:
        table, game_id = self.table, self.root_.game_id
        before = table.preview(game_id, self._record())
        try:
            after = table.preview(game_id, self._record([*self.plays, name]))
        except ActionRefused as e:  # the card cannot be played at all (melded by another, say)
            seat = before.next_player
            known = before.knows_hand(seat) if seat is not None else False
            left = before.holding(seat, before=len(self.plays)) if seat is not None and known else None
            self.message = words.card_refusal(name, e.problems, SEAT_NAMES[seat] if seat is not None else "", left)
            return
        new = [r for r in after.reneges() if r not in before.reneges()]
        if new and not accept_renege:
            r = new[0]
            who = SEAT_NAMES[r.seat] if r.seat is not None else team_name(r.team)
            played = card_symbol(r.card) if r.card is not None else card_symbol(parse_card(name))
            q = RenegeQuestion(self, name)
            q.question = (
                f"{card_symbol(parse_card(name))} shows a renege by {who}: in trick {r.trick} "
                f"{who} played {played} — {r.reason}.\nRecord it as a renege?"
            )
            q.open()
            self._question = q
            return
        self.plays = [*self.plays, name]
        self._save(self._record())
        self._show(after)
        if (seat := after.bell_seat()) is not None and before.bell_seat() is None:
            notice = BellNotice(self)
            notice.said = (
                f"Bell — 20 for {team_name(team_of(seat))}: {SEAT_NAMES[seat]} played the King and Queen of trump."
            )
            notice.open()
            self._bell = notice

    def undo(self) -> None:
        if self.act(self.table.undo, self.root_.game_id) is not None:
            self.show()

    def done(self) -> None:
        if not self.finished:
            self.message = words.NOT_ALL_PLAYED
            return
        g = self.game
        if g is None:
            self.home()
        elif self.act(self.table.enter_hand, g.id, self._record(), action_id=self._done_id) is not None:
            self.root_.show("summary")

    def cancel(self) -> None:
        g = self.game
        if g is not None and g.draft:
            self.act(self.table.discard_draft, g.id)
        self.root_.show("sheet")

    def _save(self, record: dict[str, Any]) -> None:
        self.act(self.table.save_draft, self.root_.game_id, record)

    def _show(self, hand: Any = None) -> None:
        table, game_id = self.table, self.root_.game_id
        if hand is None:
            try:
                hand = table.preview(game_id, self._record())
            except ActionRefused:  # nothing tapped yet that the engine can read
                hand = None
        for s in SEAT_NAMES:
            self.ids[f"maker_{s}"].chosen = self.maker == s
            self.ids[f"maker_{s}"].faulty &= not self.maker
        for i, letter in enumerate(SUIT_NAMES):
            self.ids[f"trump_{letter}"].chosen = self.trump == letter
            self.ids[f"trump_{letter}"].faulty &= not self.trump
            self.ids[f"trump_{letter}"].text = theme.suit_markup(i, self.trump == letter)
        said = [f"{s} " + ", ".join(chip_markup(c) for c in self.chips[s]) for s in SEAT_NAMES if self.chips.get(s)]
        self.melds_text = "Melds: " + "; ".join(said) if said else "Melds…"
        played = set(self.plays)
        for suit in ROWS:
            for rank in COLUMNS:
                name = card_name(card(rank, suit))
                self.ids[f"card_{name}"].played = name in played
        if hand is None or hand.trump is None:
            self.turn, self.trick, self.so_far, self.finished = words.WHO_AND_TRUMP, "", "", False
            self.cells = [("", "", False)] * 4
            return
        self.finished = hand.finished
        reneges = hand.reneges()
        if reneges:
            r = reneges[0]
            self.turn = words.play_ends(team_name(r.team))
        elif len(hand.plays) == 24:
            self.turn = words.ALL_PLAYED
        else:
            seat = hand.next_player
            self.turn = words.to_play(SEAT_NAMES[seat], team_name(team_of(seat)))
        self._show_trick(hand)
        self.so_far = f"So far NS {hand.won[0]} · EW {hand.won[1]}"

    def _show_trick(self, hand: Any) -> None:
        """The trick on the table, seat by seat from its leader: the cards played to it, whose turn
        it is (outlined), who leads it, and once it is whole who won it."""
        tricks = hand.tricks()
        if tricks:
            last, number = tricks[-1], len(tricks)
            leader, cards = last.leader, list(last.cards)
        else:
            leader, number, cards = hand.next_player, 1, []
        if leader is None:
            self.trick, self.cells = "", [("", "", False)] * 4
            return
        cells = []
        for k in range(4):
            seat = (leader + k) % 4
            shown = theme.card_markup(cards[k]) if k < len(cards) else ""
            cells.append((SEAT_NAMES[seat], shown, k == len(cards) and seat == hand.next_player))
        self.cells = cells
        if tricks and last.winner is not None:
            self.trick = f"Trick {number} · {SEAT_NAMES[last.winner]} wins {last.points}\u00a0points"
        else:
            self.trick = f"Trick {number} · {SEAT_NAMES[leader]} leads"
