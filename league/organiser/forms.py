"""The organiser's forms, each read into one call of the organiser library: what fields it takes and
the short confirmation shown once it is done. A field that cannot be read is refused as the library
refuses (``LeagueRefused``: where and why), before anything is written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.rules import PRESETS
from league.organiser.actions import Organiser
from league.organiser.night import NIGHT_ENDS, TIME_ZONE
from league.organiser.season import DEFAULT_TIE_BREAKERS, RANKINGS, TIE_BREAKERS, LeagueRefused

Fields = dict[str, str]
OUTCOMES = {"a": "a", "b": "b", "tie": "tie", "abandoned": None}
MOST_DIGITS = 9

RANKING_LABELS = {"games_won": "games won (a tie counts half)", "game_points": "game points"}
TIE_BREAKER_LABELS = {
    "games_won": "games won",
    "game_points": "game points",
    "point_difference": "point difference",
    "head_to_head": "head to head",
}


def number(form: Fields, key: str, what: str | None = None) -> int:
    """A whole number from 0 (an id, a count)."""
    text = form.get(key, "").strip()
    if not text.isdigit() or len(text) > MOST_DIGITS:
        raise LeagueRefused(f"{what or key}: {text!r} is not a number")
    return int(text)


def maybe_number(form: Fields, key: str, what: str) -> int | None:
    """A whole number, or None when the field is left empty."""
    return number(form, key, what) if form.get(key, "").strip() else None


def points(form: Fields, key: str, what: str) -> int:
    """A whole number as typed, a sign allowed: the season's rules say which points a game can end with."""
    text = form.get(key, "").strip()
    digits = text.removeprefix("-")
    if not digits.isdigit() or len(digits) > MOST_DIGITS:
        raise LeagueRefused(f"{what}: {text!r} is not a number of points")
    return int(text)


def outcome(form: Fields, what: str) -> str | None:
    """a, b, tie, or None for an abandoned game."""
    text = form.get("outcome", "")
    if not text:
        raise LeagueRefused(f"{what}: choose the result (who won, tied or abandoned)")
    if text not in OUTCOMES:
        raise LeagueRefused(f"{what}: the result is a, b, tie or abandoned, not {text!r}")
    return OUTCOMES[text]


def names(text: str) -> list[str]:
    """One name a line; empty lines left out."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def tie_breaker_fields() -> list[str]:
    return [f"tie_breaker_{i}" for i in range(1, len(TIE_BREAKERS) + 1)]


def _league(org: Organiser, f: Fields) -> None:
    zone = f.get("time_zone", "").strip() or TIME_ZONE
    ends = maybe_number(f, "night_ends", "league: the hour a night ends")
    org.create_league(f.get("name", ""), zone, NIGHT_ENDS if ends is None else ends)


def _season(org: Organiser, f: Fields) -> None:
    settings = {
        "games_per_meeting": number(f, "games_per_meeting", "season: games a meeting"),
        "ranking": f.get("ranking", ""),
        "tie_breakers": [f[k].strip() for k in tie_breaker_fields() if f.get(k, "").strip()],
        "rules": f.get("rules", ""),
    }
    org.create_season(number(f, "league"), f.get("name", ""), settings)


def _division(org: Organiser, f: Fields) -> None:
    org.add_division(number(f, "season"), f.get("name", ""))


def _team(org: Organiser, f: Fields) -> None:
    players = [f.get("player_1", ""), f.get("player_2", "")]
    org.add_team(number(f, "division"), f.get("name", ""), players, names(f.get("substitutes", "")))


def _venue(org: Organiser, f: Fields) -> None:
    org.add_venue(number(f, "league"), f.get("name", ""), number(f, "tables", "venue: tables"))


def _schedule(org: Organiser, f: Fields) -> None:
    every = maybe_number(f, "every", "schedule: days between rounds")
    if every is not None and not 1 <= every <= 60:
        raise LeagueRefused("schedule: the days between rounds are from 1 to 60")
    org.make_schedule(number(f, "division"), f.get("start", ""), 7 if every is None else every, f.get("double") == "1")


def _move(org: Organiser, f: Fields) -> None:
    meeting = number(f, "meeting")
    org.move_meeting(
        meeting,
        date=f.get("date", "").strip() or None,
        venue=maybe_number(f, "venue", f"meeting {meeting}: venue"),
        table=maybe_number(f, "table", f"meeting {meeting}: table"),
        reason=f.get("reason", ""),
    )


def _game_fields(f: Fields) -> tuple[int, int, int, str | None, str | None]:
    meeting = number(f, "meeting")
    where = f"meeting {meeting}: game"
    return (
        meeting,
        points(f, "points_a", f"{where}: the first team's points"),
        points(f, "points_b", f"{where}: the second team's points"),
        outcome(f, where),
        f.get("reason", "").strip() or None,
    )


def _game(org: Organiser, f: Fields) -> None:
    org.record_game(*_game_fields(f))


def _game_preview(org: Organiser, f: Fields) -> str:
    return org.preview_game(*_game_fields(f))


def _forfeit(org: Organiser, f: Fields) -> None:
    org.forfeit(number(f, "meeting"), number(f, "team"), f.get("reason", ""))


def _rule(org: Organiser, f: Fields) -> None:
    game = number(f, "game")
    org.rule_game(game, outcome(f, f"game {game}: ruling"), f.get("reason", ""))


@dataclass(frozen=True)
class Form:
    """A form of the organiser's pages: the library call it makes, and what the page says after."""

    act: Callable[[Organiser, Fields], None]
    done: str
    # What the form would do, in a sentence, shown with a button to do it before anything counts.
    preview: Callable[[Organiser, Fields], str] | None = None


FORMS: dict[str, Form] = {
    "league": Form(_league, "The league is created."),
    "season": Form(_season, "The season is created, with its first division."),
    "division": Form(_division, "The division is added."),
    "team": Form(_team, "The team is added."),
    "venue": Form(_venue, "The venue is added."),
    "schedule": Form(_schedule, "The schedule is made."),
    "move": Form(_move, "The meeting is moved."),
    "game": Form(_game, "The game is recorded.", _game_preview),
    "forfeit": Form(_forfeit, "The forfeit is recorded."),
    "rule": Form(_rule, "The ruling is recorded."),
}

# What the season form offers: every choice read_settings accepts, the defaults chosen.
SEASON_CHOICES: dict[str, Any] = {
    "rankings": [(r, RANKING_LABELS[r]) for r in RANKINGS],
    "tie_breakers": [(t, TIE_BREAKER_LABELS[t]) for t in TIE_BREAKERS],
    "tie_breaker_defaults": list(DEFAULT_TIE_BREAKERS) + [""] * (len(TIE_BREAKERS) - len(DEFAULT_TIE_BREAKERS)),
    "tie_breaker_fields": tie_breaker_fields(),
    "presets": list(PRESETS),
}
