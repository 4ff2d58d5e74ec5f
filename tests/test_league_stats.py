"""The league's statistics on SQLite and PostgreSQL: a small season against figures worked out by hand,
rulings, corrections, all seasons together, the rebuild and the migration that fill the kiosk games'
figures, the pages; and a large generated season against a brute-force recount from the events."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import asdict
from fractions import Fraction

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from starlette.testclient import TestClient

from engine.record import read_hand
from engine.rules import parse_rules
from engine.scoring import score_hand
from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.pages import make_app
from league.results.stats import league_stats, season_stats
from league.store import events as ev
from league.store.core import Store
from league.store.kiosks import kiosk_events, kiosk_games
from league.store.migrate import downgrade, upgrade
from league.store.stats import game_figures, sum_teams, team_figures
from shared.cli import cli
from shared.stats import COUNTED
from tests.league_pages_helpers import HOSTILE, table_rows
from tests.league_stats_helpers import (
    GAME_1,
    GAME_1_PLAYERS,
    PIN,
    PLAYERS,
    TEAMS,
    figures,
    generated_season,
    meeting_of,
    small_season,
)
from tests.store_helpers import open_table


@pytest.fixture
def season(league_db, tmp_path):
    store = Store(league_db)
    yield {**small_season(store, tmp_path), "store": store, "db": league_db, "tmp": tmp_path}
    store.close()


def _teams(stats) -> dict[str, dict[str, int]]:
    return {x.name: asdict(x.figures) for x in stats.teams}


def _players(stats) -> dict[tuple[str, str], dict[str, int]]:
    return {(x.name, x.team): asdict(x.figures) for x in stats.players}


def _rows(store) -> list[tuple]:
    with store.read() as r:
        return sorted(tuple(x) for x in r.conn.execute(sa.select(game_figures)))


def test_a_small_season_gives_the_figures_worked_by_hand(season):
    _, stats = season_stats(season["store"], season["season"])
    assert _teams(stats) == TEAMS
    # The names typed "bob" and "ANN" at the second table are the team's Bob and Ann.
    assert _players(stats) == PLAYERS
    aces = next(x.figures for x in stats.teams if x.name == "Aces")
    assert (aces.make_rate, aces.average, aces.win_rate) == (Fraction(3, 5), Fraction(1168, 10), 1)


def test_a_ruling_counts_as_ruled_and_a_game_ruled_abandoned_counts_for_nobody(season):
    org, store = season["org"], season["store"]
    with store.read() as r:
        first, second = (g["id"] for g in r.division_games(season["division"]) if g["kiosk_id"] is not None)
        aces_are_a = r.meeting(r.game(first)["meeting_id"])["team_a"] == season["teams"]["Aces"]
    org.rule_game(first, "b" if aces_are_a else "a", "Aces reneged: proven afterwards")  # Kings win game 1
    org.rule_game(second, None, "played with a short deck")
    _, stats = season_stats(store, season["season"])
    teams, players = _teams(stats), _players(stats)
    # Aces keep game 1's hands (now lost), lose game 2 altogether; Kings won both their games.
    assert teams["Aces"] == figures(1, 0, 0, 6, 3, 2, 1, 1, 552, 262, 1, 1, 1, 0, 1, 1, 1)
    assert (teams["Kings"]["games"], teams["Kings"]["won"], teams["Kings"]["hands"]) == (2, 2, 6)
    assert (teams["Queens"]["games"], teams["Queens"]["hands"]) == (1, 0)  # game 3, by hand
    assert players[("Cy", "Kings")]["won"] == 1 and players[("Ann", "Aces")]["won"] == 0
    assert ("Gus", "Queens") not in players and players[("Bob", "Aces")]["games"] == 1


def test_a_correction_after_the_end_changes_the_figures(league_db, tmp_path):
    """Game 1 alone; after it is over the owner corrects its fifth hand: Bob had a dad (20)."""
    store = Store(league_db)
    org = Organiser(store)
    league = org.create_league("One night")
    venue = org.add_venue(league, "Germania")
    season, division = org.create_season(league, "Winter")
    aces, kings = (org.add_team(division, n, p) for n, p in (("Aces", ["Ann", "Bob"]), ("Kings", ["Cy", "Di"])))
    org.make_schedule(division, "2026-01-06")
    kiosks = Kiosks(store)
    kiosk = kiosks.kiosk_for_key(kiosks.enrol(kiosks.make_code(venue, 1))["key"])
    table = open_table(tmp_path / "kiosk.db", night="2026-01-06")
    table.set_pin(PIN)
    g = table.new_game(["Aces", "Kings"], GAME_1_PLAYERS, first_dealer="N")
    for h in GAME_1:
        g = table.add_hand(g.id, h)

    def push() -> None:
        events = [{k: v for k, v in asdict(e).items() if k != "game"} for e in table.store.events(g.id)]
        body = {"game": g.id, "meeting": meeting_of(store, division, aces, kings), "events": events}
        kiosks.push(kiosk, {"games": [{**body, "sides": {"NS": aces, "EW": kings}}]})

    push()
    #                                  G  W  T  hands mk made XX XX'd points best mules 100s 50s dads bells ren p/o
    game_1 = figures(1, 1, 0, 6, 3, 2, 1, 1, 552, 262, 1, 1, 1, 0, 1, 1, 1)
    assert _teams(season_stats(store, season)[1])["Aces"] == game_1
    fifth = {"dealer": "W", "trump": "C", "maker": "N", "points": {"NS": 100, "EW": 62}}
    table.correct(g.id, 5, {**fifth, "melds": {"S": [["AS", "KS", "QS"]]}}, "Bob's dad was left out", PIN)
    push()
    table.close()
    _, stats = season_stats(store, season)
    assert _teams(stats)["Aces"] == game_1 | {"points": 572, "dads": 1}
    assert _players(stats)[("Bob", "Aces")]["dads"] == 1 and _players(stats)[("Ann", "Aces")]["dads"] == 0
    store.close()


def test_the_page_lists_who_qualifies_sorted_by_the_figure_asked_for(season):
    client = TestClient(make_app(season["store"]))
    page = client.get(f"/seasons/{season['season']}/stats")
    assert page.status_code == 200
    # Nobody has played 3 games yet: the page lists those with the most games played (2: every team
    # but Jacks, whose meeting was forfeited), saying the rule it used and who is left out.
    assert "at least 2 games" in page.text and "1 more with fewer than 2 games." in page.text
    assert {r[1] for r in table_rows(page.text) if r[1] in ("Aces", "Kings", "Queens", "Jacks")} >= {"Aces", "Queens"}
    page = client.get(f"/seasons/{season['season']}/stats?min=3")
    assert "at least 3 games" in page.text and "No teams with 3 games or more yet." in page.text
    assert "4 more with fewer than 3 games." in page.text
    page = client.get(f"/seasons/{season['season']}/stats?sort=sets_taken&min=1")
    rows = table_rows(page.text)
    trump = rows[rows.index(["#", "Team", "Trump", "Made", "Made%", "XX ▼", "XX'd", "P/O"]) + 1 :][:3]
    assert trump == [
        ["1", "Aces", "5", "3", "60%", "2", "3", "1"],
        ["1", "Queens", "2", "0", "0%", "2", "1", "0"],
        ["3", "Kings", "2", "1", "50%", "1", "1", "0"],
    ]
    assert "1 more with fewer than 1 game." in page.text  # Jacks: a forfeit is not a game played
    games = rows[rows.index(["#", "Player", "G", "W", "W%", "Hands", "Pts", "Best"]) + 1 :][:6]
    # Set most: Bob twice; Cy, Gus and Hal once (level, by name); Ann and Di never.
    assert [(r[0], r[1]) for r in games] == [
        ("1", "Bob Aces"),
        ("2", "Cy Kings"),
        ("2", "Gus Queens"),
        ("2", "Hal Queens"),
        ("5", "Ann Aces"),
        ("5", "Di Kings"),
    ]
    assert games[2] == ["2", "Gus Queens", "1", "0", "0%", "4", "37.5", "110"]
    # Each heading sorts by its figure; an unknown figure or minimum falls back to the defaults.
    assert 'href="?sort=average&amp;min=1#teams"' in page.text
    page = client.get(f"/seasons/{season['season']}/stats?sort=average&min=1")
    rows = table_rows(page.text)
    averages = rows[rows.index(["#", "Team", "G", "W", "W%", "Hands", "Pts ▼", "Best"]) + 1 :][:3]
    assert [(r[1], r[6]) for r in averages] == [("Aces", "116.8"), ("Kings", "81.0"), ("Queens", "37.5")]
    page = client.get(f"/seasons/{season['season']}/stats?sort=drop+table&min=lots")
    assert "Sorted by games won (a tie counts half)" in page.text and "at least 2 games" in page.text
    assert client.get("/seasons/99/stats").status_code == 404
    assert client.get("/leagues/99/stats").status_code == 404
    season_page = client.get(f"/seasons/{season['season']}").text
    assert f'href="/seasons/{season["season"]}/stats"' in season_page


def test_every_season_of_a_league_together_by_name(season):
    store = season["store"]
    second = small_season(store, season["tmp"], "Summer 2026", league=season["league"])
    _, stats = league_stats(store, season["league"])
    doubled = {k: {f: v * 2 if f != "biggest" else v for f, v in x.items()} for k, x in TEAMS.items()}
    assert _teams(stats) == doubled
    assert _players(stats)[("Ann", "Aces")]["games"] == 4 and len(stats.players) == len(PLAYERS)
    assert all(x.link == "" for x in stats.teams)  # a name over several seasons has no one team page
    _, one = season_stats(store, second["season"])
    assert _teams(one) == TEAMS
    page = TestClient(make_app(store)).get(f"/leagues/{season['league']}/stats?min=4")
    rows = table_rows(page.text)
    assert ["1", "Aces", "4", "4", "100%", "20", "116.8", "342"] in rows
    assert "Tuesday nights: every season" in page.text


def test_hostile_names_are_shown_as_text(league_db, tmp_path):
    store = Store(league_db)
    w = small_season(store, tmp_path)
    with store.write() as wr:  # a name typed at a table is anyone's input too
        wr.conn.execute(sa.update(team_figures).where(team_figures.c.player == "Cy").values(player=HOSTILE[:40]))
    page = TestClient(make_app(store)).get(f"/seasons/{w['season']}/stats?min=1").text
    assert "<script>" not in page and "&lt;script&gt;" in page
    store.close()


def test_rebuild_writes_the_figures_again_from_the_events(season):
    store, db = season["store"], season["db"]
    before = _rows(store)
    assert len(before) == 2 * 2 + 2 * 4  # two kiosk games: their two teams and four players each
    with store.write() as w:
        w.conn.execute(sa.delete(game_figures))
    result = CliRunner().invoke(cli, ["league", "--db", db, "rebuild"])
    assert result.exit_code == 0 and result.stdout.endswith("events replayed; 2 kiosk games' figures written\n")
    assert _rows(store) == before
    store.rebuild()  # the log alone leaves the figures as they are
    assert _rows(store) == before


def test_the_migration_fills_the_figures_of_games_already_played(season):
    store = season["store"]
    before = _rows(store)
    with store.engine.begin() as conn:
        downgrade(conn, "0005")
    with store.engine.begin() as conn:
        assert "game_figures" not in sa.inspect(conn).get_table_names()
        upgrade(conn)
    assert _rows(store) == before


# ---- a large season against a brute-force recount ------------------------------------------------------


def _meld_kind(cards: list[str]) -> str:
    ranks = {c[:-1] for c in cards}
    if len(cards) == 4 and len(ranks) == 1:
        return "mules" if ranks == {"J"} else "hundreds"
    return {3: "dads", 4: "fifties"}.get(len(cards), "hundreds")


def _sheet(events: list[dict]) -> tuple[dict, list[dict]]:
    """A kiosk game's start and its hands on the sheet: undone actions left out, corrections in place."""
    undone = {e["payload"]["undoes"] for e in events if e["kind"] == "undone"}
    records: list[dict] = []
    pending = None
    for e in events:
        if e["seq"] in undone:
            continue
        if e["kind"] == "hand_entered":
            pending = e["payload"]["record"]
        elif e["kind"] == "hand_confirmed":
            records.append(pending)
        elif e["kind"] == "hand_corrected":
            records[e["payload"]["hand"] - 1] = e["payload"]["record"]
    return events[0]["payload"], records


