"""A league game's public page: its result as it counts, and, for a game played at a kiosk, its
sheet, corrections and each hand's replay, drawn by the same presenter as the table's result page.
The events the league set aside are counted here, not shown: they are for the organiser."""

from __future__ import annotations

from typing import Any

from engine.seats import SEAT_NAMES
from league.store import kiosks as ks
from league.store.core import Reader
from league.store.rows import MeetingRow
from shared.game_state import ActionRefused, GameState
from shared.present import corrections_of, hand_summary, page_lines
from shared.present import rows as sheet_rows


def result_words(outcome: str | None, a: str, b: str) -> str:
    return {"a": f"{a} won", "b": f"{b} won", "tie": "tied"}.get(outcome or "", "counts for nobody")


def game_view(r: Reader, game_id: int) -> dict[str, Any] | None:
    """What the page shows of a league game; None when there is no such game."""
    g = r.game(game_id)
    if g is None:
        return None
    m = r.meeting(g["meeting_id"])
    assert m is not None  # a game is written after its meeting
    names = {t["id"]: t["name"] for t in r.teams(m["division_id"])}
    a, b = names.get(m["team_a"], "?"), names.get(m["team_b"], "?")
    view: dict[str, Any] = {
        "id": g["id"],
        "number": g["number"],
        "meeting": m,
        "division": r.division(m["division_id"]),
        "a": a,
        "b": b,
        "a_id": m["team_a"],
        "b_id": m["team_b"],
        "points_a": g["points_a"],
        "points_b": g["points_b"],
        "result": result_words(g["outcome"], a, b),
        "ruled": g["ruled_reason"] or "",
        "note": g["note"] or "",
        "table": None,
    }
    if g["kiosk_id"] is not None and g["kiosk_game"] is not None:
        view["table"] = _table_view(r, g["kiosk_id"], g["kiosk_game"], m, names)
    return view


def _table_view(r: Reader, kiosk: int, game: int, m: MeetingRow, names: dict[int, str]) -> dict[str, Any] | None:
    bound, stored = ks.game_of(r.conn, kiosk, game)
    applied = ks.applied_events(r.conn, kiosk, game)
    try:
        state = GameState.from_events(applied)
    except ActionRefused:
        return None  # cannot happen for events accepted one by one; the result above still stands
    ns = bound["ns_team"] if bound else m["team_a"]
    ew = m["team_b"] if ns == m["team_a"] else m["team_a"]
    teams = {
        "NS": names.get(ns, state.teams["NS"]),
        "EW": state.teams["EW"] if ew is None else names.get(ew, state.teams["EW"]),
    }
    return {
        "teams": teams,
        "totals": dict(zip(("NS", "EW"), state.sheet.totals, strict=True)),
        "winner": state.winner,
        "status": state.status,
        "rows": sheet_rows(state),
        "hands": [
            {
                "number": row.number,
                "summary": hand_summary(row),
                "lines": page_lines(entry.hand, state.rules),
                "corrected": bool(entry.corrections),
            }
            for row, entry in zip(state.sheet.rows, state.hands, strict=True)
        ],
        "corrections": corrections_of(state),
        "players": [(s, state.players[s]) for s in SEAT_NAMES if s in state.players],
        "set_aside": sum(1 for s in stored if s["quarantined"] is not None),
        "started": state.started_at,
    }
