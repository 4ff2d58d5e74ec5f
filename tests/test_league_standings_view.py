"""The standings pages' figures against hand-worked ones: which tie-breaker decided each place and the
notes that say so, each team's form, the race round by round, a team's points and its players' make
rate from a game played at a kiosk; and the charts as served: SVG without scripts, under a policy
that allows its own style only."""

from __future__ import annotations

import base64
import hashlib
import re
from fractions import Fraction

from starlette.testclient import TestClient

from league.ingest.kiosks import Kiosks
from league.organiser.standings import Result, standings
from league.pages import make_app
from league.results.history import Played, form, race
from league.results.standings_view import halves, make_rates, notes, team_games
from league.store.core import Store
from tests.league_kiosk_helpers import NIGHT, league_with_schedule
from tests.store_helpers import open_table
from tests.test_league_standings import BY_DIFFERENCE, BY_HEAD_TO_HEAD, BY_POINTS, DEFAULT, NAMES, _won


def test_each_place_says_which_tie_breaker_decided_it():
    got = standings({t: NAMES[t] for t in (1, 2, 3)}, BY_POINTS, "games_won", DEFAULT)
    assert [x.decided_by for x in got] == [None, "game_points", "game_points"]
    assert notes(got) == ["X above Y on game points (231 to 221).", "Y above Z on game points (221 to 211)."]
    got = standings({t: NAMES[t] for t in (1, 2, 3, 4)}, BY_DIFFERENCE, "games_won", DEFAULT)
    assert [(x.name, x.decided_by) for x in got] == [
        ("X", None),
        ("Y", "point_difference"),
        ("Z", "point_difference"),
        ("W", None),  # fewer games won: the ranking itself, no tie-breaker
    ]
    assert notes(got)[0] == "X above Y on point difference (+71 to +61)."
    got = standings(NAMES, BY_HEAD_TO_HEAD, "games_won", DEFAULT)
    assert [(x.name, x.decided_by, x.head_to_head) for x in got] == [
        ("W", None, None),
        ("X", None, Fraction(2)),  # X beat Y and Z, Y beat Z: among the three only
        ("Y", "head_to_head", Fraction(1)),
        ("Z", "head_to_head", Fraction(0)),
        ("V", None, None),
    ]
    assert notes(got) == [
        "X above Y on head to head (2 to 1 among the teams level).",
        "Y above Z on head to head (1 to 0 among the teams level).",
    ]
    # Level on everything: a shared place, and no note.
    got = standings({t: NAMES[t] for t in (1, 2, 3)}, BY_POINTS, "games_won", ("head_to_head",))
    assert [x.position for x in got] == [1, 1, 1] and notes(got) == []
    # Ranked by game points, games won as a tie-breaker.
    tied = [Result(1, 2, 100, 100, "tie"), _won(3, 1, 100, 50), _won(2, 3, 50, 100)]
    got = standings({t: NAMES[t] for t in (1, 2, 3)}, tied, "game_points", ("games_won",))
    assert [(x.name, x.points_for, halves(x.wins), x.decided_by) for x in got] == [
        ("Z", 200, "1", None),  # the ranking: most points
        ("Y", 150, "1½", None),  # Y and X level on points: Y won a game and tied one, X only tied
        ("X", 150, "½", "games_won"),
    ]
    assert notes(got) == ["Y above X on games won (1½ to ½)."]


def test_form_is_the_last_five_results_newest_last_and_the_race_is_the_table_after_each_round():
    history = [Played(n, f"2026-01-{n:02}", n, 1, r) for n, r in enumerate(BY_HEAD_TO_HEAD, 1)]
    # X: beat Y (1), beat Z (2), lost to V (4), lost to W (5): four games.
    assert form(history, 1) == ["W", "W", "L", "L"]
    # W: lost to nobody until round 7 (beat X 5, beat Y 7), lost to Z (9), beat V (10).
    assert form(history, 4) == ["W", "W", "L", "W"]
    longer = [
        *history,
        Played(11, "2026-01-11", 11, 1, Result(4, 1, 100, 100, "tie")),
        Played(12, "2026-01-12", 12, 1, Result(4, 2, 0, 0, None)),  # abandoned: nobody's
    ]
    assert form(longer, 4) == ["W", "W", "L", "W", "T"]
    assert form(longer, 1) == ["W", "W", "L", "L", "T"]
    run = race(history[:3], {t: NAMES[t] for t in (1, 2, 3)}, "games_won", DEFAULT)
    # Round 1: X beat Y (Y has 100 points, Z none). Round 2: X beat Z, who has 100 points now too:
    # Y and Z level on everything (they have not met) share second. Round 3: Y beat Z.
    assert run["rounds"] == [1, 2, 3]
    assert run["positions"] == {1: [1, 1, 1], 2: [2, 2, 2], 3: [3, 2, 3]}
    assert run["wins"][2] == [0, 0, 1]


