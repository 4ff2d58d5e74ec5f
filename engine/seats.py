"""Seats and teams: N E S W clockwise; partners sit opposite."""

from __future__ import annotations

from engine.errors import InvalidRecordError

Seat = int
Team = int

SEATS: tuple[Seat, ...] = (0, 1, 2, 3)
SEAT_NAMES = "NESW"
N, E, S, W = SEATS
TEAMS: tuple[Team, ...] = (0, 1)
TEAM_NAMES = ("NS", "EW")
NS, EW = TEAMS


def left_of(seat: Seat, steps: int = 1) -> Seat:
    """The player to a seat's left: the next seat clockwise."""
    return (seat + steps) % 4


def right_of(seat: Seat) -> Seat:
    """The player to a seat's right: the previous seat clockwise."""
    return (seat - 1) % 4


def team_of(seat: Seat) -> Team:
    """The team a seat plays for."""
    return seat % 2


def other(team: Team) -> Team:
    """The opponents of a team."""
    return 1 - team


def seat_name(seat: Seat) -> str:
    """``"N"``, ``"E"``, ``"S"`` or ``"W"``."""
    return SEAT_NAMES[seat]


def team_name(team: Team) -> str:
    """``"NS"`` or ``"EW"``."""
    return TEAM_NAMES[team]


def parse_seat(text: object) -> Seat:
    """Reads a seat letter (any case)."""
    if isinstance(text, str) and len(text.strip()) == 1 and text.strip().upper() in SEAT_NAMES:
        return SEAT_NAMES.index(text.strip().upper())
    raise InvalidRecordError(f"{text!r} is not a seat (N, E, S or W)")


def parse_team(text: object) -> Team:
    """Reads a team name (any case, either order of its seats)."""
    if isinstance(text, str):
        t = text.strip().upper()
        if t in ("NS", "SN"):
            return NS
        if t in ("EW", "WE"):
            return EW
    raise InvalidRecordError(f"{text!r} is not a team (NS or EW)")
