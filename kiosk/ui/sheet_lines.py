"""The sheet's rows as the screens show them: scores or marks, the check column, notes, corrections."""

from __future__ import annotations

from typing import Any

from engine.seats import seat_name

_ORDER = {k: i for i, k in enumerate(("NS", "EW", "N", "E", "S", "W"))}
CORRECTED = "✎"  # the mark of a row the owner corrected (the replay's trail says what changed)


def _cell(s: Any, team: int) -> str:
    """A team's cell: its score, or its mark (XX set, - zero)."""
    if s.passed_out or s.void or s.misdeal:
        return "0"
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
        out.append(f"renege {'NS' if s.renege.team == 0 else 'EW'}")
    if row.rules_dealer is not None and row.rules_dealer != row.dealer:
        out.append("deal moved")
    return out


def sheet_lines(state: Any) -> list[dict[str, Any]]:
    """The sheet's rows; a row with two notes is two lines high (``lines``)."""
    lines = []
    for row, hand in zip(state.sheet.rows, state.hands, strict=False):
        s = row.score
        said = notes(row)
        mark = CORRECTED if hand.corrections else ""
        lines.append({
            "number": str(row.number), "head": f"{row.number}{mark} {seat_name(row.dealer)}",
            "ns": _cell(s, 0), "ew": _cell(s, 1), "check": str(s.in_play), "note": "\n".join(said),
            "lines": max(1, 2 * len(said)), "corrected": bool(mark),
        })  # fmt: skip
        # (a note may take two lines in its narrow column: ``lines`` counts two for each)
    return lines


def corrections_said(hand: Any) -> list[str]:
    """Each correction of a hand as "was → now" of the fields that changed, with its reason."""
    out = []
    before = hand.entered.payload.get("record") or {}
    for e in hand.corrections:
        after = e.payload.get("record") or {}
        changed = [f"{k} {_short(before.get(k))} → {_short(after.get(k))}" for k in sorted(set(before) | set(after))
                   if k != "dealer" and before.get(k) != after.get(k)]  # fmt: skip
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
