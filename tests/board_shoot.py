"""Draws the docs' pictures of the league's pages: ``python -m tests.board_shoot DIR`` writes
board-1920x1080.png (the venue board on a TV, 12 tables playing round 5), standings-1024.png and
standings-390.png (the season's standings after four rounds and tonight's finished games, with the
race) and team-390.png (a team's page with its charts), from a real ``clabber league serve`` in
Debian's headless Chromium. Every game is played with the kiosk's table controller and pushed as a
kiosk pushes it; the hands come from a seeded random generator, so each run draws the same pages."""

from __future__ import annotations

import datetime as dt
import json
import random
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.store.core import Store
from shared.night import NIGHT_ENDS, TIME_ZONE, league_night
from tests.board_helpers import push_body
from tests.browser import chromium, page_of
from tests.league_server import LeagueServer
from tests.store_helpers import open_table

TEAMS = [
    "Aces High", "Kings Row", "Queen's Men", "Jack Pot", "Tens Over", "Nines", "Deuces Wild", "The Belles",
    "Dad's Army", "Mule Skinners", "Hundred Club", "Fifty-Fifties", "Riverside", "West Side Bells",
    "Main Street", "Haubstadt Hot Shots", "Germania Boys", "Franklin Street", "Jasper Jacks", "Newburgh Nines",
    "Darmstadt Dealers", "Boonville Bidders", "Howell Hands", "Lamasco Legends",
]  # fmt: skip
FIRST = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Joe", "Kay", "Lou"]
SECOND = ["Mae", "Ned", "Opal", "Pat", "Ray", "Sue", "Ted", "Una", "Vic", "Wes", "Yvonne", "Zeke"]
TONIGHT = league_night(dt.datetime.now(dt.UTC), TIME_ZONE, NIGHT_ENDS)  # the board shows the league's night
ROUNDS_PLAYED = 4


def players(i: int) -> list[str]:
    """Two players with a first name and an initial."""
    return [f"{FIRST[i % 12]} {chr(65 + i)}.", f"{SECOND[i % 12]} {chr(88 - i % 24)}."]


def a_hand(rng: random.Random) -> dict[str, Any]:
    """A plausible quick hand: a maker, the trump, and the card points (162 in all), makers good 3 times in 4."""
    maker = rng.choice("NESW")
    made = rng.random() < 0.75
    ours = rng.randint(86, 132) if made else rng.randint(40, 80)
    ns = ours if maker in "NS" else 162 - ours
    return {"trump": rng.choice("HSDC"), "maker": maker, "points": {"NS": ns, "EW": 162 - ns}}


def kiosk_game(
    folder: Path, teams: tuple[str, str], names: list[str], rng: random.Random, hands: int | None
) -> list[dict[str, Any]]:
    """A game at a table: ``hands`` hands, or to the end (None)."""
    table = open_table(folder / f"kiosk-{len(list(folder.glob('kiosk-*.db')))}.db", seed=rng.randint(0, 10**6))
    g = table.new_game(list(teams), names, first_dealer="N")
    played = 0
    while g.status == "open" and (hands is None or played < hands):
        g = table.add_hand(g.id, a_hand(rng))
        played += 1
    out = []
    for e in table.store.events(g.id):
        d = asdict(e)
        d.pop("game")
        out.append(d)
    table.close()
    return out


def season(db: str, folder: Path) -> dict[str, Any]:
    """24 teams at one venue of 12 tables: rounds 1 to 4 played at its kiosks, round 5 tonight."""
    rng = random.Random(17)
    store = Store(db)
    org = Organiser(store)
    league = org.create_league("Evansville Clabber League")
    season_id, division = org.create_season(league, "Winter 2026")
    for i, name in enumerate(TEAMS):
        org.add_team(division, name, players(i))
    venue = org.add_venue(league, "Germania Maennerchor", tables=12)
    org.make_schedule(division, (TONIGHT - dt.timedelta(days=7 * ROUNDS_PLAYED)).isoformat())
    kiosks = Kiosks(store)
    keys = [kiosks.enrol(kiosks.make_code(venue, n))["key"] for n in range(1, 13)]
    with store.read() as r:
        team = {t["id"]: (t["name"], *json.loads(t["players"])) for t in r.teams(division)}
        rounds = {}
        for m in r.meetings(division):
            if m["team_b"] is not None and m["round"] <= ROUNDS_PLAYED + 1:
                rounds.setdefault(m["round"], []).append(m)
    for number, meetings in sorted(rounds.items()):
        for n, m in enumerate(meetings, 1):
            if number == ROUNDS_PLAYED + 1:
                org.move_meeting(m["id"], venue=venue, table=n, reason="tonight's table plan")
            a, b = team[m["team_a"]], team[m["team_b"]]
            names = [a[1], b[1], a[2], b[2]]
            hands = None if number <= ROUNDS_PLAYED or n in (4, 9) else 1 + (n * 5) % 8
            events = kiosk_game(folder, (a[0], b[0]), names, rng, hands)
            kiosk = kiosks.kiosk_for_key(keys[n - 1])
            kiosks.push(kiosk, {"games": [{**push_body(m["id"], events)["games"][0], "game": number}]})
    store.close()
    return {"season": season_id, "division": division, "venue": venue, "team": 1}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "league.db")
        world = season(db, Path(tmp))
        server = LeagueServer(db)
        server.start()
        try:
            with chromium() as browser:
                page = page_of(browser, 1920, 1080)
                page.goto(f"{server.url}/board/{world['venue']}")
                page.wait_for_function("() => window.clabberBoard && window.clabberBoard.updates >= 1")
                page.screenshot(path=str(out / "board-1920x1080.png"))
                for width in (1024, 390):
                    page = page_of(browser, width, 844)
                    page.goto(f"{server.url}/seasons/{world['season']}")
                    page.screenshot(path=str(out / f"standings-{width}.png"), full_page=True)
                page = page_of(browser, 390, 844)
                page.goto(f"{server.url}/teams/{world['team']}")
                page.screenshot(path=str(out / "team-390.png"), full_page=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images"))
