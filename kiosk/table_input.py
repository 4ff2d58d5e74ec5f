"""What a table types in, checked before anything is stored: team names, player names, a team,
a reason. Refusals are ActionRefused in the table's words. Each takes ``object``: the screens pass
the shapes named below, the CLI and a JSON record whatever they were given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from engine.errors import EntryError
from engine.seats import SEAT_NAMES, TEAM_NAMES, parse_seat, parse_team, seat_name
from engine.text import MAX_NAME, MAX_REASON, plain_text
from shared.game_state import ActionRefused

TeamNames: TypeAlias = Sequence[str] | Mapping[str, str]
"""Two team names, NS first, or by side: ``{"NS": "Aces", "EW": "Kings"}``."""
PlayerNames: TypeAlias = Sequence[str] | Mapping[str, str]
"""Four player names N E S W, or some of them by seat: ``{"N": "Ron"}``."""
LeagueSides: TypeAlias = Mapping[str, int]
"""The league meeting a game is for and the league's team at each side: ``{"meeting": 12, "NS": 1, "EW": 4}``."""


def parse_teams(names: object) -> dict[str, str]:
    """Two team names, NS first; ActionRefused if missing, blank, too long or not plain text."""
    if isinstance(names, dict):
        names = [names.get("NS"), names.get("EW")]
    if not isinstance(names, (list, tuple)) or len(names) != 2:
        raise ActionRefused("give two team names, NS first")
    out = {}
    for team, name in zip(TEAM_NAMES, names, strict=True):
        if not isinstance(name, str) or not name.strip():
            raise ActionRefused(f"team {team} needs a name")
        out[team] = _plain(f"team {team}'s name", name, MAX_NAME)
    return out


def parse_players(names: object) -> dict[str, str]:
    """Optional player names by seat; blanks are left out."""
    if names is None:
        return {}
    if isinstance(names, (list, tuple)):
        if len(names) != 4:
            raise ActionRefused("give four player names, N E S W, or none")
        names = dict(zip(SEAT_NAMES, names, strict=True))
    if not isinstance(names, dict):
        raise ActionRefused("player names go by seat: N E S W")
    out = {}
    for seat, name in names.items():
        try:
            s = seat_name(parse_seat(seat))
        except EntryError:
            raise ActionRefused(f"{seat!r} is not a seat (N, E, S or W)") from None
        if name is not None and not isinstance(name, str):
            raise ActionRefused(f"{s}'s name must be text")
        if name and name.strip():
            out[s] = _plain(f"{s}'s name", name, MAX_NAME)
    return out


def parse_league(meeting: object) -> dict[str, int] | None:
    """The league meeting a game is played for: its id and the league's team at NS and at EW."""
    if meeting is None:
        return None
    if not isinstance(meeting, dict) or set(meeting) != {"meeting", "NS", "EW"}:
        raise ActionRefused('a league game names its meeting and sides: {"meeting": 12, "NS": 1, "EW": 4}')
    for key, value in meeting.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**31:
            raise ActionRefused(f"league {key}: {value!r} is not an id")
    if meeting["NS"] == meeting["EW"]:
        raise ActionRefused("a league game is between two different teams")
    return {"meeting": meeting["meeting"], "NS": meeting["NS"], "EW": meeting["EW"]}


def parse_team_name(team: object) -> str:
    """A team as NS or EW; ActionRefused otherwise."""
    try:
        return TEAM_NAMES[parse_team(team)]
    except EntryError:
        raise ActionRefused(f"{team!r} is not a team (NS or EW)") from None


def parse_reason(reason: object, missing: str) -> str:
    """A reason the table gave, stripped; ``missing`` says what to do when there is none."""
    if not isinstance(reason, str) or not reason.strip():
        raise ActionRefused(missing)
    return _plain("the reason", reason, MAX_REASON)


def _plain(what: str, text: str, most: int) -> str:
    try:
        return plain_text(text, most)
    except ValueError as e:
        raise ActionRefused(f"{what} {e}") from None
