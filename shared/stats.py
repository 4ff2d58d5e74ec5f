"""Statistics from a game's folded state: each team's and each seat's figures in one game, their sums
over many games, and leaderboards sorted by any figure with a minimum of games to qualify.

Pure: no SQL, no clock. The kiosk sums its own games by the team names typed at the table; the league
sums its games by its teams (``league/organiser/figures.py``). Every figure is counted from the sheet's
rows and the hands behind them, so nothing is stored twice:

- hands: rows on the sheet (pass-outs, misdeals and hands both teams reneged included);
- makers: hands the team (or the seat) named trump, a hand void by two reneges left out; made: of
  those, the hands the makers scored (not set, no renege of theirs);
- sets taken: named trump and set (XX on the sheet); sets given: set the other team's makers;
- points: what went on the sheet; biggest: the most in one hand;
- melds as announced, by kind: mules (four Jacks), hundreds (four of another rank, or a sequence of 5
  or 6), fifties (a sequence of 4), dads (a sequence of 3); bells: held the King and Queen of trump;
- reneges: hands in which the team (or seat) reneged, proven from the cards or called at the table;
- pass-outs: hands passed out on the team's (or seat's) deal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any, NamedTuple

from markupsafe import Markup

from engine.cards import JACK
from engine.melds import Meld
from engine.scoring import HandScore
from engine.seats import SEAT_NAMES, SEATS, TEAM_NAMES, TEAMS, Team, other, team_of
from shared.events import GameEvent
from shared.game_state import FINISHED, OVER, ActionRefused, GameState


@dataclass(frozen=True)
class Figures:
    """What a team or a player did over some games; ``+`` sums two (the biggest hand is the larger)."""

    games: int = 0
    won: int = 0
    tied: int = 0
    hands: int = 0
    makers: int = 0
    made: int = 0
    sets_taken: int = 0
    sets_given: int = 0
    points: int = 0
    biggest: int = 0
    mules: int = 0
    hundreds: int = 0
    fifties: int = 0
    dads: int = 0
    bells: int = 0
    reneges: int = 0
    pass_outs: int = 0

    def __add__(self, more: Figures) -> Figures:
        sums = {f: getattr(self, f) + getattr(more, f) for f in COUNTED}
        sums["biggest"] = max(self.biggest, more.biggest)
        return Figures(**sums)

    @property
    def wins(self) -> Fraction:
        """Games won, a tie counting half (as in the standings)."""
        return self.won + Fraction(self.tied, 2)

    @property
    def win_rate(self) -> Fraction | None:
        return self.wins / self.games if self.games else None

    @property
    def make_rate(self) -> Fraction | None:
        return Fraction(self.made, self.makers) if self.makers else None

    @property
    def average(self) -> Fraction | None:
        """Points a hand."""
        return Fraction(self.points, self.hands) if self.hands else None

    def value(self, figure: str) -> Fraction | int | None:
        """A figure by its key (see ``FIGURES``); None where it cannot be worked out (no hands)."""
        value: Fraction | int | None = getattr(self, figure)
        return value


COUNTED = tuple(f.name for f in fields(Figures))
HAND_FIGURES = COUNTED[3:]  # what a game's events say beyond its result
NOTHING = Figures()


@dataclass(frozen=True)
class Figure:
    """A figure a leaderboard can show and sort by."""

    key: str
    header: str  # the column's heading, short enough for a phone
    words: str  # what it counts, in the players' words
    percent: bool = False
    decimals: int = 0

    def shown(self, figures: Figures) -> str:
        """The figure as a leaderboard's cell: ``–`` where it cannot be worked out, ``2½`` wins."""
        v = figures.value(self.key)
        if type(v) is int:  # most figures: counted, shown as they are
            return str(v)
        if v is None:
            return "–"
        if self.percent:
            return f"{float(v) * 100:.0f}%"
        if isinstance(v, Fraction) and v.denominator == 2 and self.decimals == 0:
            return f"{v.numerator // 2}½" if v.numerator > 1 else "½"
        return f"{float(v):.{self.decimals}f}" if self.decimals else str(int(v))


