"""A game's sheet and hands in the table's words, the same on every surface: the kiosk's screens,
the result page and its record. Scores or marks (XX set, - nothing), the check column, the notes of
a row, corrections and what they changed."""

from __future__ import annotations

from typing import Any

from engine.seats import TEAM_NAMES, seat_name

_ORDER = {k: i for i, k in enumerate(("NS", "EW", "N", "E", "S", "W"))}
CORRECTED = "✎"  # the mark of a row the owner corrected (the replay's trail says what changed)


def cell(s: Any, team: int) -> str:
    """A team's cell: its mark (XX set, - nothing scored), else its score; a row with no score is 0."""
    return s.marks[team] or str(s.score[team])


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
    """The sheet's rows: number, dealer, each team's cell and whether it is a set, the check, notes."""
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
                "notes": notes(row),
                "corrected": bool(hand.corrections),
            }
        )
    return out


def sheet_lines(state: Any) -> list[dict[str, Any]]:
    """The sheet's rows for the kiosk's list; a row with two notes is two lines high (``lines``)."""
    lines = []
    for r in rows(state):
        mark = CORRECTED if r["corrected"] else ""
        lines.append(
            {
                "number": str(r["number"]),
                "head": f"{r['number']}{mark} {r['dealer']}",
                "ns": r["ns"],
                "ew": r["ew"],
                "check": str(r["check"]),
                "note": "\n".join(r["notes"]),
                "lines": max(1, 2 * len(r["notes"])),
                "corrected": r["corrected"],
            }
        )
        # (a note may take two lines in its narrow column: ``lines`` counts two for each)
    return lines


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
