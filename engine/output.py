"""What ``clabber score`` and ``clabber sheet`` print: the output objects of HAND-RECORD.md.

The records (``engine.record``) are one contract, the command's output another: a scored hand
and a game's sheet as JSON objects.
"""

from __future__ import annotations

from typing import Any

from engine.cards import SUIT_NAMES, card_name, card_names
from engine.game import Sheet
from engine.hand import Hand
from engine.scoring import HandScore
from engine.seats import TEAM_NAMES, seat_name, team_name


def renege_to_json(score: HandScore) -> dict[str, Any] | None:
    """The first renege of a scored hand, as ``clabber score`` prints it."""
    r = score.renege
    if r is None:
        return None
    out: dict[str, Any] = {
        "by": team_name(r.team),
        "seat": None if r.seat is None else seat_name(r.seat),
        "trick": r.trick,
        "card": None if r.card is None else card_name(r.card),
        "reason": r.reason,
    }
    if r.legal is not None:
        out["legal"] = card_names(r.legal)
    if score.void:
        out["void"] = True
    return out


def _teams(pair: tuple[int, int]) -> dict[str, int]:
    return {"NS": pair[0], "EW": pair[1]}


def _team_or_none(team: int | None) -> str | None:
    return None if team is None else team_name(team)


def score_to_json(hand: Hand, score: HandScore) -> dict[str, Any]:
    """The ``clabber score`` object of HAND-RECORD.md."""
    return {
        "valid": True,
        "passed_out": score.passed_out,
        "misdeal": score.misdeal,
        "trump": None if hand.trump is None else SUIT_NAMES[hand.trump],
        "maker": None if hand.maker is None else seat_name(hand.maker),
        "makers": _team_or_none(score.makers),
        "tricks": _teams(score.tricks),
        "melds": _teams(score.melds),
        "bell": _teams(score.bell),
        "totals": _teams(score.totals),
        "score": _teams(score.score),
        "set": score.set,
        "meld_winner": _team_or_none(score.meld_winner),
        "renege": renege_to_json(score),
        "next_dealer": seat_name(score.next_dealer),
    }


def sheet_to_json(s: Sheet) -> dict[str, Any]:
    """The ``clabber sheet`` object of HAND-RECORD.md."""
    rows = []
    for row in s.rows:
        sc = row.score
        rows.append(
            {
                "hand": row.number,
                "dealer": seat_name(row.dealer),
                "score": _teams(sc.score),
                "marks": dict(zip(TEAM_NAMES, sc.marks, strict=False)),
                "totals": _teams(row.totals),
                "set": sc.set,
                "passed_out": sc.passed_out,
                "misdeal": sc.misdeal,
                "makers": _team_or_none(sc.makers),
                "renege": renege_to_json(sc),
                "next_dealer": seat_name(sc.next_dealer),
                "check": sc.in_play,
                "rules_dealer": None if row.rules_dealer is None else seat_name(row.rules_dealer),
            }
        )
    return {
        "valid": True,
        "rows": rows,
        "totals": _teams(s.totals),
        "over": s.over,
        "winner": s.outcome.to_json(),
        "next_dealer": None if s.next_dealer is None else seat_name(s.next_dealer),
    }
