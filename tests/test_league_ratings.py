"""Players' ratings: every counted game rates who sat (a kiosk game's seats, a game by hand its
teams' players), a name typed in another case is the same player, a ruling that flips a game moves
all four players, and ``clabber league ratings`` prints the table and its JSON."""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from markupsafe import escape

from league.organiser.ratings import RatedGame, league_ratings, rate
from league.store.core import Store
from league.store.stats import game_figures
from shared.cli import cli
from tests.league_stats_helpers import small_season


@pytest.fixture
def season(league_db, tmp_path):
    store = Store(league_db)
    yield {**small_season(store, tmp_path), "store": store, "db": league_db}
    store.close()


def _table(season):
    _, rated = league_ratings(season["store"], season["league"])
    return {x.name: x for x in rated.table()}


def test_every_counted_game_rates_the_players_who_sat(season):
    """Aces (Ann, Bob) won both their kiosk games, typed "bob" and "ANN" in the second; Kings (Cy, Di)
    lost one and won the game recorded by hand against Queens (Gus, Hal), who lost both."""
    table = _table(season)
    assert set(table) == {"Ann", "Bob", "Cy", "Di", "Gus", "Hal"}
    assert [(table[n].games, table[n].won) for n in ("Ann", "Bob", "Cy", "Di", "Gus", "Hal")] == [
        (2, 2),
        (2, 2),
        (2, 1),
        (2, 1),
        (2, 0),
        (2, 0),
    ]
    assert min(table["Ann"].mu, table["Bob"].mu) > max(table["Cy"].mu, table["Di"].mu)
    assert min(table["Cy"].mu, table["Di"].mu) > max(table["Gus"].mu, table["Hal"].mu)
    assert all(x.low < x.mu < x.high and len(x.history) == x.games for x in table.values())


def test_a_ruling_that_flips_a_game_moves_both_teams_players(season):
    before = _table(season)
    season["org"].rule_game(season["game3"], "b" if _kings_are_a(season) else "a", "the score was entered wrongly")
    after = _table(season)
    assert after["Cy"].mu < before["Cy"].mu and after["Di"].mu < before["Di"].mu
    assert after["Gus"].mu > before["Gus"].mu and after["Hal"].mu > before["Hal"].mu
    assert (after["Cy"].won, after["Gus"].won) == (0, 1)


def _kings_are_a(season) -> bool:
    with season["store"].read() as r:
        game = r.game(season["game3"])
        assert game is not None
        meeting = r.meeting(game["meeting_id"])
        assert meeting is not None
        return meeting["team_a"] == season["teams"]["Kings"]


def test_a_tie_moves_nobody_who_was_level_and_a_side_with_nobody_known_rates_nobody():
    level = rate([RatedGame("2026-01-06", (["A", "B"], ["C", "D"]), "tie")])
    assert len({round(x.mu, 9) for x in level.table()}) == 1
    blind = rate([RatedGame("2026-01-06", (["A", "B"], ["", " "]), "a")])
    assert blind.table() == []
    twice = rate([RatedGame("2026-01-06", (["Ann", "ann"], ["C", "D"]), "a")])  # one name in two spellings
    assert {x.name: (x.games, x.won) for x in twice.table()} == {"Ann": (1, 1), "C": (1, 0), "D": (1, 0)}


def test_the_command_prints_the_table_and_its_json(season):
    args = ["league", "--db", season["db"], "ratings", str(season["league"])]
    said = CliRunner().invoke(cli, args)
    assert said.exit_code == 0, said.output
    lines = said.stdout.splitlines()
    assert lines[0].split() == ["rank", "player", "rating", "range", "games", "won"]
    assert {line.split()[1] for line in lines[1:3]} == {"Ann", "Bob"}
    out = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert [x["rank"] for x in out] == list(range(1, 7))
    assert {x["name"]: (x["games"], x["won"]) for x in out}["Gus"] == (2, 0)
    refused = CliRunner().invoke(cli, ["league", "--db", season["db"], "ratings", "99"])
    assert refused.exit_code == 2 and "there is no league 99" in refused.stderr


def test_the_ratings_page_lists_the_players_best_first(season):
    from starlette.testclient import TestClient

    from league.pages import make_app
    from tests.league_pages_helpers import HOSTILE

    with season["store"].write() as w:  # a name anyone typed, shown as text
        w.conn.execute(sa.update(game_figures).where(game_figures.c.player == "Gus").values(player=HOSTILE))
    client = TestClient(make_app(season["store"]))
    html = client.get(f"/leagues/{season['league']}/ratings").text
    rows = re.findall(r'<tr><td>(\d+)</td><td><a href="[^"]*">([^<]*)</a></td>', html)
    assert [n for _, n in rows[:2]] in (["Ann", "Bob"], ["Bob", "Ann"]) and len(rows) == 7
    assert HOSTILE not in html and escape(HOSTILE) in html
    assert client.get("/leagues/99/ratings").status_code == 404
    assert f'href="/leagues/{season["league"]}/ratings"' in client.get("/").text


