"""Kiosk benchmarks: cold start to the first frame and memory beside a bare Kivy app, and the time
from a confirmed hand to the updated sheet.

Run with ``./run bench kiosk`` (or ``python -m tests.bench.bench_kiosk``). Prints medians; asserts nothing.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.bench_store import generate
from tests.store_helpers import QUICK_HANDS

RUNS = 9


def first_frame(cmd: list[str]) -> tuple[float, int]:
    """Wall time from starting the process to its first frame (the line it prints then), and its
    memory at that moment."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line, elapsed = "", 0.0
    for out in process.stdout:  # type: ignore[union-attr]
        if out.startswith("first-frame"):
            line, elapsed = out, time.perf_counter() - start
            break
    _, err = process.communicate(timeout=120)
    if process.returncode != 0 or not line:
        raise SystemExit(f"{cmd[0]} failed: {err[-1500:]}")
    return elapsed, int(line.split("rss_kb=")[1])


def cold_start(db: Path) -> None:
    clabber = Path(sys.executable).with_name("clabber")
    kiosk = [str(clabber), "kiosk", "--db", str(db), "--headless", "--exit-at-first-frame"]
    bare = [sys.executable, "-m", "tests.bench.bare_kivy"]
    k = [first_frame(kiosk) for _ in range(RUNS)]
    b = [first_frame(bare) for _ in range(RUNS)]
    kt, bt = statistics.median(t for t, _ in k), statistics.median(t for t, _ in b)
    km, bm = statistics.median(m for _, m in k), statistics.median(m for _, m in b)
    print(
        f"cold start to first frame, 1,000 games  kiosk {kt * 1000:6.0f} ms   bare Kivy {bt * 1000:6.0f} ms"
        f"   ratio {kt / bt:.2f}x (target <= 1.5x)"
    )
    print(
        f"resident memory at first frame          kiosk {km / 1024:6.1f} MB   bare Kivy {bm / 1024:6.1f} MB"
        f"   ratio {km / bm:.2f}x (target <= 1.3x)"
    )


def confirm_to_sheet() -> None:
    """In this process: confirm a hand on the summary screen, then time until the sheet is drawn."""
    from kiosk.ui.boot import Display, configure

    configure(Display(headless=True, maxfps=0))
    from tests.ui.harness import Kiosk

    samples = []
    with tempfile.TemporaryDirectory() as tmp:
        kiosk = Kiosk(Path(tmp) / "clabber.db")
        rng = random.Random(5)
        game = kiosk.table.new_game(["A", "B"], first_dealer="N")
        kiosk.root.game_id = game.id
        for _ in range(60):
            game = kiosk.table.game(game.id)
            if game.status != "open":
                game = kiosk.table.new_game(["A", "B"], first_dealer="N")
                kiosk.root.game_id = game.id
            kiosk.table.enter_hand(game.id, rng.choice(QUICK_HANDS[:2]), by="NS")
            kiosk.root.show("summary")
            kiosk.frames(2)
            summary = kiosk.screen
            start = time.perf_counter()
            summary.confirm()
            kiosk.frames(1)  # the frame that draws the updated sheet
            samples.append(time.perf_counter() - start)
        kiosk.close()
    print(
        f"confirmed hand to updated sheet (one frame drawn) {statistics.median(samples) * 1000:6.1f} ms"
        "   (target <= 16 ms)"
    )


def main() -> None:
    print("Clabber kiosk benchmarks (medians; Kivy drawing offscreen with Mesa llvmpipe)")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games-1000.db"
        generate(db, 1000)
        from kiosk.store import open_store
        from kiosk.table import Table

        store, _ = open_store(db, Path(tmp) / "backups")
        table = Table(store)
        game = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")  # the open game the kiosk resumes
        for hand in QUICK_HANDS[:3]:
            table.add_hand(game.id, hand)
        store.close()
        cold_start(db)
    confirm_to_sheet()


if __name__ == "__main__":
    main()
