"""Store benchmarks: a durable save beside a raw fsync, opening a big database, rebuilding.

Run with ``./run bench store`` (or ``python -m tests.bench.bench_store``). Prints medians; asserts nothing.
The 100,000-game database is generated once into ``$CLABBER_BENCH_DIR`` (default /tmp/clabber-bench).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import statistics
import tempfile
import time
from pathlib import Path

from kiosk.projection import project, rows_of
from kiosk.recovery import open_store
from kiosk.store import Store
from kiosk.table import Table

BENCH_DIR = Path(os.environ.get("CLABBER_BENCH_DIR", "/tmp/clabber-bench"))


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def quick_hand(rng: random.Random) -> dict:
    ns = rng.choice([p for p in range(163) if p not in (1, 161)])
    return {"trump": rng.choice("CDHS"), "maker": rng.choice("NESW"), "points": {"NS": ns, "EW": 162 - ns}}


def save_hands(folder: Path, n: int) -> tuple[list[float], list[float], list[float]]:
    """Times to enter a hand and to confirm it (each one durable transaction), interleaved with
    one 4 KiB write + fsync appended to a file on the same disk, so both see the same disk."""
    store, _ = open_store(folder / "save.db", folder / "backups")
    table = Table(store, rng=random.Random(1))
    rng = random.Random(2)
    game = table.new_game(["A", "B"], first_dealer="N")
    raw, entered, confirmed = [], [], []
    block = os.urandom(4096)
    fd = os.open(folder / "fsync.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for _ in range(n):
            start = time.perf_counter()
            os.write(fd, block)
            os.fsync(fd)
            raw.append(time.perf_counter() - start)
            if game.status != "open":
                game = table.new_game(["A", "B"], first_dealer="N")
            start = time.perf_counter()
            table.enter_hand(game.id, quick_hand(rng))
            mid = time.perf_counter()
            game = table.confirm(game.id)
            confirmed.append(time.perf_counter() - mid)
            entered.append(mid - start)
    finally:
        os.close(fd)
        store.close()
    return raw, entered, confirmed


def generate(path: Path, games: int) -> None:
    """A database of finished games, written in bulk from a few played templates."""
    tmp = path.with_suffix(".tmp")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    store, _ = open_store(tmp, tmp.parent / "backups")
    table = Table(store, rng=random.Random(3))
    rng = random.Random(4)
    templates = []
    for _ in range(20):
        g = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
        while g.status == "open":
            g = table.add_hand(g.id, quick_hand(rng))
        templates.append((store.events(g.id), rows_of(g)))
    store.close()
    Path(tmp).unlink()
    for suffix in ("-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    store = Store(tmp)
    conn = store.conn
    conn.execute("PRAGMA synchronous = OFF")  # bulk generation only; the kiosk never does this
    conn.execute("BEGIN")
    for gid in range(1, games + 1):
        events, rows = templates[gid % len(templates)]
        token = secrets.token_urlsafe(12)
        payloads = [{**e.payload, "token": token} if e.seq == 1 else e.payload for e in events]
        conn.executemany(
            "INSERT INTO events (game, seq, at, kind, payload, action_id, source) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(gid, e.seq, e.at, e.kind, json.dumps(p), None, e.source) for e, p in zip(events, payloads, strict=True)],
        )
        game = {
            **rows["game"],
            "id": gid,
            "token": token,
            "updated_at": f"2026-{1 + gid % 12:02d}-{1 + gid % 28:02d}T{gid % 24:02d}:00:00.000+00:00",
        }
        store.db["games"].insert(game)
        store.db["hands"].insert_all([{**h, "game": gid} for h in rows["hands"]])
        if gid % 5000 == 0:
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    store.close()
    os.replace(tmp, path)


def open_sheet_list(path: Path, n: int) -> list[float]:
    """Open the database, resume the current game with its sheet, and list the recent games."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        store = Store(path)
        table = Table(store)
        game = table.open_game() or table.game(store.games(1)[0]["id"])
        rows = store.sheet_rows(game.id)
        recent = table.games(50)
        times.append(time.perf_counter() - start)
        assert rows and recent
        store.close()
    return times


def main() -> None:
    print("Clabber store benchmarks (medians)")
    with tempfile.TemporaryDirectory(dir=BENCH_DIR.parent) as tmp:
        folder = Path(tmp)
        raw, entered, confirmed = save_hands(folder, 500)
        print(f"4 KiB write + fsync                      {median_ms(raw):7.2f} ms")
        print(f"enter a hand (one durable transaction)   {median_ms(entered):7.2f} ms")
        print(
            f"confirm a hand (one durable transaction) {median_ms(confirmed):7.2f} ms"
            f"   ratio to fsync {median_ms(confirmed) / median_ms(raw):.2f}x (target <= 2x)"
        )
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    big = BENCH_DIR / "games-100000.db"
    if not big.exists():
        start = time.perf_counter()
        generate(big, 100_000)
        print(f"(generated {big} in {time.perf_counter() - start:.0f} s, {big.stat().st_size / 1e6:.0f} MB)")
    t = open_sheet_list(big, 30)
    print(f"open + current sheet + game list, 100,000 games {median_ms(t):7.2f} ms (target <= 100 ms)")
    start = time.perf_counter()
    store, _ = open_store(big, BENCH_DIR / "backups")
    print(f"open_store with its start-up check, 100,000 games {(time.perf_counter() - start) * 1000:7.0f} ms")
    store.close()
    mid = BENCH_DIR / "games-5000.db"
    if not mid.exists():
        generate(mid, 5000)
    store = Store(mid)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        n = store.rebuild(project)
        times.append(time.perf_counter() - start)
    per_game = statistics.median(times) / n * 1000
    print(
        f"full rebuild of the derived tables, {n} games {statistics.median(times):7.2f} s"
        f"   ({per_game:.2f} ms a game; 100,000 games ~ {per_game * 100:.0f} s)"
    )
    store.close()


if __name__ == "__main__":
    main()
