"""A kiosk's request refused: what every part of the league's side of a kiosk raises, with the HTTP
status the kiosk API answers it with."""

from __future__ import annotations

from league.organiser.season import LeagueRefused


class KioskRefused(LeagueRefused):
    """A kiosk's request refused, with the HTTP status that says so; nothing was written."""

    def __init__(self, why: str, status: int = 422) -> None:
        super().__init__(why)
        self.status = status


class Busy(KioskRefused):
    """Refused for now: too many wrong attempts; ``wait`` seconds until the next is heard."""

    def __init__(self, why: str, wait: int) -> None:
        super().__init__(why, 429)
        self.wait = wait