FIGURES: tuple[Figure, ...] = (
    Figure("games", "G", "games played"),
    Figure("wins", "W", "games won (a tie counts half)"),
    Figure("win_rate", "W%", "share of games won", percent=True),
    Figure("hands", "Hands", "hands played"),
    Figure("average", "Pts", "average points a hand", decimals=1),
    Figure("biggest", "Best", "biggest hand"),
    Figure("makers", "Trump", "hands as makers (named trump)"),
    Figure("made", "Made", "hands made as makers"),
    Figure("make_rate", "Made%", "share of hands as makers made", percent=True),
    Figure("sets_taken", "XX", "sets taken: named trump and were set"),
    Figure("sets_given", "XX'd", "sets given: set the makers"),
    Figure("pass_outs", "P/O", "hands passed out on their deal"),
    Figure("mules", "Mules", "mules (four Jacks)"),
    Figure("hundreds", "100s", "hundreds (four of a kind, or five or six in sequence)"),
    Figure("fifties", "50s", "fifties (four in sequence)"),
    Figure("dads", "Dads", "dads (three in sequence)"),
    Figure("bells", "Bells", "bells (King and Queen of trump)"),
    Figure("reneges", "Ren", "hands they reneged in"),
)
BY_KEY = {f.key: f for f in FIGURES}
# The figures in three narrow tables, so that each fits a phone's width.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Games", ("games", "wins", "win_rate", "hands", "average", "biggest")),
    ("Trump", ("makers", "made", "make_rate", "sets_taken", "sets_given", "pass_outs")),
    ("Melds", ("mules", "hundreds", "fifties", "dads", "bells", "reneges")),
)
COLUMN = {f.key: i for i, f in enumerate(FIGURES)}
DEFAULT_SORT = "wins"
DEFAULT_MINIMUM = 3
TOP = 50  # lines a leaderboard shows unless asked for all


def meld_kind(meld: Meld) -> str:
    """mules, hundreds, fifties or dads."""
    if meld.is_four:
        return "mules" if meld.rank == JACK else "hundreds"
    return {3: "dads", 4: "fifties"}.get(meld.length, "hundreds")


def counts(state: GameState) -> bool:
    """Whether a kiosk game is in its own statistics: ended at the target or by the table, not abandoned
    and not still in play."""
    return state.status in (OVER, FINISHED)


@dataclass(frozen=True)
class GameFigures:
    """One game's figures: each team's (NS, EW) and each seat's (N, E, S, W), with the names typed."""

    teams: dict[str, str]
    players: dict[str, str]
    sides: tuple[Figures, Figures]
    seats: tuple[Figures, Figures, Figures, Figures]


def _count_hand(counter: dict[str, int], score: HandScore, team: Team, as_makers: bool) -> None:
    """What a hand on the sheet adds to a team's or seat's count; ``as_makers``: they named trump."""
    mine = score.score[team]
    counter["hands"] += 1
    counter["points"] += mine
    counter["biggest"] = max(counter["biggest"], mine)
    if as_makers and not score.void:
        counter["makers"] += 1
        counter["made"] += int(mine > 0)
        counter["sets_taken"] += int(score.set)
    if score.set and score.makers == other(team):
        counter["sets_given"] += 1


