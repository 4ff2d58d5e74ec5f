"""Players' ratings on a simulated league: 60 players with hidden strengths, 30 teams drawn afresh
each season (partners change), three seasons of 2,000 games each. Each game's winner is drawn from
the two pairs' hidden strengths (the chance a logistic curve of their difference gives, as an Elo
curve does); a tie one game in fifty. Prints, after each season, the ratings' rank correlation with
the hidden strengths (Spearman; target ≥ 0.8 after three seasons); how often the team the ratings
favoured before a game won it, by predicted chance in 10 bins; and the time to rate a season.

Run with ``python -m tests.bench.bench_ratings [SEED]``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time

from league.organiser.ratings import RatedGame, Ratings

PLAYERS, SEASONS, GAMES = 60, 3, 2000
SPREAD = 1.0  # the hidden strengths' standard deviation, in the logistic curve's units
TIES = 0.02
TARGET = 0.8


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    for r, i in enumerate(order):
        out[i] = float(r)
    return out


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    return cov / math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))


def main(argv: list[str]) -> None:
    seed = int(argv[0]) if argv else 1
    rng = random.Random(seed)
    names = [f"P{i:02d}" for i in range(PLAYERS)]
    strength = {n: rng.gauss(0, SPREAD) for n in names}
    ratings = Ratings()
    bins = [[0, 0] for _ in range(10)]  # by the favourite's predicted chance: games, favourite won
    print(f"ratings: {PLAYERS} players, {SEASONS} seasons of {GAMES} games, seed {seed}")
    for season in range(1, SEASONS + 1):
        shuffled = names[:]
        rng.shuffle(shuffled)
        teams = [shuffled[i : i + 2] for i in range(0, PLAYERS, 2)]
        games = []
        for g in range(GAMES):
            a, b = rng.sample(teams, 2)
            edge = sum(strength[n] for n in a) - sum(strength[n] for n in b)
            roll = rng.random()
            outcome = "tie" if roll < TIES else "a" if rng.random() < 1 / (1 + math.exp(-edge)) else "b"
            games.append(RatedGame(f"{season}-{g:05d}", (a, b), outcome))
        started = time.perf_counter()
        for game in games:
            chance = ratings.chance(*game.players)
            favourite, p = ("a", chance) if chance >= 0.5 else ("b", 1 - chance)
            if game.outcome != "tie":
                at = bins[min(9, int(p * 10))]
                at[0] += 1
                at[1] += game.outcome == favourite
            ratings.add(game)
        seconds = time.perf_counter() - started
        table = {x.name: x.mu for x in ratings.table()}
        rho = spearman([table[n] for n in names], [strength[n] for n in names])
        verdict = f" (target ≥ {TARGET}: {'met' if rho >= TARGET else 'missed'})" if season == SEASONS else ""
        print(f"  season {season}: Spearman {rho:.3f}{verdict}; {GAMES} games predicted and rated in {seconds:.2f} s")
    print("  the favourite before a game, by its predicted chance: games, won")
    for i, (n, won) in enumerate(bins):
        if n:
            print(f"    {i * 10:3d}–{i * 10 + 10:3d} %  {n:5d}  {100 * won / n:5.1f} %")
    started = time.perf_counter()
    fresh = Ratings()
    for game in games:
        fresh.add(game)
    print(f"  rating a season of {GAMES} games alone: {time.perf_counter() - started:.2f} s (target ≤ 1 s)")


if __name__ == "__main__":
    main(sys.argv[1:])
