"""Players' ratings across partnerships: every counted game of a league rates the four players who
sat, whoever they partnered, substitutes included.

The model is openskill's Plackett-Luce (Weng and Lin's Bayesian approximation): each player is a
rating ``mu`` with an uncertainty ``sigma``; a team is the sum of its players, so a 2-v-2 game
moves all four, each by what the game says of them given their partner and the other side; a tie
is two teams ranked level; and one pass over the games rates a league's whole history in well under
a second (``./run bench ratings``). It rates the outcome (won, lost, tied), not the margin: the
standings count games won, and a Clabber margin is mostly the cards. Thurstone-Mosteller would do
the same job; Plackett-Luce is openskill's default and the one its authors recommend for teams.

A player is rated by name within a league, the same person across its seasons: names are compared
as the statistics compare them (case and spaces aside). A kiosk game is rated by who sat at its
seats; a game recorded by hand, by its teams' two registered players. Ratings are worked out from
the games whenever they are read, so they always equal what the games give: a ruling that changes
a game is in the next reading, with nothing stored to drift from it.

Ranked by ``mu - 3 sigma``: a player who has played few games is not ranked above proven ones on
the strength of one lucky night.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from league.organiser.season import LeagueRefused
from league.store import ratings as rs
from league.store.core import Reader, Store
from league.store.rows import LeagueRow
from shared.stats import same_name

RANGE = 2.0  # a rating is shown as mu ± RANGE sigma: about 95 % of what the games allow
NEW_PLAYER = 25.0  # openskill's rating of a player before any game


@dataclass
class PlayerRating:
    """One player's rating after the games rated, with how it came to be."""

    name: str  # as typed in most of their games
    mu: float
    sigma: float
    games: int = 0
    won: int = 0
    history: list[tuple[str, float]] = field(default_factory=list)  # (night, mu) after each game
    key: str = ""  # the name as names are compared: the player's address on the pages
    partners: dict[str, list[int]] = field(default_factory=dict)  # partner's key -> [games, won]

    @property
    def ordinal(self) -> float:
        """What the ranking orders by: the rating less three uncertainties."""
        return self.mu - 3 * self.sigma

    @property
    def low(self) -> float:
        return self.mu - RANGE * self.sigma

    @property
    def high(self) -> float:
        return self.mu + RANGE * self.sigma


@dataclass(frozen=True)
class RatedGame:
    """A game as the ratings read it."""

    night: str
    players: tuple[Sequence[str], Sequence[str]]  # who sat for team a, for team b
    outcome: str  # a, b or tie