def _nobody_set_but_south(folder):
    """A kiosk game to 500 with team 1 at NS: N makes five hands good (112 each), S is set once."""
    made = {"trump": "D", "maker": "N", "points": {"NS": 112, "EW": 50}}
    set_ = {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}}
    table = open_table(folder / "kiosk.db", night=NIGHT)
    g = table.new_game(["Team 1", "Team 2"], ["Ann", "Eve", "Sam", "Wes"], first_dealer="N")
    for hand in (made, made, made, set_, made, made):
        g = table.add_hand(g.id, hand)
    assert g.status == "over" and g.sheet.totals == (560, 81 + 5 * 50)
    events = []
    for e in table.store.events(g.id):
        d = e.__dict__.copy()
        d.pop("game")
        events.append(d)
    table.close()
    return events


def test_a_teams_points_and_make_rate_from_a_game_played_at_a_kiosk(league_db, tmp_path):
    store = Store(league_db)
    world = league_with_schedule(store)
    venue = world["venues"][0]
    kiosks = Kiosks(store)
    key = kiosks.enrol(kiosks.make_code(venue, 1))["key"]
    meeting = world["meeting_at"][venue]
    with store.read() as r:
        m = r.meeting(meeting)
    sides = {"NS": m["team_a"], "EW": m["team_b"]}
    body = {"games": [{"game": 1, "meeting": meeting, "sides": sides, "events": _nobody_set_but_south(tmp_path)}]}
    assert (
        kiosks.push(kiosks.kiosk_for_key(key), body)["games"][0]["stored"] == 13
    )  # started, six hands entered and confirmed
    with store.read() as r:
        games = team_games(r, m["team_a"])
        rates = make_rates(r, m["team_a"])
        theirs = make_rates(r, m["team_b"])
    assert [(g["label"], g["scored"], g["conceded"]) for g in games] == [("R1", 560, 331)]
    assert rates["labels"] == ["R1"] and rates["rates"] == {"Ann": [100.0], "Sam": [0.0]}
    assert rates["counts"] == {"Ann": (5, 5), "Sam": (0, 1)}
    assert theirs == {"labels": ["R1"], "rates": {}, "counts": {}}  # EW never made trump
    client = TestClient(make_app(store))
    page = client.get(f"/teams/{m['team_a']}").text
    assert "Ann made 5 of 5; Sam made 0 of 1." in page
    assert f'<img class="chart" src="/teams/{m["team_a"]}/makes.svg"' in page
    team, division = m["team_a"], world["division"]
    for path in (f"/teams/{team}/points.svg", f"/teams/{team}/makes.svg", f"/divisions/{division}/race.svg"):
        chart = client.get(path)
        assert chart.status_code == 200 and chart.headers["content-type"] == "image/svg+xml", path
        assert "<script" not in chart.text and "javascript" not in chart.text.lower(), path
        # The chart's own policy: nothing but its one style block, by that block's hash.
        style = re.search(r"<style[^>]*>(.*?)</style>", chart.text, re.S)
        assert style is not None
        text = style.group(1).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        policy = f"default-src 'none'; frame-ancestors 'none'; style-src 'sha256-{digest}'"
        assert chart.headers["content-security-policy"] == policy
    # The pages that show charts allow this site's images, and nothing more than the others.
    assert client.get(f"/teams/{m['team_a']}").headers["content-security-policy"].endswith("; img-src 'self'")
    assert "img-src" not in client.get(f"/divisions/{world['division']}/schedule").headers["content-security-policy"]
    assert client.get("/teams/999/points.svg").status_code == 404
    assert client.get("/divisions/999/race.svg").status_code == 404
    store.close()
