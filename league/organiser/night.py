"""A league's clock as the organiser sets it: a time zone and the hour its nights end, checked (the
night a moment belongs to is shared/night.py's, which the kiosks use too)."""

from __future__ import annotations

import zoneinfo

from league.organiser.season import LeagueRefused
from shared.night import NIGHT_ENDS, TIME_ZONE, league_night

__all__ = ["NIGHT_ENDS", "TIME_ZONE", "check_clock", "league_night"]

LATEST_END = 12  # a night cannot run past noon


def check_clock(time_zone: object, night_ends: object) -> tuple[str, int]:
    """A league's time zone (an IANA name such as America/Chicago) and the hour its nights end (0 to
    12), or LeagueRefused naming the one that is not."""
    if not isinstance(time_zone, str) or not _known(time_zone):
        raise LeagueRefused(f"league: time zone {str(time_zone)[:64]!r} is not a time zone such as America/Chicago")
    if isinstance(night_ends, bool) or not isinstance(night_ends, int) or not 0 <= night_ends <= LATEST_END:
        raise LeagueRefused(f"league: a night ends at an hour from 0 to {LATEST_END} (6: 6 am), not {night_ends!r}")
    return time_zone, night_ends


def _known(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True
