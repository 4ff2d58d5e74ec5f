"""A game's result as an organiser types it, checked by the rules a kiosk game ends by: the winner
reached the target and (unless the makers of a last hand that took both teams over it count first)
has more points; a tie only where the season's rules end a game tied; points whole, from 0 to the most
a game can end with. A game that ended otherwise (a forfeit, an abandonment) is a ruling with a
reason, not a score."""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import winners_at
from engine.rules import Rules
from engine.scoring import MOST_IN_A_HAND
from engine.seats import EW, NS
from league.organiser.season import LeagueRefused
from league.organiser.standings import TIE, A, B, Line
from league.store.core import Reader
from league.store.rows import MeetingRow

WINNER = {A: NS, B: EW, TIE: None}  # a result's words as the engine's winner: team a is taken as NS


def most_points(rules: Rules) -> int:
    """The most a team can end a game with: one point short of the target, then the best hand."""
    return rules.target - 1 + MOST_IN_A_HAND


def check_score(points_a: object, points_b: object, outcome: str | None, rules: Rules, where: str) -> None:
    """Refuses (``LeagueRefused``, naming the field) a result that no game under ``rules`` ends with.

    ``outcome``: a, b or tie; or None, a game abandoned (its points as they stood, counting for nobody)."""
    most = most_points(rules)
    for name, p in (("the first team's points", points_a), ("the second team's points", points_b)):
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= most:
            raise LeagueRefused(f"{where}: {name}: {p!r} is not a game's points (whole, from 0 to {most})")
    assert isinstance(points_a, int) and isinstance(points_b, int)
    if outcome is None:
        return
    if outcome not in WINNER:
        raise LeagueRefused(f"{where}: the result is a, b or tie, not {outcome!r}")
    # The engine decides, as it decides a kiosk game's end (team a's points as NS's); here only why not.
    if WINNER[outcome] in winners_at((points_a, points_b), rules):
        return
    target = rules.target
    if outcome == TIE:
        if rules.tie_at_target != "tie":
            raise LeagueRefused(f"{where}: the season's rules play on after equal totals: a game cannot end tied")
        raise LeagueRefused(f"{where}: a tie is equal totals of {target} or more, not {points_a}–{points_b}")
    won, lost = (points_a, points_b) if outcome == A else (points_b, points_a)
    side = "the first team" if outcome == A else "the second team"
    if won < target:
        raise LeagueRefused(f"{where}: {side} won with {won}, short of the target {target}: swap a and b?")
    raise LeagueRefused(f"{where}: {side} won with {won} against {lost}: the winner has more points; swap a and b?")


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']
    """
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def said_of_game(
    r: Reader,
    m: MeetingRow,
    points_a: int,
    points_b: int,
    outcome: str | None,
    before: Sequence[Line],
    after: Sequence[Line],
) -> str:
    """A recorded game in a sentence, with where it puts its teams: "Aces beat Kings 506–312; Aces go
    up to 1st, Kings stay 3rd." (the standings' places only for a round-robin meeting)."""
    team_b = m["team_b"]
    assert team_b is not None  # a bye has no games
    a, b = r.team(m["team_a"]), r.team(team_b)
    name = {A: a["name"] if a else "team a", B: b["name"] if b else "team b"}
    if outcome is None:
        return f"{name[A]} and {name[B]}'s game, abandoned at {points_a}–{points_b}, counts for nobody."
    if outcome == TIE:
        said = f"{name[A]} and {name[B]} tie {points_a}–{points_b}"
        order = [A, B]
    else:
        won, lost = (A, B) if outcome == A else (B, A)
        scores = (points_a, points_b) if won == A else (points_b, points_a)
        said = f"{name[won]} beat {name[lost]} {scores[0]}–{scores[1]}"
        order = [won, lost]
    ids = {A: m["team_a"], B: team_b}
    was = {x.team: x.position for x in before}
    now = {x.team: x.position for x in after}
    places = []
    for side in order:
        place, earlier = now.get(ids[side]), was.get(ids[side])
        if place is None:
            continue
        move = "stay" if place == earlier else "go up to" if earlier and place < earlier else "go down to"
        places.append(f"{name[side]} {move} {ordinal(place)}")
    return f"{said}; {', '.join(places)}." if places else f"{said}."
