"""A league night by the league's own clock: its time zone, and the hour its nights end. A game at
1 am is still the night it began; neither the server's time zone nor a kiosk's decides it."""

from __future__ import annotations

import datetime as dt
import zoneinfo

TIME_ZONE = "America/Chicago"  # Evansville's
NIGHT_ENDS = 6  # a night runs until 6 am


def zone_of(name: str) -> zoneinfo.ZoneInfo | None:
    """The time zone an IANA name (America/Chicago) names, or None when the system knows no such zone."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def league_night(moment: dt.datetime, time_zone: str, night_ends: int) -> dt.date:
    """The league night ``moment`` (aware) belongs to: its date where the league is, the day before
    until the hour the league's nights end. An unknown time zone is taken as Evansville's.

    >>> at = dt.datetime(2026, 1, 7, 6, 30, tzinfo=dt.UTC)  # 00:30 in Evansville
    >>> league_night(at, "America/Chicago", 6), league_night(at, "Pacific/Auckland", 6)
    (datetime.date(2026, 1, 6), datetime.date(2026, 1, 7))
    """
    zone = zone_of(time_zone) or zoneinfo.ZoneInfo(TIME_ZONE)
    return (moment.astimezone(zone) - dt.timedelta(hours=night_ends)).date()
