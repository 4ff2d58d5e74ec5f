"""A game's sheet and hands in the table's words, the same on every surface: the kiosk's screens,
the result page and its record. Scores or marks (XX set, - nothing), the check column, the notes of
a row, corrections and what they changed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine.seats import TEAM_NAMES, seat_name

if TYPE_CHECKING:
    from shared.replay import Line

# A seat and its card ("E 10♠", "W's Q♦"), a seat and its team ("N (NS)"), a team and its points
# ("EW 0"), a number and its unit ("24 points"), a score ("500 – 320"), the replay's "(+ cards":
# a reader needs each on one line.
_TOGETHER = re.compile(
    r"(?<!\w)([NESW](?:'s)?) (?=(?:10|[AKQJ9])[♠♥♦♣])"
    r"|(?<!\w)([NESW]) (?=\((?:NS|EW)\))"
    r"|(?<!\w)(NS|EW) (?=\d)"
    r"|(?<![\w.])(\d+) (?=(?:points?|games?|hands?|deals)(?!\w))"
    r"|(?<![\w.])(\d+) (?=– \d)"
    r"|(?<=\d )(–) (?=\d)"
    r"|(\(\+) (?=cards)"  # the replay's "(+ cards not yet seen)"
)


def unbroken(text: str) -> str:
    """``text`` with a no-break space where a line must not break (screens and pages; never the
    terminal's text, which is for copying)."""
    return _TOGETHER.sub(lambda m: next(g for g in m.groups() if g is not None) + "\u00a0", text)


def page_lines(hand: Any, rules: Any) -> list[Line]:
    """A hand's replay as the result pages show it: ``replay_lines`` kept unbroken (imported here,
    not at the top: the solver behind the replay is not loaded for the kiosk's first frame)."""
    from shared.replay import Line, replay_lines

    return [Line(unbroken(x.text), x.kind, x.depth) for x in replay_lines(hand, rules)]


_ORDER = {k: i for i, k in enumerate(("NS", "EW", "N", "E", "S", "W"))}
CORRECTED = "✎"  # the mark of a row the owner corrected (the replay's trail says what changed)


def cell(s: Any, team: int) -> str:
    """A team's cell as the paper sheet has it: its mark (XX set), - for nothing scored (a pass-out's
    and a void hand's too), else its score."""
    return s.marks[team] or ("-" if s.score[team] == 0 else str(s.score[team]))


def notes(row: Any) -> list[str]:
    """The short notes of a row, in the table's words."""
    s = row.score
    out = []
    if s.passed_out:
        out.append("passed out")
    elif s.misdeal:
        out.append("misdeal")
    elif s.void:
        out.append("both reneged")
    elif s.renege is not None:
        out.append(f"renege {TEAM_NAMES[s.renege.team]}")
    if row.rules_dealer is not None and row.rules_dealer != row.dealer:
        out.append("deal moved")
    return out


def rows(state: Any) -> list[dict[str, Any]]:
    """The sheet's rows: number, dealer, each team's cell and whether it is a set, the two check
    columns (this hand's two scores added, and every hand's so far: the two running totals added),
    notes."""
    out = []
    for row, hand in zip(state.sheet.rows, state.hands, strict=False):
        s = row.score
        out.append(
            {
                "number": row.number,
                "dealer": seat_name(row.dealer),
                "ns": cell(s, 0),
                "ew": cell(s, 1),
                "set": [s.marks[t] == "XX" for t in (0, 1)],
                "check": s.in_play,
                "so_far": sum(row.totals),
                "notes": notes(row),
                "corrected": bool(hand.corrections),
            }
        )
    return out


def sheet_lines(state: Any) -> list[dict[str, Any]]:
    """The sheet's rows for the kiosk's list, its texts as shown; ``notes`` a list of the row's notes."""
    return [
        {
            "number": str(r["number"]),
            "head": f"{r['number']} {r['dealer']}",
            "ns": r["ns"],
            "ew": r["ew"],
            "check": str(r["check"]),
            "so_far": str(r["so_far"]),
            "notes": r["notes"] + ([f"{CORRECTED} corrected"] if r["corrected"] else []),
            "corrected": r["corrected"],
        }
        for r in rows(state)
    ]


def hand_summary(row: Any) -> str:
    """One line for a hand: who dealt and what it scored."""
    s = row.score
    if s.passed_out or s.misdeal or s.void:
        return f"{seat_name(row.dealer)} dealt · " + ("passed out" if s.passed_out else "no score")
    return f"{seat_name(row.dealer)} dealt · NS {cell(s, 0)} · EW {cell(s, 1)}"


def corrections_of(state: Any) -> list[dict[str, Any]]:
    """Each correction to a hand on the sheet, oldest first: which hand, when, who allowed it, why."""
    found = [(e, n) for n, entry in enumerate(state.hands, 1) for e in entry.corrections]
    return [
        {"hand": n, "at": e.at, "by": e.authorised_by, "reason": e.reason}
        for e, n in sorted(found, key=lambda c: c[0].seq)
    ]


def corrections_said(hand: Any) -> list[str]:
    """Each correction of a hand as "was → now" of the fields that changed, with its reason."""
    out = []
    before = hand.entered.payload.get("record") or {}
    for e in hand.corrections:
        after = e.payload.get("record") or {}
        changed = [
            f"{k} {_short(before.get(k))} → {_short(after.get(k))}"
            for k in sorted(set(before) | set(after))
            if k != "dealer" and before.get(k) != after.get(k)
        ]
        why = f" ({e.reason})" if e.reason else ""
        out.append(f"corrected {e.at[11:16]} UTC{why}: " + ("; ".join(changed) or "no change"))
        before = after
    return out


def _short(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, dict):  # teams and seats in the sheet's order
        keys = sorted(value, key=lambda k: _ORDER.get(k, len(_ORDER)))
        return ", ".join(f"{k} {_short(value[k])}" for k in keys)
    if isinstance(value, list):
        return " ".join(_short(v) for v in value)
    return str(value)