class Ratings:
    """Players' ratings, each game added in the order it was played."""

    def __init__(self, merged: dict[str, tuple[str, str]] | None = None) -> None:
        """``merged``: the organiser's word that a name (as compared) is another player (as compared,
        and as the organiser spells them)."""
        self.merged = merged or {}
        self.model = PlackettLuce()
        self._by_key: dict[str, Any] = {}  # a player's key -> openskill's rating
        self._rated: dict[str, PlayerRating] = {}
        self._spellings: dict[str, Counter[str]] = {}

    def add(self, game: RatedGame) -> None:
        """Rates one game; a side with nobody known at its seats is left out (the game then rates nobody)."""
        # Each side's players by key, a name given twice (two seats, or a team registered with one
        # name in two spellings) once: a player is rated once a game.
        seated = [{self.key(n): n for n in reversed(names) if n and n.strip()} for names in game.players]
        sides = [list(reversed(s)) for s in seated]
        if not sides[0] or not sides[1] or set(sides[0]) & set(sides[1]):
            return
        for by_key in seated:
            for key, name in by_key.items():
                self._spellings.setdefault(key, Counter())[" ".join(name.split())] += 1
                if key not in self._by_key:
                    self._by_key[key] = self.model.rating(name=key)
        teams = [[self._by_key[k] for k in keys] for keys in sides]
        ranks = [1.0, 1.0] if game.outcome == "tie" else [1.0, 2.0] if game.outcome == "a" else [2.0, 1.0]
        rated = self.model.rate(teams, ranks=ranks)
        for t, (keys, after) in enumerate(zip(sides, rated, strict=True)):
            won = (game.outcome == "a" and t == 0) or (game.outcome == "b" and t == 1)
            for key, r in zip(keys, after, strict=True):
                self._by_key[key] = r
                line = self._rated.setdefault(key, PlayerRating(key, r.mu, r.sigma, key=key))
                line.mu, line.sigma, line.games, line.won = r.mu, r.sigma, line.games + 1, line.won + won
                line.history.append((game.night, r.mu))
                for partner in keys:
                    if partner != key:
                        record = line.partners.setdefault(partner, [0, 0])
                        record[0], record[1] = record[0] + 1, record[1] + won

    def table(self) -> list[PlayerRating]:
        """Every player rated, best first (by ``mu - 3 sigma``, then by name)."""
        for key, line in self._rated.items():
            line.name = self.name_of(key)  # the spelling typed most, then first
        return sorted(self._rated.values(), key=lambda x: (-x.ordinal, x.name))

    def key(self, name: str) -> str:
        """Who a name is: the name as compared, or the player the organiser merged it into."""
        key = same_name(name)
        for _ in range(len(self.merged)):  # a merge into a merged name follows on; a circle stops
            if key not in self.merged:
                break
            key = self.merged[key][0]
        return key

    def player(self, name: str) -> PlayerRating | None:
        """One player's line, by any of their names; None for a player never rated."""
        key = self.key(name)
        return next((x for x in self.table() if x.key == key), None)

    def name_of(self, key: str) -> str:
        """A rated player's name: as the organiser spelled it in a merge, else as typed in most of
        their games."""
        spelled = next((n for k, n in self.merged.values() if k == key), None)
        counts = self._spellings.get(key)
        return spelled or (min(counts, key=lambda n: (-counts[n], n)) if counts else key)

    def knows(self, *teams: Sequence[str]) -> bool:
        """Whether any of these players has been rated (else every chance between them is even)."""
        return any(self.key(n) in self._by_key for names in teams for n in names)

    def shares(self, team_a: Sequence[str], team_b: Sequence[str]) -> tuple[int, int] | None:
        """Each team's chance in whole per cent (adding up to 100), or None while nobody of the four
        is rated (their chances are even, and saying 50 % says nothing)."""
        if not self.knows(team_a, team_b):
            return None
        share = round(100 * self.chance(team_a, team_b))
        return share, 100 - share

    def chance(self, team_a: Sequence[str], team_b: Sequence[str]) -> float:
        """Team a's chance of beating team b, from their players' ratings (an unrated player counts as
        new): what openskill's model predicts."""
        teams = [[self._by_key.get(self.key(n)) or self.model.rating() for n in names] for names in (team_a, team_b)]
        return float(self.model.predict_win(teams)[0])


def rate(games: Iterable[RatedGame], merged: dict[str, tuple[str, str]] | None = None) -> Ratings:
    """The ratings the games give, each added in turn (``merged``: as ``Ratings`` takes it)."""
    ratings = Ratings(merged)
    for g in games:
        ratings.add(g)
    return ratings


def league_ratings(store: Store, league: int) -> tuple[LeagueRow, Ratings]:
    """A league and its players' ratings over all its seasons; LeagueRefused for no such league."""
    with store.read() as r:
        lg = r.league(league)
        if lg is None:
            raise LeagueRefused(f"there is no league {league}")
        return lg, ratings_in(r, league)


def ratings_in(r: Reader, league: int) -> Ratings:
    """A league's ratings as a transaction reads them (a writer's too: the playoffs seeded by them)."""
    rows = rs.rated_games(r.conn, league)
    return rate((RatedGame(x["night"], x["players"], x["outcome"]) for x in rows), rs.merges(r.conn, league))


class KeptRatings:
    """Each league's ratings as last worked out, kept while the league has no newer event: a page
    that shows a meeting's chances reads one number, not every game, when nothing has changed."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._kept: dict[int, tuple[int, Ratings]] = {}
        self._lock = threading.Lock()  # pages are answered in worker threads

    def of(self, league: int) -> Ratings:
        with self.store.read() as r:
            now = rs.version(r.conn)
        with self._lock:
            kept = self._kept.get(league)
        if kept is not None and kept[0] == now:
            return kept[1]
        _, rated = league_ratings(self.store, league)
        with self._lock:
            self._kept[league] = (now, rated)
        return rated
