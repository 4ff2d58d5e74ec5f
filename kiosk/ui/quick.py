"""Quick entry: who played, trump, one team's points, meld chips; then the summary to confirm."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kivy.properties import BooleanProperty, DictProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from engine.cards import POINTS_IN_HAND, SUIT_NAMES, card, card_name, parse_card
from engine.seats import SEAT_NAMES
from kiosk.ui import theme, words
from kiosk.ui.base import KioskScreen
from kiosk.ui.entry import Entry, MeldChip, entry_from_record
from kiosk.ui.pickers import ReasonPicker, RenegePicker
from kiosk.ui.widgets import Big, CardButton
from kiosk.ui.words import say
from shared.events import new_action_id

CORRECTION_REASONS = ("points entered wrong", "melds entered wrong", "wrong maker or trump", "renege missed")


def chip_markup(chip: MeldChip) -> str:
    """A meld chip as the buttons say it: "dad A♠" with the suit in its colour ("four 9s" has none)."""
    return chip.words() + (theme.suit_markup(chip.suit) if chip.kind != "four" else "")


class MeldPicker(ModalView):
    """Adds a meld chip for one seat (one tap: the kind, with trump and Ace preset) or edits one."""

    _anim_duration = 0  # open and close at once: a closing popup must not swallow the next tap

    seat = StringProperty("N")
    index = NumericProperty(-1)  # -1: adding
    suit = NumericProperty(0)
    top_rank = NumericProperty(5)  # A; not `top`, which is the widget's top edge
    kind = StringProperty("dad")
    screen = ObjectProperty(None)
    with_bell = BooleanProperty(True)  # card by card knows the bell from the plays
    editing_bell = BooleanProperty(False)  # the seat's bell chip was tapped: remove it or keep it

    def add(self, kind: str, top: int | None = None) -> None:
        chip = MeldChip(kind, self.suit, self.top_rank if top is None else top)
        if kind == "four":
            chip = MeldChip("four", 0, top if top is not None else 2)
        self.dismiss()
        self.screen.put_meld(self.seat, self.index, chip)

    def bell(self) -> None:
        self.dismiss()
        self.screen.set_bell(self.seat)

    def remove(self) -> None:
        self.dismiss()
        if self.editing_bell:
            self.screen.set_bell(self.seat)  # the seat's bell, taken off
        elif self.index >= 0:
            self.screen.remove_meld(self.seat, self.index)

    def keep(self) -> None:
        self.dismiss()
        if not self.editing_bell:
            self.add(self.kind, self.top_rank if self.kind != "four" else None)


class BiddingPicker(ModalView):
    """Round 2 and the up card, for a table that wants them on the record."""

    _anim_duration = 0

    round = NumericProperty(0)  # 0: not said
    up = StringProperty("")
    screen = ObjectProperty(None)

    def fill(self, grid: Any) -> None:
        for suit in (3, 2, 1, 0):
            for rank in (5, 4, 3, 2, 1, 0):
                b = CardButton(card=card_name(card(rank, suit)))
                b.bind(on_release=lambda btn: self.pick_up(btn.card))
                grid.add_widget(b)
                self.ids[f"up_{b.card}"] = b
        self.bind(up=lambda *_: self._mark(grid))
        self._mark(grid)

    def _mark(self, grid: Any) -> None:
        for b in grid.children:
            b.chosen = b.card == self.up

    def pick_up(self, name: str) -> None:
        self.up = "" if self.up == name else name

    def done(self) -> None:
        self.dismiss()
        self.screen.set_bidding(self.round or None, self.up or None)


class QuickScreen(KioskScreen):
    """The quick-entry form; a refusal is said in the strip and its field outlined, never in the way."""

    entry = ObjectProperty(Entry())
    faulty = DictProperty({})  # field -> True: the fields the message is about
    correcting = NumericProperty(0)  # the hand number being corrected, else 0
    dealer = StringProperty("N")
    players = DictProperty({s: "" for s in SEAT_NAMES})
    complete = BooleanProperty(False)  # Done lights up for a whole hand
    prompt = StringProperty("")  # what the hand still needs, said in the strip while nothing else is

    def on_kv_post(self, base: Any) -> None:
        for s in SEAT_NAMES:
            self.ids[f"melds_{s}"] = self.ids[f"meldrow_{s}"].ids.chips

    def show(
        self,
        correct: int = 0,
        record: dict[str, Any] | None = None,
        maker: str | None = None,
        passed_out: bool = False,
        **options: Any,
    ) -> None:
        self.correcting = correct
        g = self.game
        self.players = {s: (g.players.get(s, "") if g else "") for s in SEAT_NAMES}
        if correct:
            self.entry = entry_from_record(record or {})
            self.dealer = (record or {}).get("dealer", "N")
        else:
            self.entry = entry_from_record(g.draft) if g and g.draft else Entry()
            self.dealer = SEAT_NAMES[g.dealer] if g else "N"
        self.faulty = {}
        self._done_id = new_action_id()
        self._show()
        if maker:
            self.set_maker(maker)
        elif passed_out:
            self.pass_out()

    # ---- taps ---------------------------------------------------------------------------------------

    def set_maker(self, seat: str) -> None:
        team = "NS" if seat in "NS" else "EW"
        self._change(replace(self.entry, maker=seat, passed_out=False, points_team=team))

    def set_trump(self, suit: str) -> None:
        self._change(replace(self.entry, trump=suit, passed_out=False))

    def pass_out(self) -> None:
        self._change(replace(self.entry, passed_out=not self.entry.passed_out))

    def points_for(self, team: str) -> None:
        if team != self.entry.points_team and self.entry.points not in ("", None):
            other = self.entry.other_points()
            self.entry = replace(self.entry, points_team=team, points="" if other == "–" else other)
        else:
            self.entry = replace(self.entry, points_team=team)
        self._show()

    def key(self, key: str) -> None:
        entry = self.entry.press(key)  # digits are not saved one by one: "1" on the way to "10"
        if entry.points and int(entry.points) > POINTS_IN_HAND:
            self._say(words.too_many(entry.points), {"points": True})
            return
        self.entry = entry
        self._say("", {})
        self._show()

    def open_melds(self, seat: str, index: int = -1) -> None:
        picker = MeldPicker(seat=seat, index=index, screen=self)
        picker.suit = SUIT_NAMES.index(self.entry.trump) if self.entry.trump else 0
        if index >= 0:
            chip = self.entry.melds[seat][index]
            picker.suit, picker.top_rank, picker.kind = chip.suit, chip.top, chip.kind
        picker.open()
        self._picker = picker

    def open_bell(self, seat: str) -> None:
        """The bell's chip, tapped: remove it or keep it."""
        picker = MeldPicker(seat=seat, screen=self, editing_bell=True)
        picker.open()
        self._picker = picker

    def put_meld(self, seat: str, index: int, chip: MeldChip) -> None:
        if not chip.valid:
            self._say(chip.too_low(), {"melds": True})
            return
        entry = self.entry.with_meld(seat, chip) if index < 0 else self.entry.replace_meld(seat, index, chip)
        self._change(entry)

    def remove_meld(self, seat: str, index: int) -> None:
        self._change(self.entry.without_meld(seat, index))

    def set_bell(self, seat: str) -> None:
        self._change(replace(self.entry, bell=None if self.entry.bell == seat else seat))

    def bidding(self) -> None:
        BiddingPicker(screen=self, round=self.entry.round or 0, up=self.entry.up or "").open()

    def set_bidding(self, rnd: int | None, up: str | None) -> None:
        self._change(replace(self.entry, round=rnd, up=up))

    def renege(self) -> None:
        RenegePicker(screen=self, names=dict(self.players), has_renege=bool(self.entry.renege)).open()

    def renege_chosen(self, renege: dict[str, str] | None) -> None:
        self._change(replace(self.entry, renege=renege))

    def reason_chosen(self, purpose: str, reason: str) -> None:
        self._save_correction(reason)

    def cancel(self) -> None:
        if self.correcting:
            self.root_.show("owner")
            return
        g = self.game
        if g is not None and g.draft:
            self.act(self.table.discard_draft, g.id)
        self.root_.show("sheet")

    def done(self) -> None:
        if not self.entry.complete:
            self._say(self._missing(), {self._missing_field(): True})
            return
        record = self.entry.record(self.dealer)
        if self.correcting:
            # The entry is checked first: the owner is asked why only for a hand that can be.
            checked, problems = self.root_.act(self.table.preview, self.root_.game_id, record, complete=True)
            if checked is None:
                self._refused(problems)
                return
            ReasonPicker(
                title=f"Why correct hand {self.correcting}?",
                reasons=list(CORRECTION_REASONS),
                screen=self,
                purpose="correct",
            ).open()
            return
        table, g = self.table, self.game
        if g is None:
            self.home()
            return
        self.root_.table_quiet(table.save_draft, g.id, record)  # "Change" on the summary comes back to this
        state, problems = self.root_.act(table.enter_hand, g.id, record, action_id=self._done_id)
        if state is None:
            self._refused(problems)
            return
        self.root_.show("summary")

    def _save_correction(self, reason: str) -> None:
        record = self.entry.record(self.dealer)
        state, problems = self.root_.act(
            self.table.correct,
            self.root_.game_id,
            self.correcting,
            record,
            reason,
            self.root_.owner_pin,
            action_id=self._done_id,
        )
        if state is None:
            self._refused(problems)
            return
        self.root_.show("over" if state.status != "open" else "sheet")

    # ---- showing ------------------------------------------------------------------------------------

    def _missing(self) -> str:
        e = self.entry
        if e.complete:
            return ""
        if e.maker is None:
            return words.TAP_MAKER
        if e.trump is None:
            return words.PICK_TRUMP
        return words.TYPE_POINTS

    def _missing_field(self) -> str:
        """The field the hand still needs, to outline with its prompt."""
        e = self.entry
        return "maker" if e.maker is None else "trump" if e.trump is None else "points"

    def _say(self, message: str, faulty: dict[str, bool]) -> None:
        self.message = message
        self.faulty = faulty
        self._show()

    def _change(self, entry: Entry) -> None:
        self.entry = entry
        self.message = ""
        self.faulty = {}
        self._show()
        if not self.correcting and self.game is not None:
            # Keep the hand so far: a restart resumes it. A half-made entry the engine cannot
            # take yet is simply not kept until it can be.
            self.root_.table_quiet(self.table.save_draft, self.root_.game_id, entry.record(self.dealer))

    def _refused(self, problems: list[str]) -> None:
        fields, words = say(problems, self.entry.record(self.dealer))  # one message: the strip never grows
        self._say(words, dict.fromkeys(fields, True))

    def _show(self) -> None:
        e = self.entry
        self.complete = e.complete
        self.prompt = self._missing()
        self.ids.points_mine.text = e.points or "–"  # the team's: its button above is lit
        other = "EW" if e.points_team == "NS" else "NS"
        self.ids.points_other.text = "not needed" if e.renege and e.points == "" else f"{other} {e.other_points()}"
        for s in SEAT_NAMES:
            self.ids[f"maker_{s}"].chosen = e.maker == s
            self.ids[f"maker_{s}"].faulty = bool(self.faulty.get("maker"))
            row = self.ids[f"melds_{s}"]
            row.clear_widgets()
            for i, chip in enumerate(e.melds.get(s, ())):
                b = Big(
                    text=f"{chip_markup(chip)} · {chip.points}",
                    font_size=theme.small(),
                    faulty=bool(self.faulty.get("melds")),
                )
                b.bind(on_release=lambda _b, seat=s, index=i: self.open_melds(seat, index))
                row.add_widget(b)
            if e.bell == s:  # its chip opens the picker, as a meld's does
                b = Big(text="bell · 20", font_size=theme.small(), chosen=True)
                b.bind(on_release=lambda _b, seat=s: self.open_bell(seat))
                row.add_widget(b)
        for i, suit in enumerate(SUIT_NAMES):
            button = self.ids[f"trump_{suit}"]
            button.chosen = e.trump == suit
            button.faulty = bool(self.faulty.get("trump"))
            button.text = theme.suit_markup(i, button.chosen)  # the shape says it; words would not fit
        self.ids.passed_out.chosen = e.passed_out
        self.ids.points_NS.chosen = e.points_team == "NS"
        self.ids.points_EW.chosen = e.points_team == "EW"
        self.ids.points_box.faulty = bool(self.faulty.get("points"))
        self.ids.more.faulty = bool(self.faulty.get("bidding"))
        self.ids.more.text = _bidding_words(e)
        self.ids.more.chosen = bool(e.round or e.up)
        self.ids.renege.text = f"Renege {e.renege['by']}" if e.renege else "Renege…"
        self.ids.renege.chosen = bool(e.renege)
        self.ids.renege.faulty = bool(self.faulty.get("renege"))
        self.ids.done.text = "Save ▶" if self.correcting else "Done ▶"


def _bidding_words(e: Entry) -> str:
    if not (e.round or e.up):
        return "Up card…"
    parts = [f"round {e.round}"] if e.round else []
    if e.up:
        parts.append("up " + theme.card_markup(parse_card(e.up), True))
    return " · ".join(parts)
