"""A season's settings: how many games a meeting is, how the standings rank, how the playoffs are
seeded, the rules every game uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import EntryError
from engine.rules import Rules, parse_rules

RANKINGS = ("games_won", "game_points")
TIE_BREAKERS = ("games_won", "game_points", "point_difference", "head_to_head")
DEFAULT_TIE_BREAKERS = ("game_points", "point_difference", "head_to_head")
MOST_GAMES_PER_MEETING = 15
# The playoffs' seeds: the standings' order, or (the same teams qualifying by the standings) by the
# strength of each team's two players in the league's ratings (league/organiser/ratings.py).
SEEDINGS = ("standings", "ratings")


class LeagueRefused(ValueError):
    """Something the league cannot do or accept, said in the organiser's words."""


@dataclass(frozen=True)
class SeasonSettings:
    """What every meeting of the season shares."""

    games_per_meeting: int = 1
    ranking: str = "games_won"
    tie_breakers: tuple[str, ...] = DEFAULT_TIE_BREAKERS
    rules: Rules = field(default_factory=lambda: parse_rules(None))
    seeding: str = "standings"

    def to_json(self) -> dict[str, Any]:
        return {
            "games_per_meeting": self.games_per_meeting,
            "ranking": self.ranking,
            "tie_breakers": list(self.tie_breakers),
            "rules": self.rules.to_json(),
            "seeding": self.seeding,
        }


def read_settings(obj: Any, where: str = "settings") -> SeasonSettings:
    """Checks settings given as JSON (missing fields take the defaults); refuses with where and why."""
    if obj is None:
        return SeasonSettings()
    if not isinstance(obj, dict):
        raise LeagueRefused(f"{where}: must be an object")
    unknown = sorted(set(obj) - {"games_per_meeting", "ranking", "tie_breakers", "rules", "seeding"})
    if unknown:
        raise LeagueRefused(f"{where}: unknown setting {unknown[0]!r}")
    games = obj.get("games_per_meeting", 1)
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MOST_GAMES_PER_MEETING:
        raise LeagueRefused(f"{where}.games_per_meeting: must be a whole number from 1 to {MOST_GAMES_PER_MEETING}")
    ranking = obj.get("ranking", "games_won")
    if ranking not in RANKINGS:
        raise LeagueRefused(f"{where}.ranking: must be one of {', '.join(RANKINGS)}, not {ranking!r}")
    breakers = obj.get("tie_breakers", list(DEFAULT_TIE_BREAKERS))
    if not isinstance(breakers, list | tuple):
        raise LeagueRefused(f"{where}.tie_breakers: must be a list")
    for i, b in enumerate(breakers):
        if b not in TIE_BREAKERS:
            raise LeagueRefused(f"{where}.tie_breakers[{i}]: must be one of {', '.join(TIE_BREAKERS)}, not {b!r}")
    if len(set(breakers)) != len(breakers):
        raise LeagueRefused(f"{where}.tie_breakers: each tie-breaker may be named once")
    seeding = obj.get("seeding", "standings")
    if seeding not in SEEDINGS:
        raise LeagueRefused(f"{where}.seeding: must be one of {', '.join(SEEDINGS)}, not {str(seeding)[:40]!r}")
    try:
        rules = parse_rules(obj.get("rules"), f"{where}.rules")
    except EntryError as e:
        raise LeagueRefused("; ".join(str(p) for p in e.problems)) from None
    return SeasonSettings(games, ranking, tuple(breakers), rules, seeding)