def figures_of(state: GameState) -> GameFigures:
    """A game's figures: its result as the sheet has it (won at the target, tied, or neither), and its
    hands."""
    side = [dict.fromkeys(COUNTED, 0) for _ in TEAMS]
    seat = [dict.fromkeys(COUNTED, 0) for _ in SEATS]
    for row, entry in zip(state.sheet.rows, state.hands, strict=True):
        score, hand = row.score, entry.hand
        reneges = [] if score.passed_out or score.misdeal else hand.reneges()
        bell = hand.bell_seat()
        for t in TEAMS:
            _count_hand(side[t], score, t, score.makers == t)
            side[t]["reneges"] += int(any(r.team == t for r in reneges))
        for s in SEATS:
            _count_hand(seat[s], score, team_of(s), hand.maker == s)
            seat[s]["reneges"] += int(any(r.seat == s for r in reneges))
            seat[s]["pass_outs"] += int(score.passed_out and row.dealer == s)
            seat[s]["bells"] += int(bell == s)
            for meld in hand.melds[s]:
                seat[s][meld_kind(meld)] += 1
    winner = state.winner
    for t in TEAMS:
        for key in ("pass_outs", "bells", "mules", "hundreds", "fifties", "dads"):
            side[t][key] = seat[t][key] + seat[t + 2][key]
        won, tied = int(winner == TEAM_NAMES[t]), int(winner == "tie")
        for counter in (side[t], seat[t], seat[t + 2]):
            counter.update(games=1, won=won, tied=tied)
    return GameFigures(
        dict(state.teams),
        dict(state.players),
        (Figures(**side[0]), Figures(**side[1])),
        (Figures(**seat[0]), Figures(**seat[1]), Figures(**seat[2]), Figures(**seat[3])),
    )


# ---- many games -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A team's or a player's line on a leaderboard; ``team`` is a player's team."""

    name: str
    figures: Figures
    team: str = ""
    link: str = ""  # where the name leads, if anywhere
    position: int = 0


def same_name(name: str) -> str:
    """Names typed at different tables are the same name whatever their case and spacing."""
    return " ".join(name.split()).casefold()


def tally(games: Iterable[GameFigures]) -> tuple[list[Line], list[Line]]:
    """The teams' and the players' lines over games, by the names typed at the table (in any case);
    a team or player is shown as last typed. Seats with no name typed count for their team only."""
    teams: dict[str, Line] = {}
    players: dict[tuple[str, str], Line] = {}
    for g in games:
        for t, name in enumerate(TEAM_NAMES):
            team = g.teams.get(name, name)
            key = same_name(team)
            held = teams.get(key)
            teams[key] = Line(team, g.sides[t] + (held.figures if held else NOTHING))
            for s in (t, t + 2):
                player = g.players.get(SEAT_NAMES[s], "")
                if not player.strip():
                    continue
                pkey = (key, same_name(player))
                was = players.get(pkey)
                players[pkey] = Line(player, g.seats[s] + (was.figures if was else NOTHING), team)
    return list(teams.values()), list(players.values())


class Statistics(NamedTuple):
    """A kiosk's statistics: the games counted, the teams' lines and the players'."""

    games: int
    teams: list[Line]
    players: list[Line]


class Tally:
    """A kiosk's games' figures, each game folded once for each version of it (its newest event's seq),
    summed by the names typed at the table. Not safe for two threads at once."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[int, GameFigures | None]] = {}

    def stale(self, versions: Iterable[tuple[int, int]]) -> list[int]:
        """The games (of ``versions``: id and newest seq) not folded as they are now."""
        return [g for g, seq in versions if g not in self._held or self._held[g][0] != seq]

    def fold(self, events: Sequence[GameEvent]) -> None:
        """A game's figures from its log; none when it does not count or cannot be folded (the owner is
        told about such a game elsewhere)."""
        game, seq = events[0].game, events[-1].seq
        try:
            state = GameState.from_events(events)
        except ActionRefused:
            self._held[game] = (seq, None)
            return
        self._held[game] = (seq, figures_of(state) if counts(state) else None)

    def lines(self, versions: Iterable[tuple[int, int]]) -> tuple[list[Line], list[Line]]:
        """The teams' and players' lines over the games of ``versions`` (others are forgotten)."""
        wanted = dict(versions)
        for g in [g for g in self._held if g not in wanted]:
            del self._held[g]
        return tally(f for g, (_seq, f) in sorted(self._held.items()) if f is not None)

    def clear(self) -> None:
        """Forgets every game (another database file: its numbers are other games)."""
        self._held.clear()


@dataclass(frozen=True)
class Board:
    """A leaderboard: the lines that qualify, in order with their positions, and how many do not."""

    lines: list[Line]
    sort: str
    minimum: int
    below: int  # lines with fewer games than the minimum, left out


def sort_key(text: Any) -> str:
    """A figure's key from an address's ``sort`` (``name`` or a figure), else the default."""
    return text if isinstance(text, str) and (text in BY_KEY or text == "name") else DEFAULT_SORT


def minimum_of(text: Any, default: int = DEFAULT_MINIMUM) -> int:
    """A minimum of games from an address's ``min`` (0 to 999), else the default."""
    if isinstance(text, int) and not isinstance(text, bool):
        return min(max(text, 0), 999)
    if isinstance(text, str) and text.strip().isdigit() and len(text.strip()) <= 3:
        return int(text.strip())
    return default


