"""Seats and teams: N E S W clockwise; partners sit opposite."""

from __future__ import annotations

from engine.errors import InvalidRecordError
from engine.named import Named


class Seat(Named):
    """A seat at the table; an int (0 to 3) that prints as its letter."""

    N = 0
    E = 1
    S = 2
    W = 3


class Team(Named):
    """A partnership: NS (0) or EW (1); an int that prints as its name."""

    NS = 0
    EW = 1


SEATS: tuple[Seat, ...] = tuple(Seat)
SEAT_NAMES = "NESW"
N, E, S, W = SEATS
TEAMS: tuple[Team, ...] = tuple(Team)
TEAM_NAMES = ("NS", "EW")
NS, EW = TEAMS


# Seats and teams are looked up, not constructed: an enum call costs ten times a tuple index.
def left_of(seat: int, steps: int = 1) -> Seat:
    """The player to a seat's left: the next seat clockwise.

    >>> left_of(Seat.W), left_of(Seat.N, 2), team_of(Seat.E)
    (N, S, EW)
    """
    return SEATS[(seat + steps) % 4]


def right_of(seat: int) -> Seat:
    """The player to a seat's right: the previous seat clockwise."""
    return SEATS[(seat - 1) % 4]


def team_of(seat: int) -> Team:
    """The team a seat plays for."""
    return TEAMS[seat % 2]


def other(team: int) -> Team:
    """The opponents of a team."""
    return TEAMS[1 - team]


def seat_name(seat: int) -> str:
    """``"N"``, ``"E"``, ``"S"`` or ``"W"``."""
    return SEAT_NAMES[seat]


def team_name(team: int) -> str:
    """``"NS"`` or ``"EW"``."""
    return TEAM_NAMES[team]


def parse_seat(text: object) -> Seat:
    """Reads a seat letter (any case)."""
    if isinstance(text, str) and len(text.strip()) == 1 and text.strip().upper() in SEAT_NAMES:
        return SEATS[SEAT_NAMES.index(text.strip().upper())]
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
