"""The league's rows as the store reads them: one typed record a table (and a meeting with what its
readers join to it), so that a column's name or type mistaken anywhere is the type checker's to find.
The columns are tables.py's."""

from __future__ import annotations

from typing import TypedDict


class LeagueRow(TypedDict):
    id: int
    name: str
    time_zone: str  # an IANA name
    night_ends: int  # the hour a night ends, 0 to 12


class SeasonRow(TypedDict):
    id: int
    league_id: int
    name: str
    settings: str  # JSON, as stored


class DivisionRow(TypedDict):
    id: int
    season_id: int
    name: str


class TeamRow(TypedDict):
    id: int
    division_id: int
    name: str
    players: str  # JSON: the two players
    substitutes: str  # JSON: any number


class VenueRow(TypedDict):
    id: int
    league_id: int
    name: str
    tables: int  # numbered 1..tables


class RoundRow(TypedDict):
    id: int
    division_id: int
    number: int
    date: str
    stage: str


class MeetingRow(TypedDict):
    """A meeting with its round's number, date, division and stage."""

    id: int
    round_id: int
    team_a: int
    team_b: int | None  # None: team_a has the bye
    venue_id: int | None
    table_number: int | None
    date: str | None  # set when moved off the round's night
    forfeit_team: int | None
    forfeit_reason: str | None
    round: int
    division_id: int
    round_date: str
    stage: str


class MeetingWithSettings(MeetingRow):
    """A meeting with its season's settings and its teams' names: what a kiosk game's binding and
    result need, in one read."""

    season_settings: str  # JSON, as stored
    team_a_name: str | None
    team_b_name: str | None


class GameRow(TypedDict):
    id: int
    meeting_id: int
    number: int
    points_a: int
    points_b: int
    outcome: str | None  # a, b, tie; None: counts for nobody
    ruled_reason: str | None
    kiosk_id: int | None  # played at a kiosk: which, and its own game number
    kiosk_game: int | None
    note: str | None  # why a kiosk game counts for nobody until ruled


class PlayoffsRow(TypedDict):
    division_id: int
    teams: str  # JSON: team ids, seed 1 first


class PlayoffMatchRow(TypedDict):
    id: int
    division_id: int
    round_id: int
    playoff_round: int
    slot: int
    seed_a: int | None
    seed_b: int | None
    from_a: int | None
    from_b: int | None
    next_match: int | None
    next_side: str | None
    venue_id: int
    team_a: int | None
    team_b: int | None
    meeting_id: int | None
    winner: int | None