def board(lines: Sequence[Line], sort: str = DEFAULT_SORT, minimum: int = DEFAULT_MINIMUM) -> Board:
    """The lines with at least ``minimum`` games, the highest ``sort`` first (a figure that cannot be
    worked out last; level lines share a position and are listed by name); ``name`` sorts A to Z."""
    sort = sort_key(sort)
    qualified = [x for x in lines if x.figures.games >= minimum]

    def by_name(x: Line) -> tuple[str, str]:
        return (same_name(x.name), same_name(x.team))

    if sort == "name":
        ordered = sorted(qualified, key=by_name)
        out = [replace(x, position=i + 1) for i, x in enumerate(ordered)]
        return Board(out, sort, minimum, len(lines) - len(qualified))
    values = {id(x): x.figures.value(sort) for x in qualified}
    ordered = sorted(qualified, key=by_name)
    ordered.sort(key=lambda x: (values[id(x)] is None, -(values[id(x)] or 0)))
    out, last, position = [], object(), 0
    for i, x in enumerate(ordered):
        if values[id(x)] != last:
            position, last = i + 1, values[id(x)]
        out.append(replace(x, position=position))
    return Board(out, sort, minimum, len(lines) - len(qualified))


def view(
    teams: Sequence[Line], players: Sequence[Line], sort: Any = None, minimum: Any = None, everyone: Any = None
) -> dict[str, Any]:
    """What a statistics page shows: the sort and minimum as read from its address, and for the teams and
    the players each group of figures as a narrow table, sorted, with the first ``TOP`` lines that
    qualify (all of them when ``everyone`` is ``"1"``)."""
    # The default minimum is 3 games, or fewer while nobody has played 3: after a first night the
    # page shows that night's figures rather than nothing.
    most = max((x.figures.games for x in (*teams, *players)), default=0)
    key, all_ = sort_key(sort), everyone in ("1", True)
    least = minimum_of(minimum, default=max(1, min(DEFAULT_MINIMUM, most)))
    out: dict[str, Any] = {
        "sort": key,
        "sort_words": "name" if key == "name" else BY_KEY[key].words,
        "minimum": least,
        "everyone": all_,
        "top": TOP,
        "key": [(f.header, f.words) for f in FIGURES],
    }
    for what, lines in (("teams", teams), ("players", players)):
        b = board(lines, key, least)
        shown = b.lines if all_ else b.lines[:TOP]
        cells = [[f.shown(x.figures) for f in FIGURES] for x in shown]
        out[what] = {
            "below": b.below,
            "count": len(b.lines),
            "shown": len(shown),
            "tables": [
                {
                    "name": name,
                    "figures": [BY_KEY[k] for k in keys],
                    "rows": [
                        {
                            "position": x.position,
                            "name": x.name,
                            "team": x.team,
                            "link": x.link,
                            "cells": [row[COLUMN[k]] for k in keys],
                        }
                        for x, row in zip(shown, cells, strict=True)
                    ],
                }
                for name, keys in GROUPS
            ],
        }
    return out


def as_cells(page: dict[str, Any]) -> dict[str, Any]:
    """A page's figures as table cells, each row's at once: a long leaderboard costs one string a row
    rather than an escape a figure (they are the figures' own digits, %, ½ and –, nothing to escape)."""
    for what in ("teams", "players"):
        for table in page[what]["tables"]:
            for row in table["rows"]:
                row["cells"] = Markup("".join(f"<td>{c}</td>" for c in row["cells"]))
    return page
