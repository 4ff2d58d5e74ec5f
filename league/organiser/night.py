"""A league's clock: a time zone and the hour its nights end, checked as the organiser sets them, and
read for a venue (the night a moment belongs to is shared/night.py's, which the kiosks use too)."""

from __future__ import annotations

import datetime as dt

from league.organiser.season import LeagueRefused
from league.store.core import Reader
from shared.night import NIGHT_ENDS, TIME_ZONE, league_night, zone_of

__all__ = ["NIGHT_ENDS", "TIME_ZONE", "check_clock", "clock_at", "league_night", "night_at"]

LATEST_END = 12  # a night cannot run past noon


def check_clock(time_zone: object, night_ends: object) -> tuple[str, int]:
    """A league's time zone (an IANA name such as America/Chicago) and the hour its nights end (0 to
    12), or LeagueRefused naming the one that is not."""
    if not isinstance(time_zone, str) or zone_of(time_zone) is None:
        raise LeagueRefused(f"league: time zone {str(time_zone)[:64]!r} is not a time zone such as America/Chicago")
    if isinstance(night_ends, bool) or not isinstance(night_ends, int) or not 0 <= night_ends <= LATEST_END:
        raise LeagueRefused(f"league: a night ends at an hour from 0 to {LATEST_END} (6: 6 am), not {night_ends!r}")
    return time_zone, night_ends


def clock_at(r: Reader, venue: int) -> tuple[str, int]:
    """The time zone and the hour nights end of the league a venue is in (Evansville's for a venue
    the league does not know)."""
    return r.clock_of_venue(venue) or (TIME_ZONE, NIGHT_ENDS)


def night_at(r: Reader, venue: int, moment: dt.datetime) -> dt.date:
    """The league night ``moment`` belongs to at a venue, by its league's clock."""
    return league_night(moment, *clock_at(r, venue))