def test_a_meeting_still_to_play_shows_each_teams_chance_by_its_players_ratings(season):
    from starlette.testclient import TestClient

    from league.organiser.ratings import league_ratings
    from league.pages import make_app

    client = TestClient(make_app(season["store"]))
    html = client.get(f"/divisions/{season['division']}/schedule").text
    # Jacks, unrated (a new player is 25), meet Queens (Gus, Hal), who lost both their games.
    said = re.findall(r"by the players' ratings: ([^<]*?) (\d+) %, ([^<]*?) (\d+) %", html)
    assert said, "no chance shown for a meeting still to play"
    _, rated = league_ratings(season["store"], season["league"])
    for a, pa, b, pb in said:
        assert int(pa) + int(pb) in (99, 100, 101)
        players = {"Aces": ["Ann", "Bob"], "Kings": ["Cy", "Di"], "Queens": ["Gus", "Hal"], "Jacks": ["Ike", "Jo"]}
        assert int(pa) == round(100 * rated.chance(players[a], players[b]))
    shares = {a: int(pa) for a, pa, b, _ in said if {a, b} == {"Queens", "Jacks"}}
    shares |= {b: int(pb) for a, _, b, pb in said if {a, b} == {"Queens", "Jacks"}}
    assert shares["Jacks"] > 50 > shares["Queens"]
    # A game counted since: the next page reads the ratings again.
    season["org"].rule_game(season["game3"], "tie", "a draw, said the referee")
    assert client.get(f"/divisions/{season['division']}/schedule").text != html


def test_no_chance_is_said_between_players_nobody_has_rated():
    assert not rate([]).knows(["Ike", "Jo"], ["Gus", "Hal"])
    assert rate([RatedGame("2026-01-06", (["Gus", "Hal"], ["A", "B"]), "b")]).knows(["Ike", "Jo"], ["Gus", "Hal"])


def test_a_players_page_says_their_partners_and_their_rating_game_by_game(season):
    from urllib.parse import quote

    from starlette.testclient import TestClient

    from league.pages import make_app

    client = TestClient(make_app(season["store"]))
    ratings = client.get(f"/leagues/{season['league']}/ratings").text
    link = re.search(r'href="(/leagues/\d+/players/[^"]+)">Ann<', ratings)
    assert link is not None
    page = client.get(link.group(1)).text
    assert "<h1>Ann</h1>" in page and "after 2 games, 2 won" in page
    partners = re.findall(r"<tr><td>\d+</td><td>([^<]+)</td><td>(\d+)</td><td>(\d+)</td></tr>", page)
    assert partners == [("Bob", "2", "2")]
    history = re.findall(r"<tr><td>(\d+)</td><td>([\d-]+)</td><td>([\d.]+)</td></tr>", page)
    assert len(history) == 2 and float(history[-1][2]) == round(_table(season)["Ann"].mu, 1)
    assert client.get(f"/leagues/{season['league']}/players/ANN").text == page  # any case: the same player
    assert client.get(f"/leagues/{season['league']}/players/{quote('No/Body', safe='')}").status_code == 404
    assert client.get("/leagues/99/players/ann").status_code == 404


def test_a_merged_player_keeps_one_history():
    games = [
        RatedGame("2026-01-06", (["Bob", "Ann"], ["Cy", "Di"]), "a"),
        RatedGame("2026-01-13", (["Bob K.", "Ann"], ["Cy", "Di"]), "a"),  # the same Bob, typed otherwise
    ]
    apart = {x.name: x.games for x in rate(games).table()}
    assert apart["Bob"] == 1 and apart["Bob K."] == 1
    together = rate(games, {"bob k.": ("bob", "Bob")})
    bob = together.player("BOB K.")
    assert bob is not None and bob.name == "Bob" and bob.games == 2 and len(bob.history) == 2
    assert "Bob K." not in {x.name for x in together.table()}
    assert bob.mu == rate([games[0], RatedGame("2026-01-13", (["Bob", "Ann"], ["Cy", "Di"]), "a")]).player("bob").mu


