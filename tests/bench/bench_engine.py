"""Engine benchmarks: a whole random hand, the renege proof of a recorded hand, the legal-cards query.

Run with ``./run bench`` (or ``python -m tests.bench.bench_engine``). Prints medians; asserts nothing.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable

from engine.hand import Hand, Play
from engine.record import hand_to_json, read_hand
from engine.rules import Rules
from engine.scoring import score_hand
from engine.simulate import random_hand

RULES = Rules()


def measure(name: str, samples: list[Callable[[], object]], target_ms: float | None, repeat: int = 1) -> float:
    """Times each sample once (``repeat`` calls per timing) and prints the median and 90th percentile."""
    times = []
    for fn in samples:
        start = time.perf_counter_ns()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter_ns() - start) / repeat / 1e6)
    times.sort()
    median = statistics.median(times)
    p90 = times[int(len(times) * 0.9)]
    goal = f"  target <= {target_ms} ms: {'met' if median <= target_ms else 'MISSED'}" if target_ms else ""
    print(f"{name:<46} median {median * 1000:8.1f} µs   p90 {p90 * 1000:8.1f} µs   n={len(times)}{goal}")
    return median


def full_hand(seed: int) -> Callable[[], object]:
    def run() -> object:
        hand = random_hand(random.Random(seed), seed % 4)
        return score_hand(hand, RULES)

    return run


def recorded_hands(n: int) -> list[Hand]:
    """Full hands read back from records that carry only the plays (each hand is what its player played)."""
    out = []
    rng = random.Random(7)
    while len(out) < n:
        hand = random_hand(rng, len(out) % 4)
        if hand.passed_out:
            continue
        record = hand_to_json(hand, RULES)
        del record["hands"]
        out.append(read_hand(json.loads(json.dumps(record))).hand)
    return out


def mid_hand_states(n: int) -> list[Hand]:
    rng = random.Random(11)
    out = []
    while len(out) < n:
        hand = random_hand(rng, 0)
        if hand.passed_out:
            continue
        cut = rng.randrange(24)
        out.append(
            Hand.replay(
                hand.dealer,
                [e for e in hand.events if not isinstance(e, Play)]
                + [e for e in hand.events if isinstance(e, Play)][:cut],
            )
        )
    return out


def main() -> None:
    print("Clabber engine benchmarks (medians; one core)")
    measure("full random hand (deal, bids, melds, play, score)", [full_hand(s) for s in range(3000)], 0.3)
    hands = recorded_hands(2000)
    measure("renege proof of a full recorded hand", [h.prove_reneges for h in hands], 1.0)
    texts = [json.dumps(hand_to_json(h, RULES)) for h in hands[:1000]]
    measure(
        "record text -> read, prove, score",
        [lambda t=t: score_hand(read_hand(json.loads(t)).hand, RULES) for t in texts],
        None,
    )
    states = mid_hand_states(2000)
    measure("legal-cards query", [s.legal for s in states], None, repeat=100)


if __name__ == "__main__":
    main()
