"""Statistics benchmark: a season's statistics page over 20,100 kiosk games (a 201-team division, one
game a meeting, 201 teams and 603 players), on SQLite and on PostgreSQL (at $CLABBER_TEST_PG, when it
answers), as it opens (the first 50 of each leaderboard) and with everyone. Target: ≤ 100 ms.

Run with ``./run bench stats`` (or ``python -m tests.bench.bench_stats``); ``stats_page(url)`` is what
the league's bench calls. Prints medians; asserts nothing.

The season is built cheaply: the teams, the schedule and a few template games go through the library
and the kiosk API as usual; the 20,100 games and their figures are then copied in bulk from the
templates into the tables a push writes (``games``, ``game_figures``), with each meeting's own teams
and players, and the sums written as a rebuild writes them. The page costs what it would after a real
season.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from starlette.testclient import TestClient

from league.organiser.actions import Organiser
from league.organiser.figures import lines_of
from league.pages import make_app
from league.store.core import Store
from league.store.stats import game_figures, sum_teams
from league.store.tables import games
from shared.game_state import GameState
from shared.stats import figures_of
from tests.bench.bench_store import quick_hand
from tests.store_helpers import open_table

TEAMS = 201  # 201 rounds of 100 meetings: 20,100 games
RUNS = 15
TARGET_MS = 100


def templates(folder: Path, n: int = 20) -> list[GameState]:
    """Games played to the target with the table controller, quick entries with melds now and then."""
    rng = random.Random(5)
    table = open_table(folder / "templates.db")
    out = []
    for _ in range(n):
        g = table.new_game(["A", "B"], ["n", "e", "s", "w"], first_dealer="N")
        while g.status == "open":
            hand = quick_hand(rng)
            if rng.random() < 0.3:
                hand["melds"] = {rng.choice("NESW"): [["JC", "JD", "JH", "JS"]]}
            g = table.add_hand(g.id, hand)
        out.append(g)
    table.close()
    return out


def build(url: str, folder: Path) -> int:
    """The season; returns its id."""
    store = Store(url)
    org = Organiser(store)
    league = org.create_league("City league")
    season, division = org.create_season(league, "Winter")
    players = {}
    for i in range(TEAMS):
        names = [f"Player {i}a", f"Player {i}b"]
        players[org.add_team(division, f"Team {i}", names, [f"Sub {i}"])] = [*names, f"Sub {i}"]
    for v in range(10):
        org.add_venue(league, f"Bar {v}", tables=10)
    org.make_schedule(division, "2026-01-06")
    with store.read() as r:
        meetings = [m for m in r.meetings(division) if m["team_b"] is not None]
    played = [figures_of(g) for g in templates(folder)]
    rng = random.Random(6)
    game_rows: list[dict[str, Any]] = []
    figure_rows: list[dict[str, Any]] = []
    for i, m in enumerate(meetings, 1):
        f = played[i % len(played)]
        a, b = m["team_a"], m["team_b"]
        ns_is_a = rng.random() < 0.5
        ns, ew = (a, b) if ns_is_a else (b, a)
        sub = rng.random() < 0.1  # now and then a substitute sits in
        typed = [players[ns][0], players[ew][0], players[ns][2 if sub else 1], players[ew][1]]
        seated = type(f)(f.teams, dict(zip("NESW", typed, strict=True)), f.sides, f.seats)
        totals = (f.sides[0].points, f.sides[1].points)
        winner = "a" if (f.sides[0].won == 1) == ns_is_a else "b"
        pa, pb = totals if ns_is_a else totals[::-1]
        game_rows.append(
            {"id": i, "meeting_id": m["id"], "number": 1, "points_a": pa, "points_b": pb, "outcome": winner}
            | {"kiosk_id": 1, "kiosk_game": i}
        )
        figure_rows += [{**x, "game_id": i} for x in lines_of(seated, ns, ew, {}, "a" if ns_is_a else "b")]
    with store.write() as w:
        for start in range(0, len(game_rows), 5000):
            w.conn.execute(sa.insert(games), game_rows[start : start + 5000])
        for start in range(0, len(figure_rows), 5000):
            w.conn.execute(sa.insert(game_figures), figure_rows[start : start + 5000])
        sum_teams(w.conn)
    if store.dialect == "postgresql":
        with store.engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")
    store.close()
    return season


def stats_page(url: str, season: int, runs: int = RUNS, query: str = "") -> tuple[float, float, int]:
    """The page's median and slowest time in ms (after one warm-up), and its size in bytes."""
    store = Store(url)
    client = TestClient(make_app(store))
    first = client.get(f"/seasons/{season}/stats{query}")
    assert first.status_code == 200, first.text[:500]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        client.get(f"/seasons/{season}/stats{query}")
        times.append(time.perf_counter() - start)
    store.close()
    return statistics.median(times) * 1000, max(times) * 1000, len(first.content)


def _postgres(folder: Path) -> str | None:
    """A schema of its own in the test PostgreSQL, or None when it does not answer."""
    from tests.league_db import PG_URL, _admin

    schema = f"clabber_bench_{random.randrange(16**8):08x}"
    try:
        with _admin().begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except sa.exc.OperationalError:
        return None
    return sa.make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)


def _drop(url: str) -> None:
    from tests.league_db import _admin

    schema = sa.make_url(url).query["options"].split("=")[1]
    with _admin().begin() as conn:
        conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        urls = [("SQLite", str(folder / "league.db"))]
        pg = _postgres(folder)
        if pg is None:
            print("stats page: PostgreSQL does not answer at $CLABBER_TEST_PG; SQLite only")
        else:
            urls.append(("PostgreSQL", pg))
        try:
            for name, url in urls:
                start = time.perf_counter()
                season = build(url, folder / name)
                built = time.perf_counter() - start
                print(f"stats page over {TEAMS * 100:,} games, {name} (built in {built:.0f} s):")
                for what, query in (("the first 50 of each", ""), ("everyone (?all=1)", "?all=1")):
                    median, worst, size = stats_page(url, season, query=query)
                    print(
                        f"  {what:<22} median {median:6.1f} ms   slowest {worst:6.1f} ms   "
                        f"({size // 1024} KiB; target <= {TARGET_MS} ms)"
                    )
        finally:
            if pg is not None:
                _drop(pg)


if __name__ == "__main__":
    main()
