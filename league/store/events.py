"""The league's log: what the organiser did, in order, never changed afterwards.

Every other table derives from these events and can be rebuilt from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LEAGUE_CREATED = "league_created"  # {league, name, time_zone, night_ends} (the last two since 0012)
SEASON_CREATED = "season_created"  # {season, league, name, settings}
DIVISION_ADDED = "division_added"  # {division, season, name}
TEAM_ADDED = "team_added"  # {team, division, name, players, substitutes}
VENUE_ADDED = "venue_added"  # {venue, league, name, tables}
SCHEDULE_MADE = "schedule_made"  # {division, rounds: [{round, number, date, meetings: [{meeting, a, b, venue}]}]}
MEETING_MOVED = "meeting_moved"  # {meeting, date, venue, table, reason}
MEETING_FORFEITED = "meeting_forfeited"  # {meeting, team, reason}
GAME_RECORDED = "game_recorded"  # {game, meeting, number, points_a, points_b, outcome}
# {game, meeting, number, kiosk, kiosk_game, points_a, points_b, outcome, note}: a kiosk game's result
# as its events fold, written when it ends and again whenever a later event changes it
GAME_PLAYED = "game_played"
GAME_RULED = "game_ruled"  # {game, outcome, points_a, points_b, reason}: an organiser's ruling
RESULTS = (GAME_RECORDED, GAME_PLAYED, GAME_RULED)  # the events that write a game's result
# {division, teams (seeded), rounds: [{round, number, date, playoff_round}], matches: [{match, round, playoff_round,
#  slot, seed_a, seed_b, from_a, from_b, next, next_side, venue, a, b, meeting}]}
PLAYOFFS_MADE = "playoffs_made"
# {division, match, winner, was, next: null | {match, side, meeting, new_meeting: null | {round, a, b, venue}}}
PLAYOFF_ADVANCED = "playoff_advanced"
PLAYERS_MERGED = "players_merged"  # {league, name, into, into_name}: a name rated as another player (0014)

KINDS = (
    LEAGUE_CREATED,
    SEASON_CREATED,
    DIVISION_ADDED,
    TEAM_ADDED,
    VENUE_ADDED,
    SCHEDULE_MADE,
    MEETING_MOVED,
    MEETING_FORFEITED,
    GAME_RECORDED,
    GAME_PLAYED,
    GAME_RULED,
    PLAYOFFS_MADE,
    PLAYOFF_ADVANCED,
    PLAYERS_MERGED,
)


@dataclass(frozen=True)
class LeagueEvent:
    """One entry of the log."""

    id: int
    at: str  # UTC, ISO 8601
    kind: str
    payload: dict[str, Any]
