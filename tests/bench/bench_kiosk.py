"""Kiosk benchmarks: cold start to the first frame and memory beside a bare Kivy app, and the time
from a confirmed hand to the updated sheet; each also for a kiosk in a league with its sync worker
process (``clabber league sync``) running against a league server on loopback, in the same run, with
the ratios.

Run with ``./run bench kiosk`` (or ``python -m tests.bench.bench_kiosk``). Prints medians; asserts nothing.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.bench_store import generate
from tests.store_helpers import QUICK_HANDS

RUNS = 15
BLOCKS = 16  # confirmed hands are timed in blocks: alone, then in a league with the worker, in turn
PER_BLOCK = 10


class League:
    """A league whose first round is tonight, served by ``clabber league serve`` on loopback (SQLite), for
    a kiosk to join and play a meeting's games; and the kiosk's sync worker as its own process."""

    def __init__(self, folder: Path) -> None:
        from tests.league_server import LeagueServer
        from tests.sync_helpers import tonight_league

        db = str(folder / "league.db")
        self.world = tonight_league(db)
        self.server = LeagueServer(db)
        self.server.start()
        # On a table the league is another machine; here it shares the two cores with the kiosk, so it takes
        # only what the kiosk and its worker leave.
        assert self.server.proc is not None
        os.setpriority(os.PRIO_PROCESS, self.server.proc.pid, 19)
        self.venue = self.world["venues"][0]
        m = self.world["meeting"][self.venue]
        self.meeting = {"meeting": m["id"], "NS": m["team_a"], "EW": m["team_b"]}
        self.teams = list(self.world["teams_at"][self.venue])

    def join(self, store: Any) -> None:
        from kiosk import league_link

        league_link.join(store, self.server.url, self.world["kiosks"].make_code(self.venue, 1))

    def worker(self, db: Path, ready: bool = False) -> Any:
        """``clabber league sync --kiosk-db DB``, started now; ``ready``: once it has reached the league."""
        from tests.sync_helpers import WorkerProcess, wait_until

        worker = WorkerProcess(db)
        if ready:
            wait_until(lambda: "sync: connected" in worker.words(), 60, "the sync worker connected")
        return worker

    def queue(self, db: Path, hands: int) -> None:
        """``hands`` more hands of a league game on the kiosk, waiting for the worker (a new game when none is open)."""
        from kiosk.recovery import open_store
        from kiosk.table import Table

        store, _ = open_store(db, db.parent / "backups")
        table = Table(store, rng=random.Random(hands))
        game = table.open_game()
        for hand in (QUICK_HANDS[:2] * hands)[:hands]:
            if game is None or game.status != "open":
                game = table.new_game(self.teams, first_dealer="N", league=self.meeting)
            game = table.add_hand(game.id, hand)
        store.close()

    def delivered(self) -> int:
        """Events the league holds from its kiosks."""
        from league.ingest.kiosks import Kiosks
        from tests.sync_helpers import league_holds

        store = self.world["store"]
        kiosks = [k["id"] for k in Kiosks(store).enrolled()]
        return sum(len(events) for k in kiosks for events in league_holds(store, k).values())

    def close(self) -> None:
        self.server.stop()
        self.world["store"].close()


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


def _kiosk(db: Path) -> list[str]:
    clabber = Path(sys.executable).with_name("clabber")
    return [str(clabber), "kiosk", "--db", str(db), "--headless", "--exit-at-first-frame"]


def cold_start(db: Path, in_league: Path, league: League) -> None:
    """Each run: the kiosk alone; the kiosk in a league, its sync worker running (three hands waiting,
    which it delivers as the kiosk starts); the same with the worker started at the same moment, as at
    boot; the bare Kivy app."""
    bare = [sys.executable, "-m", "tests.bench.bare_kivy"]
    alone, running, booting, b = [], [], [], []
    before = league.delivered()
    for _ in range(RUNS):
        alone.append(first_frame(_kiosk(db)))
        worker = league.worker(in_league, ready=True)
        league.queue(in_league, 3)
        running.append(first_frame(_kiosk(in_league)))
        worker.stop()
        league.queue(in_league, 3)
        worker = league.worker(in_league)
        booting.append(first_frame(_kiosk(in_league)))
        worker.stop()
        b.append(first_frame(bare))
    kt, rt, st, bt = (statistics.median(t for t, _ in x) for x in (alone, running, booting, b))
    km, rm, sm, bm = (statistics.median(m for _, m in x) for x in (alone, running, booting, b))
    print(
        f"cold start to first frame, 1,000 games  kiosk {kt * 1000:6.0f} ms   bare Kivy {bt * 1000:6.0f} ms"
        f"   ratio {kt / bt:.2f}x (target <= 1.5x)"
    )
    for words, t in (("its sync worker running ", rt), ("its worker starting too ", st)):
        print(
            f"  in a league, {words} kiosk {t * 1000:6.0f} ms   {t / kt:.2f}x the kiosk alone, {t / bt:.2f}x bare Kivy"
        )
    print(
        f"resident memory at first frame          kiosk {km / 1024:6.1f} MB   bare Kivy {bm / 1024:6.1f} MB"
        f"   ratio {km / bm:.2f}x (target <= 1.3x)"
    )
    for words, m in (("its sync worker running ", rm), ("its worker starting too ", sm)):
        print(
            f"  in a league, {words} kiosk {m / 1024:6.1f} MB   {m / km:.2f}x the kiosk alone, {m / bm:.2f}x bare Kivy"
        )
    print(f"  the worker delivered {league.delivered() - before} events during those start-ups")


def confirm_to_sheet(league: League) -> None:
    """In this process: confirm a hand on the summary screen, then time until the sheet is drawn; in blocks,
    a kiosk alone (friendly games) and a kiosk in a league (league games, its sync worker running and
    delivering each hand as it is saved), in turn."""
    from kiosk import outbox
    from kiosk.ui.boot import Display, configure

    configure(Display(headless=True, maxfps=0))
    from tests.ui.harness import Kiosk

    samples: dict[bool, list[float]] = {False: [], True: []}
    rng = random.Random(5)
    before = league.delivered()
    with tempfile.TemporaryDirectory() as tmp:
        for block in range(BLOCKS):
            synced = block % 2 == 1
            folder = Path(tmp) / ("league" if synced else "alone")
            folder.mkdir(exist_ok=True)
            kiosk = Kiosk(folder / "clabber.db")
            worker = None
            if synced:
                if outbox.link(kiosk.table.store) is None:
                    league.join(kiosk.table.store)
                worker = league.worker(kiosk.db, ready=True)
            samples[synced] += _confirms(kiosk, rng, league if synced else None)
            if worker is not None:
                worker.stop()
            kiosk.close()
    alone, in_league = statistics.median(samples[False]), statistics.median(samples[True])
    print(f"confirmed hand to updated sheet (one frame drawn) {alone * 1000:6.1f} ms   (target <= 16 ms)")
    print(
        f"  in a league, its sync worker delivering        {in_league * 1000:6.1f} ms   {in_league / alone:.2f}x"
        f" the kiosk alone ({league.delivered() - before} events delivered meanwhile)"
    )


def _confirms(kiosk: Any, rng: random.Random, league: League | None) -> list[float]:
    """PER_BLOCK hands entered, then confirmed on the summary screen: each confirm's time to the drawn sheet."""
    teams, meeting = (league.teams, league.meeting) if league else (["A", "B"], None)
    samples = []
    game = kiosk.table.open_game()
    for _ in range(PER_BLOCK):
        if game is None or game.status != "open":
            game = kiosk.table.new_game(teams, first_dealer="N", league=meeting)
        kiosk.root.game_id = game.id
        kiosk.table.enter_hand(game.id, rng.choice(QUICK_HANDS[:2]), by="NS")
        kiosk.root.show("summary")
        kiosk.frames(2)
        summary = kiosk.screen
        start = time.perf_counter()
        summary.confirm()
        kiosk.frames(1)  # the frame that draws the updated sheet
        samples.append(time.perf_counter() - start)
        game = kiosk.table.game(game.id)
    return samples


def main() -> None:
    print("Clabber kiosk benchmarks (medians; Kivy drawing offscreen with Mesa llvmpipe)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        league = League(folder)
        try:
            db = folder / "games-1000.db"
            generate(db, 1000)
            from kiosk.recovery import open_store
            from kiosk.table import Table

            in_league = folder / "league-kiosk" / "games-1000.db"
            in_league.parent.mkdir()
            in_league.write_bytes(db.read_bytes())  # the same 1,000 games; this one joins the league
            for path, meeting in ((db, None), (in_league, league.meeting)):
                store, _ = open_store(path, path.parent / "backups")
                if meeting is not None:
                    league.join(store)
                table = Table(store)
                teams = league.teams if meeting else ["Ruminers", "Mackeys"]
                game = table.new_game(teams, first_dealer="N", league=meeting)  # the open game the kiosk resumes
                for hand in QUICK_HANDS[:3]:
                    table.add_hand(game.id, hand)
                store.close()
            cold_start(db, in_league, league)
            confirm_to_sheet(league)
        finally:
            league.close()


if __name__ == "__main__":
    main()
