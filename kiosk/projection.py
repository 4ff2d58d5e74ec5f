"""A game's log projected onto the store's derived tables: one ``games`` row, its ``hands`` rows,
its ``drafts`` row. The column names are the store's (``kiosk/store.py``'s schema); the rows can
always be made again from the log, which is what ``clabber db rebuild`` and ``db check`` do.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable
from typing import Any

from engine.output import renege_to_json
from engine.seats import TEAM_NAMES, seat_name
from shared.events import GameEvent
from shared.game_state import GameState, Unfoldable

Rows = dict[str, Any]  # {"game": row, "hands": [row, ...], "draft": row or None}
# Each state's rows, made once: a state never changes after its fold (the next event makes a new one),
# and its rows go when it does.
_MADE: weakref.WeakKeyDictionary[GameState, Rows] = weakref.WeakKeyDictionary()


def rows_of(state: GameState) -> Rows:
    """The derived rows of one game, made once for each state."""
    rows = _MADE.get(state)
    if rows is None:
        rows = _MADE[state] = _rows(state)
    return rows


def _rows(state: GameState) -> Rows:
    totals = state.sheet.totals
    game = {
        "id": state.id,
        "token": state.token,
        "started_at": state.started_at,
        "updated_at": state.updated_at,
        "status": state.status,
        "team_ns": state.teams["NS"],
        "team_ew": state.teams["EW"],
        "players": state.players_json,
        "rules": state.rules_json,
        "first_dealer": seat_name(state.first_dealer),
        "dealer": seat_name(state.dealer),
        "rules_dealer": seat_name(state.rules_dealer),
        "hands": len(state.hands),
        "total_ns": totals[0],
        "total_ew": totals[1],
        "winner": state.winner,
        "last_seq": state.last_seq,
    }
    hands = []
    for h, row in zip(state.hands, state.sheet.rows, strict=True):
        s = row.score
        hands.append(
            {
                "game": state.id,
                "number": row.number,
                "dealer": seat_name(row.dealer),
                "makers": None if s.makers is None else TEAM_NAMES[s.makers],
                "score_ns": s.score[0],
                "score_ew": s.score[1],
                "mark_ns": s.marks[0],
                "mark_ew": s.marks[1],
                "total_ns": row.totals[0],
                "total_ew": row.totals[1],
                "set": s.set,
                "passed_out": s.passed_out,
                "renege": json.dumps(renege_to_json(s)) if s.renege else None,
                "corrected": len(h.corrections),
                "record": h.record_json,
                "entered_at": h.entered.at,
                "confirmed_at": h.confirmed.at if h.confirmed else None,
            }
        )
    draft = None
    if state.pending is not None or state.draft is not None:
        entered = state.pending is not None
        record = state.pending.record if state.pending is not None else state.draft
        draft = {
            "game": state.id,
            "record": json.dumps(record),
            "entered": entered,
            "by": state.pending.by if state.pending else None,
            "updated_at": state.updated_at,
        }
    return {"game": game, "hands": hands, "draft": draft}


def project(log: Iterable[GameEvent]) -> Rows:
    """The derived rows a game's whole log gives."""
    return rows_of(GameState.from_events(log))


class Projection:
    """``project`` for a rebuild or a check over many games: a game whose log the rules refuse is
    noted in ``stuck`` (and its rows left as they are) instead of stopping the others."""

    def __init__(self) -> None:
        self.stuck: list[Unfoldable] = []

    def __call__(self, log: Iterable[GameEvent]) -> Rows | None:
        try:
            return project(log)
        except Unfoldable as e:
            self.stuck.append(e)
            return None
