"""The summary: the entered hand in words and numbers, why it scores what it does, for the other
team to confirm."""

from __future__ import annotations

from typing import Any

from kivy.properties import StringProperty
from kivy.utils import escape_markup

from engine.melds import best_of
from engine.seats import SEAT_NAMES
from kiosk.ui import theme
from kiosk.ui.base import KioskScreen
from shared.events import new_action_id

TEAM = {0: "NS", 1: "EW", None: ""}


class SummaryScreen(KioskScreen):
    """The hand's result and its reasons; the other team confirms it, or the table changes it."""

    headline = StringProperty("")
    detail = StringProperty("")
    confirmer = StringProperty("")
    ns = StringProperty("")
    ew = StringProperty("")

    def show(self, **options: Any) -> None:
        self._confirm_id = new_action_id()
        g = self.game
        s = self.table.pending_score(g.id) if g is not None else None
        if s is None or g is None or g.pending is None:
            self.headline, self.detail, self.confirmer, self.ns, self.ew = "No hand is waiting.", "", "", "", ""
            return
        self.ns, self.ew = str(s.score[0]), str(s.score[1])
        headline, lines = describe(g.pending.hand, s)
        self.headline, self.detail = headline, "\n".join(lines)
        self.confirmer = ("EW" if g.pending.by == "NS" else "NS") if g.pending.by else ""

    def confirm(self) -> None:
        state = self.act(self.table.confirm, self.root_.game_id, by=self.confirmer or None, action_id=self._confirm_id)
        if state is not None:
            self.root_.show("over" if state.status != "open" else "sheet")

    def change(self) -> None:
        if self.act(self.table.undo, self.root_.game_id) is not None:
            self.root_.show("quick")


def melds_said(hand: Any, s: Any) -> list[str]:
    """Which meld beat which, and why melds did or did not count."""
    best = []
    for team in (0, 1):
        seats = (team, team + 2)
        melds = [(m, seat) for seat in seats for m in hand.melds[seat]]
        top = best_of([m for m, _ in melds], hand.trump)
        best.append(None if top is None else (top, next(seat for m, seat in melds if m is top)))
    if best[0] is None and best[1] is None:
        return []
    if s.renege is not None and not s.void:
        w = 1 - s.renege.team
        return [f"Melds: {TEAM[w]} score all theirs ({s.melds[w]}): the other team reneged"] if s.melds[w] else []
    if s.meld_winner is None:
        a, b = best
        assert a is not None and b is not None  # melds on both sides and neither scores: a push
        return [
            f"Melds: {SEAT_NAMES[a[1]]}'s {a[0].describe()} and {SEAT_NAMES[b[1]]}'s {b[0].describe()} are "
            "equal: neither team scores melds"
        ]
    w = s.meld_winner
    won, lost = best[w], best[1 - w]
    if lost is None:
        return [f"Melds: {TEAM[w]} {s.melds[w]} ({SEAT_NAMES[won[1]]}'s {won[0].describe()})"]
    why = "four of a kind beats a sequence" if won[0].is_four and not lost[0].is_four else "the higher meld"
    return [
        f"Melds: {SEAT_NAMES[won[1]]}'s {won[0].describe()} beat {SEAT_NAMES[lost[1]]}'s "
        f"{lost[0].describe()} ({why}): {TEAM[w]} {s.melds[w]}, {TEAM[1 - w]}'s melds do not count"
    ]


def describe(hand: Any, s: Any) -> tuple[str, list[str]]:
    """A hand's result in the table's words: the headline, and the reasons line by line."""
    if s.passed_out:
        return "Passed out: nothing scored.", [f"Next dealer {SEAT_NAMES[s.next_dealer]}"]
    if s.misdeal:
        return "Misdeal: the same dealer deals again.", []
    lines = melds_said(hand, s)
    if any(s.bell):
        team = 0 if s.bell[0] else 1
        seat = hand.bell_seat()
        lines.append(
            f"Bell: 20 for {TEAM[team]}" + (f" ({SEAT_NAMES[seat]} held K and Q of trump)" if seat is not None else "")
        )
    if s.void:
        lines.append(f"Next dealer {SEAT_NAMES[s.next_dealer]} (the same)")
        return "Both teams reneged: nothing scored, the same dealer deals again.", lines
    if s.renege is not None:
        r = s.renege
        by = TEAM[r.team]
        who = f"{SEAT_NAMES[r.seat]} ({by})" if r.seat is not None else by
        where = f" in trick {r.trick}" if r.trick else ""
        reason = escape_markup(r.reason)  # the table's words, shown as typed, never as markup
        lines.insert(0, f"Renege by {who}{where}: {reason}. {TEAM[1 - r.team]} score 162 and their melds.")
        lines.append(f"Next dealer {SEAT_NAMES[s.next_dealer]}")
        return f"Renege by {by} ({reason}): {by} scores 0.", lines
    makers, others = TEAM[s.makers], TEAM[1 - s.makers] if s.makers is not None else ""
    if s.set:
        lines.insert(
            0,
            f"XX — set: {makers} {s.totals[s.makers]} against {others} {s.totals[1 - s.makers]} "
            "(the makers need more than the others)",
        )
    else:
        lines.insert(0, f"Made: {makers} {s.totals[s.makers]} against {others} {s.totals[1 - s.makers]}")
    lines.append(f"Next dealer {SEAT_NAMES[s.next_dealer]}")
    trump = theme.suit_markup(hand.trump) if hand.trump is not None else ""
    maker = SEAT_NAMES[hand.maker] if hand.maker is not None else ""
    verdict = f"set (XX): {makers} score 0" if s.set else "made it"
    return f"{maker} named {trump}: {makers} {verdict}.", lines
