"""The odds of a bid: ``odds_of_bid`` at 400 deals for random bids (a shuffled deal, lawful random
bidding), each timed alone on one core; the median, the worst, the deals a second, and the margin
the 400 deals leave. The Pi's figure is estimated by the factor docs/engine.md states.

Run with ``python -m tests.bench.bench_odds [BIDS [SEED]]`` (default 30 bids, seed 1). Prints
figures; asserts nothing. Target: at most 2 s median here.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

from engine.deal import deal
from engine.hand import Hand
from engine.odds import DEALS, odds_of_bid
from engine.seats import SEATS
from engine.simulate import random_bids

TARGET_S = 2.0


def bids(n: int, seed: int) -> list[Hand]:
    """``n`` hands bid to a trump, none passed out."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        dealer = rng.choice(SEATS)
        hand = random_bids(rng, Hand(dealer).apply(deal(rng, dealer)))
        if not hand.passed_out:
            out.append(hand)
    return out


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 30
    seed = int(argv[1]) if len(argv) > 1 else 1
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the Pi's kiosk gives it
    seconds, cpu, margins, chances = [], [], [], []
    for hand in bids(n, seed):
        t, c = time.perf_counter(), time.process_time()
        odds = odds_of_bid(hand, DEALS, seed)
        seconds.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        assert odds is not None
        margins.append(odds.margin)
        chances.append(odds.chance)
    med = statistics.median(seconds)
    print(f"odds of a bid, {DEALS} deals each, {n} random bids (seed {seed}), one core:")
    print(f"  median {med:.2f} s, worst {max(seconds):.2f} s (CPU median {statistics.median(cpu):.2f} s)")
    verdict = "met" if med <= TARGET_S else "missed"
    print(f"  {DEALS / med:.0f} deals a second; target ≤ {TARGET_S:.0f} s median: {verdict}")
    print(
        f"  margin at 95 %: median ± {100 * statistics.median(margins):.1f} points, widest ± {100 * max(margins):.1f}"
    )
    print(f"  chances made: {min(chances):.0%} to {max(chances):.0%} (median {statistics.median(chances):.0%})")
    print(f"  load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
