"""Quick entry: who played, trump, one team's points, meld chips; then the summary to confirm."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kivy.properties import DictProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from engine.cards import SUIT_NAMES
from engine.seats import SEAT_NAMES
from kiosk.ui import theme
from kiosk.ui.app import action_id
from kiosk.ui.entry import Entry, MeldChip, entry_from_record, field_of

RENEGE_REASONS = ("failed to follow suit", "failed to trump", "table talk", "exposed a card", "played out of turn",
                  "looked at a turned trick")  # fmt: skip
CORRECTION_REASONS = ("points entered wrong", "melds entered wrong", "wrong maker or trump", "renege missed")


def split_problem(line: str) -> tuple[str, str]:
    """``"points.NS: 1 cannot be"`` -> (``"points"``, the line)."""
    where = line.split(": ", 1)[0] if ": " in line else ""
    return field_of(where), line


class MeldPicker(ModalView):
    """Adds a meld chip for one seat (one tap: the kind, with trump and Ace preset) or edits one."""

    _anim_duration = 0  # open and close at once: a closing popup must not swallow the next tap

    seat = StringProperty("N")
    index = NumericProperty(-1)  # -1: adding
    suit = NumericProperty(0)
    top_rank = NumericProperty(5)  # A; not `top`, which is the widget's top edge
    kind = StringProperty("dad")
    screen = ObjectProperty(None)

    def add(self, kind: str, top: int | None = None) -> None:
        chip = MeldChip(kind, self.suit, self.top_rank if top is None else top)
        if kind == "four":
            chip = MeldChip("four", 0, top if top is not None else 2)
        self.screen.put_meld(self.seat, self.index, chip)
        self.dismiss()

    def bell(self) -> None:
        self.screen.set_bell(self.seat)
        self.dismiss()

    def remove(self) -> None:
        if self.index >= 0:
            self.screen.remove_meld(self.seat, self.index)
        self.dismiss()


class ReasonPicker(ModalView):
    """Picks a reason from big buttons (a renege's, or a correction's)."""

    _anim_duration = 0

    title = StringProperty("")
    reasons = ListProperty([])
    teams = ListProperty([])
    team = StringProperty("")
    screen = ObjectProperty(None)
    purpose = StringProperty("renege")

    def fill(self, grid: Any) -> None:
        from kiosk.ui.widgets import Big

        for reason in self.reasons:
            b = Big(text=reason, font_size="18sp")
            b.bind(on_release=lambda _b, r=reason: self.choose(r))
            grid.add_widget(b)

    def choose(self, reason: str) -> None:
        self.screen.reason_chosen(self.purpose, self.team, reason)
        self.dismiss()


class QuickScreen(Screen):
    """The quick-entry form; an impossible entry is refused next to the field that is wrong."""

    entry = ObjectProperty(Entry())
    notes = DictProperty({"bidding": "", "points": "", "melds": "", "general": ""})
    meld_texts = DictProperty({s: "" for s in SEAT_NAMES})
    correcting = NumericProperty(0)  # the hand number being corrected, else 0
    dealer = StringProperty("N")

    def on_kv_post(self, base: Any) -> None:
        for s in SEAT_NAMES:
            self.ids[f"melds_{s}"] = self.ids[f"meldrow_{s}"].ids.chips

    def enter(self, root: Any, correct: int = 0, record: dict[str, Any] | None = None, maker: str | None = None,
              passed_out: bool = False, **options: Any) -> None:  # fmt: skip
        self.root_ = root
        self.correcting = correct
        g = root.game
        if correct:
            self.entry = entry_from_record(record or {})
            self.dealer = (record or {}).get("dealer", "N")
        else:
            self.entry = entry_from_record(g.draft) if g and g.draft else Entry()
            self.dealer = SEAT_NAMES[g.dealer] if g else "N"
        self.notes = {k: "" for k in self.notes}
        self._done_id = action_id()
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
        self.entry = self.entry.press(key)  # digits are not saved one by one: "1" on the way to "10"
        self._show()

    def open_melds(self, seat: str, index: int = -1) -> None:
        picker = MeldPicker(seat=seat, index=index, screen=self)
        picker.suit = SUIT_NAMES.index(self.entry.trump) if self.entry.trump else 0
        if index >= 0:
            chip = self.entry.melds[seat][index]
            picker.suit, picker.top_rank, picker.kind = chip.suit, chip.top, chip.kind
        picker.open()
        self._picker = picker

    def put_meld(self, seat: str, index: int, chip: MeldChip) -> None:
        if not chip.valid:
            self.notes = {**self.notes, "melds": f"no {chip.kind} runs below the 9"}
            return
        entry = self.entry.with_meld(seat, chip) if index < 0 else self.entry.replace_meld(seat, index, chip)
        self._change(entry)

    def remove_meld(self, seat: str, index: int) -> None:
        self._change(self.entry.without_meld(seat, index))

    def set_bell(self, seat: str) -> None:
        self._change(replace(self.entry, bell=None if self.entry.bell == seat else seat))

    def renege(self) -> None:
        ReasonPicker(title="Renege by which team?", reasons=list(RENEGE_REASONS), teams=["NS", "EW"], team="NS",
                     screen=self, purpose="renege").open()  # fmt: skip

    def reason_chosen(self, purpose: str, team: str, reason: str) -> None:
        if purpose == "renege":
            self._change(replace(self.entry, renege={"by": team, "reason": reason}))
        else:
            self._save_correction(reason)

    def cancel(self) -> None:
        if self.correcting:
            self.root_.show("owner")
            return
        g = self.root_.game
        if g is not None and g.draft:
            self.root_.act(self.root_.table.discard_draft, g.id, action_id=action_id())
        self.root_.show("sheet")

    def done(self) -> None:
        record = self.entry.record(self.dealer)
        if self.correcting:
            ReasonPicker(title=f"Why correct hand {self.correcting}?", reasons=list(CORRECTION_REASONS),
                         screen=self, purpose="correct").open()  # fmt: skip
            return
        table, g = self.root_.table, self.root_.game
        self.root_.table_quiet(table.save_draft, g.id, record)  # "Change" on the summary comes back to this
        state, problems = self.root_.act(table.enter_hand, g.id, record, action_id=self._done_id)
        if state is None:
            self._refused(problems)
            return
        self.root_.show("summary")

    def _save_correction(self, reason: str) -> None:
        record = self.entry.record(self.dealer)
        state, problems = self.root_.act(
            self.root_.table.correct, self.root_.game_id, self.correcting, record, reason, self.root_.owner_pin,
            action_id=self._done_id,
        )  # fmt: skip
        if state is None:
            self._refused(problems)
            return
        self.root_.show("over" if state.status != "open" else "sheet")

    # ---- showing ------------------------------------------------------------------------------------

    def _change(self, entry: Entry) -> None:
        self.entry = entry
        self.notes = {k: "" for k in self.notes}
        self._show()
        if not self.correcting and self.root_.game is not None:
            # Keep the hand so far: a restart resumes it. A half-made entry the engine cannot
            # take yet is simply not kept until it can be.
            self.root_.table_quiet(self.root_.table.save_draft, self.root_.game_id, entry.record(self.dealer))

    def _refused(self, problems: list[str]) -> None:
        notes = {k: "" for k in self.notes}
        for line in problems:
            where, text = split_problem(line)
            notes[where] = (notes[where] + "\n" if notes[where] else "") + text
        self.notes = notes

    def _show(self) -> None:
        e = self.entry
        self.meld_texts = {
            s: "  ".join(f"{c.words()}" for c in e.melds.get(s, ())) + ("  bell" if e.bell == s else "")
            for s in SEAT_NAMES
        }
        self.ids.points_mine.text = f"{e.points_team} {e.points or '–'}"
        other = "EW" if e.points_team == "NS" else "NS"
        self.ids.points_other.text = f"{other} {e.other_points()} (162 − {e.points_team})"
        for s in SEAT_NAMES:
            self.ids[f"maker_{s}"].chosen = e.maker == s
            row = self.ids[f"melds_{s}"]
            row.clear_widgets()
            from kiosk.ui.widgets import Big

            for i, chip in enumerate(e.melds.get(s, ())):
                suit = theme.suit_markup(chip.suit) if chip.kind != "four" else ""
                b = Big(text=f"{chip.words()} {suit} · {chip.points}", font_size="16sp")
                b.bind(on_release=lambda _b, seat=s, index=i: self.open_melds(seat, index))
                row.add_widget(b)
            if e.bell == s:
                b = Big(text="bell", font_size="16sp", chosen=True)
                b.bind(on_release=lambda _b, seat=s: self.set_bell(seat))
                row.add_widget(b)
        for i, suit in enumerate(SUIT_NAMES):
            self.ids[f"trump_{suit}"].chosen = e.trump == suit
            self.ids[f"trump_{suit}"].text = theme.suit_markup(i)  # the shape says it; words would not fit
        self.ids.passed_out.chosen = e.passed_out
        self.ids.points_NS.chosen = e.points_team == "NS"
        self.ids.points_EW.chosen = e.points_team == "EW"
        self.ids.renege.text = f"Renege: {e.renege['by']}" if e.renege else "Renege…"
        self.ids.renege.chosen = bool(e.renege)
        self.ids.done.text = "Save correction ▶" if self.correcting else "Done ▶"


class SummaryScreen(Screen):
    """The entered hand in words and numbers, for the other team to confirm."""

    headline = StringProperty("")
    detail = StringProperty("")
    confirmer = StringProperty("")
    ns = StringProperty("")
    ew = StringProperty("")
    notes = StringProperty("")

    def enter(self, root: Any, **options: Any) -> None:
        self.root_ = root
        self.notes = ""
        self._confirm_id = action_id()
        g = root.game
        if g is None or g.pending is None:
            self.headline, self.detail, self.confirmer = "No hand is waiting.", "", ""
            return
        from engine.scoring import score_hand

        s = score_hand(g.pending.hand, g.rules)
        self.ns, self.ew = str(s.score[0]), str(s.score[1])
        self.headline, self.detail = describe(g.pending.hand, s)
        self.confirmer = ("EW" if g.pending.by == "NS" else "NS") if g.pending.by else ""

    def confirm(self) -> None:
        g = self.root_.game
        by = self.confirmer or None
        state, problems = self.root_.act(self.root_.table.confirm, g.id, by=by, action_id=self._confirm_id)
        if state is None:
            self.notes = "\n".join(problems)
            return
        self.root_.show("over" if state.status != "open" else "sheet")

    def change(self) -> None:
        state, problems = self.root_.act(self.root_.table.undo, self.root_.game_id, action_id=action_id())
        if state is None:
            self.notes = "\n".join(problems)
            return
        self.root_.show("quick")


def describe(hand: Any, s: Any) -> tuple[str, str]:
    """A hand's result in the table's words: the headline and the details."""
    team = {0: "NS", 1: "EW", None: ""}
    if s.passed_out:
        return "Passed out: nothing scored.", f"Next dealer {SEAT_NAMES[s.next_dealer]}."
    if s.misdeal:
        return "Misdeal: the same dealer deals again.", ""
    lines = []
    if s.meld_winner is not None:
        lines.append(f"melds {team[s.meld_winner]} {s.melds[s.meld_winner]}")
    elif any(hand.melds):
        lines.append("melds: equal sequences, neither team scores them")
    if any(s.bell):
        lines.append(f"bell {'NS' if s.bell[0] else 'EW'} 20")
    lines.append(f"check {s.in_play}")
    lines.append(f"next dealer {SEAT_NAMES[s.next_dealer]}")
    if s.void:
        return "Both teams reneged: nothing scored, the same dealer deals again.", " · ".join(lines)
    if s.renege is not None:
        by = team[s.renege.team]
        return f"Renege by {by} ({escape_markup(s.renege.reason)}): {by} scores 0.", " · ".join(lines)
    trump = f"{theme.suit_markup(hand.trump)}" if hand.trump is not None else ""
    maker = SEAT_NAMES[hand.maker] if hand.maker is not None else ""
    verdict = f"set (XX): {team[s.makers]} score 0" if s.set else "made it"
    return f"{maker} named {trump}: {team[s.makers]} {verdict}.", " · ".join(lines)