def recount(store: Store, season: int, sides: dict[int, dict[str, int]]) -> tuple[dict, dict]:
    """Every team's and player's figures counted again from the events alone: the league's log for the
    games and their results (the last one written, unless ruled), the kiosks' events for the hands
    (undone ones left out, corrections in place), the engine to score each hand."""
    with store.read() as r:
        log = r.events()
        q = sa.select(kiosk_events.c.game, kiosk_events.c.seq, kiosk_events.c.event)
        raw = sorted(tuple(x) for x in r.conn.execute(q.where(kiosk_events.c.quarantined.is_(None))))
        bound = dict(tuple(x) for x in r.conn.execute(sa.select(kiosk_games.c.game, kiosk_games.c.league_game)))
    divisions = {e.payload["division"] for e in log if e.kind == ev.DIVISION_ADDED and e.payload["season"] == season}
    rosters = {
        e.payload["team"]: e.payload for e in log if e.kind == ev.TEAM_ADDED and e.payload["division"] in divisions
    }
    meetings = {
        m["meeting"]: (m["a"], m["b"])
        for e in log
        if e.kind == ev.SCHEDULE_MADE and e.payload["division"] in divisions
        for rnd in e.payload["rounds"]
        for m in rnd["meetings"]
    }
    result: dict[int, str | None] = {}
    meeting_of_game: dict[int, int] = {}
    ruled: set[int] = set()
    for e in log:
        p = e.payload
        if e.kind in (ev.GAME_RECORDED, ev.GAME_PLAYED) and p["game"] not in ruled:
            result[p["game"]], meeting_of_game[p["game"]] = p["outcome"], p["meeting"]
        elif e.kind == ev.GAME_RULED:
            result[p["game"]] = p["outcome"]
            ruled.add(p["game"])
    counted = {g: o for g, o in result.items() if o is not None and meeting_of_game[g] in meetings}
    count: dict = defaultdict(Counter)
    biggest: dict = defaultdict(int)
    spelled: dict[tuple[str, str], Counter] = defaultdict(Counter)  # each player's spellings, by games
    for game, outcome in counted.items():
        a, b = meetings[meeting_of_game[game]]
        for t, mine in ((a, "a"), (b, "b")):
            count[t].update(games=1, won=outcome == mine, tied=outcome == "tie")
    events_of: dict[int, list[dict]] = defaultdict(list)
    for game, _seq, text in raw:
        events_of[game].append(json.loads(text))
    for kgame, events in events_of.items():
        outcome = counted.get(bound[kgame])
        if outcome is None:
            continue
        a = meetings[meeting_of_game[bound[kgame]]][0]
        start, records = _sheet(events)
        rules = parse_rules(start["rules"])
        team_at = {s: sides[kgame]["NS" if s in "NS" else "EW"] for s in "NESW"}
        who: dict[str, tuple[str, str]] = {}
        for s in "NESW":  # N before S, E before W: a name at both seats of a team counts for the first
            typed = (start.get("players") or {}).get(s)
            if typed:
                roster = rosters[team_at[s]]
                known = [n for n in roster["players"] + roster["substitutes"] if n.lower() == typed.lower()]
                name = known[0] if known else typed
                key = (name.lower(), roster["name"])  # a name in another case is the same player
                if key not in who.values():
                    who[s] = key
                    spelled[key][name] += 1
        for key in who.values():
            mine = "a" if rosters[a]["name"] == key[1] else "b"
            count[key].update(games=1, won=outcome == mine, tied=outcome == "tie")
        for record in records:
            hand = read_hand(record, in_game=True, rules=rules).hand
            score = score_hand(hand, rules)
            makers = None if score.makers is None else ("NS", "EW")[score.makers]
            reneges = [] if score.passed_out or score.misdeal else hand.reneges()
            bell = record.get("bell")
            if bell is None and "hands" in record and hand.trump is not None:
                k, q = "K" + "CDHS"[hand.trump], "Q" + "CDHS"[hand.trump]
                bell = next((s for s, cards in record["hands"].items() if k in cards and q in cards), None)
            for s in "NESW":
                team = "NS" if s in "NS" else "EW"
                mine = score.score[0 if team == "NS" else 1]
                lines = [(team_at[s], makers == team, any(r.team == (team == "EW") for r in reneges))]
                if s in who:
                    seat_reneged = any(r.seat is not None and "NESW"[r.seat] == s for r in reneges)
                    lines.append((who[s], hand.maker is not None and "NESW"[hand.maker] == s, seat_reneged))
                for i, (key, named_trump, reneged) in enumerate(lines):
                    c = count[key]
                    c.update(pass_outs=score.passed_out and record["dealer"] == s, bells=bell == s)
                    c.update(_meld_kind(cards) for cards in (record.get("melds") or {}).get(s, []))
                    if i == 0 and s in "SW":
                        continue  # a team's hand counts once, with its first seat
                    c.update(hands=1, points=mine, reneges=reneged)
                    c.update(sets_given=score.set and makers not in (None, team))
                    if named_trump and not score.void:
                        c.update(makers=1, made=mine > 0, sets_taken=score.set)
                    biggest[key] = max(biggest[key], mine)

    def line(key) -> dict[str, int]:
        return {f: int(count[key][f]) for f in COUNTED} | {"biggest": biggest[key]}

    def shown(key: tuple[str, str]) -> tuple[str, str]:
        """As the league shows a player: the spelling of most of their games, the first if level."""
        _, name = min((-n, name) for name, n in spelled[key].items())
        return name, key[1]

    teams = {rosters[t]["name"]: line(t) for t in rosters}
    players = {shown(k): line(k) for k in count if isinstance(k, tuple)}
    return teams, players


@pytest.mark.slow
def test_a_large_generated_season_matches_a_brute_force_recount_from_the_events(league_db, tmp_path):
    store = Store(league_db)
    w = generated_season(store, tmp_path, seed=18)  # a season with a name typed in two cases at one team
    teams, players = recount(store, w["season"], w["sides"])
    _, stats = season_stats(store, w["season"])
    assert _teams(stats) == teams
    assert _players(stats) == players
    # The season has what the figures are about: reneges, pass-outs, every meld, a ruled game.
    total = Counter()
    for x in teams.values():
        total.update(x)
    assert all(total[f] > 0 for f in ("reneges", "pass_outs", "mules", "hundreds", "fifties", "dads", "bells"))
    with store.read() as r:
        games = r.division_games(w["division"])
    assert any(g["outcome"] is None and g["kiosk_id"] for g in games) and any(g["kiosk_id"] is None for g in games)
    # The sums the pushes added to, game by game, are those summed again from every game at once.
    added = _sums(store)
    with store.write() as w:
        sum_teams(w.conn)
    assert added == _sums(store)
    store.close()


def _sums(store) -> list[tuple]:
    with store.read() as r:
        return sorted(tuple(x) for x in r.conn.execute(sa.select(team_figures)))