def test_the_organiser_merges_names_from_the_command_line_and_a_circle_is_refused(season):
    args = ["league", "--db", season["db"], "merge", str(season["league"]), "di", "--into", "Robert B."]
    said = CliRunner().invoke(cli, args)
    assert said.exit_code == 0 and "di is rated as Robert B. from now on" in said.stdout
    table = _table(season)
    assert "Di" not in table and table["Robert B."].games == 2  # Di's games, under the organiser's spelling
    refused = CliRunner().invoke(cli, [*args[:5], "robert b.", "--into", "DI"])  # a circle
    assert refused.exit_code == 2 and "one player already" in refused.stderr
    none = CliRunner().invoke(cli, [*args[:4], "99", "x", "--into", "y"])
    assert none.exit_code == 2 and "there is no league 99" in none.stderr
    # One person cannot play against themselves: merged so, the game Aces played Kings rates nobody.
    season["org"].merge_players(season["league"], "Cy", "Bob")
    assert _table(season)["Bob"].games == 2 and "Cy" not in _table(season)


def test_a_season_may_seed_its_playoffs_by_the_players_ratings(season):
    """A spring season of the same league: Queens' players (who lost all winter) beat Aces' players
    (who won all winter) in the one game played, so the standings put Queens first; seeded by the
    ratings, Aces' pair is still the first seed."""
    from tests.league_stats_helpers import meeting_of

    org, league = season["org"], season["league"]
    _, division = org.create_season(league, "Spring 2026", {"seeding": "ratings"})
    ids = {
        name: org.add_team(division, name, players)
        for name, players in (("Aces", ["Ann", "Bob"]), ("Queens", ["Gus", "Hal"]), ("Kings", ["Cy", "Di"]))
    }
    org.make_schedule(division, "2026-03-03")
    meeting = meeting_of(season["store"], division, ids["Queens"], ids["Aces"])
    with season["store"].read() as r:
        m = r.meeting(meeting)
        assert m is not None
        queens_are_a = m["team_a"] == ids["Queens"]
    org.record_game(meeting, *((506, 312, "a") if queens_are_a else (312, 506, "b")))
    assert org.standings(division)[0].team == ids["Queens"]
    org.make_playoffs(division, 2, "2026-04-07", anyway=True)
    with season["store"].read() as r:
        made = r.playoffs(division)
        assert made is not None
        assert json.loads(made["teams"])[:2] == [ids["Aces"], ids["Queens"]]  # the standings said Queens, Aces
    with pytest.raises(Exception, match="seeding: must be one of standings, ratings"):
        org.create_season(league, "Summer", {"seeding": "coin toss"})


def test_the_ratings_page_charts_the_best_players_night_by_night(season):
    import xml.etree.ElementTree as ET

    from starlette.testclient import TestClient

    from league.pages import make_app

    client = TestClient(make_app(season["store"]))
    page = client.get(f"/leagues/{season['league']}/ratings").text
    assert f'src="/leagues/{season["league"]}/ratings.svg"' in page
    svg = client.get(f"/leagues/{season['league']}/ratings.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    text = " ".join(t.strip() for t in ET.fromstring(svg.content).itertext() if t.strip())
    assert all(name in text for name in ("Ann", "Bob", "Gus", "Hal")) and "01-06" in text
    assert b"<script" not in svg.content
    assert client.get("/leagues/99/ratings.svg").status_code == 404


def test_a_table_still_to_start_shows_on_the_board_who_the_ratings_favour(season):
    from starlette.testclient import TestClient

    from league.board.tonight import Board
    from league.pages import make_app
    from tests.league_stats_helpers import meeting_of

    store, teams = season["store"], season["teams"]
    meeting = meeting_of(store, season["division"], teams["Queens"], teams["Jacks"])
    with store.read() as r:
        m = r.meeting(meeting)
        assert m is not None and m["venue_id"] is not None
        night = m["round_date"]
    season["org"].move_meeting(meeting, venue=m["venue_id"], table=2, reason="set at a table")
    shown = Board(store).tonight(m["venue_id"], night)["tables"]
    [table] = [t for t in shown if t["table"] == 2]
    seat = {name: s for s, name in table["teams"].items()}
    assert table["status"] == "waiting" and table["chance"][seat["Jacks"]] > 50 > table["chance"][seat["Queens"]]
    assert all("chance" not in t for t in shown if t["table"] != 2)  # a game begun shows its score instead
    assert all("team_ids" not in t for t in shown)
    html = TestClient(make_app(store)).get(f"/board/{m['venue_id']}?date={night}").text
    assert f"{table['chance'][seat['Jacks']]} %</span>" in html and "to start · chances" in html
