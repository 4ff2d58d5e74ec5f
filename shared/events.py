"""The events of a game's log: what the table did, in order, never changed afterwards."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

GAME_STARTED = "game_started"
DRAFT_SAVED = "draft_saved"  # the hand being entered, as far as it goes
DRAFT_DISCARDED = "draft_discarded"
HAND_ENTERED = "hand_entered"  # a whole hand, waiting for the other team to confirm it
HAND_CONFIRMED = "hand_confirmed"  # on the sheet
HAND_CORRECTED = "hand_corrected"  # an earlier hand replaced, with the owner's PIN and a reason
DEAL_MOVED = "deal_moved"  # the table moved the deal forward or back
UNDONE = "undone"  # an earlier action taken back
GAME_FINISHED = "game_finished"
GAME_ABANDONED = "game_abandoned"

KINDS = (
    GAME_STARTED,
    DRAFT_SAVED,
    DRAFT_DISCARDED,
    HAND_ENTERED,
    HAND_CONFIRMED,
    HAND_CORRECTED,
    DEAL_MOVED,
    UNDONE,
    GAME_FINISHED,
    GAME_ABANDONED,
)
# Actions one tap of undo may take back (corrections need the PIN again instead).
UNDOABLE = (DRAFT_SAVED, DRAFT_DISCARDED, HAND_ENTERED, HAND_CONFIRMED, DEAL_MOVED)
SOURCES = ("screen", "button", "cli", "web", "import")


@dataclass(frozen=True)
class GameEvent:
    """One entry of the log."""

    game: int
    seq: int  # 1, 2, ... within the game
    at: str  # UTC, ISO 8601
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    action_id: str | None = None  # the same action delivered twice is stored once
    source: str = "screen"
    authorised_by: str | None = None  # for a correction: who allowed it
    reason: str | None = None  # for a correction or an abandoned game: why


def new_action_id() -> str:
    """A fresh id for one thing a player means to do; a double tap repeats it, not a new one."""
    return uuid.uuid4().hex
