"""The playoffs: brackets worked out by hand, properties of every bracket from 2 to 32 teams, and the
bracket as stored, played, ruled on, rebuilt, served and refused, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from league.organiser.actions import Organiser
from league.organiser.playoffs import Bracket, Side, bracket_order, make_bracket, meeting_winner
from league.organiser.season import LeagueRefused
from league.organiser.standings import Result
from league.pages import make_app
from league.store import kiosks as kiosk_store
from league.store.core import Store
from shared.cli import cli
from tests.league_pages_helpers import HOSTILE

# The round robin's order: each team beats every team after it, so the standings read like this.
STRENGTH = ["Aces", "Kings", "Queens", "Jacks", "Tens", "Nines", "Eights", "Sevens"]


# ---- the bracket, pure -------------------------------------------------------------------------


def _shown(b: Bracket) -> list[tuple[int, str, str]]:
    """Each match as (round, side a, side b): a seed's number, or W and the index of the match it waits for."""

    def side(s: Side) -> str:
        return str(s.seed) if s.seed is not None else f"W{s.winner_of}"

    return [(m.round, side(m.a), side(m.b)) for m in b.matches]


def test_four_teams_one_plays_four_and_two_plays_three_then_the_final():
    b = make_bracket([11, 12, 13, 14], 4)
    assert _shown(b) == [(1, "1", "4"), (1, "2", "3"), (2, "W0", "W1")]
    assert b.byes() == ()


def test_six_teams_the_top_two_have_byes_into_the_semi_finals():
    b = make_bracket([11, 12, 13, 14, 15, 16, 17], 6)  # the seventh team does not make it
    assert _shown(b) == [(1, "4", "5"), (1, "3", "6"), (2, "1", "W0"), (2, "2", "W1"), (3, "W2", "W3")]
    assert b.byes() == (1, 2)
    assert b.teams == (11, 12, 13, 14, 15, 16)


def test_eight_teams_one_and_two_can_meet_only_in_the_final():
    b = make_bracket(list(range(21, 29)), 8)
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert _shown(b) == [
        (1, "1", "8"),
        (1, "4", "5"),
        (1, "2", "7"),
        (1, "3", "6"),
        (2, "W0", "W1"),
        (2, "W2", "W3"),
        (3, "W4", "W5"),
    ]
    assert [(m.next, m.next_side) for m in b.matches] == [
        (4, "a"),
        (4, "b"),
        (5, "a"),
        (5, "b"),
        (6, "a"),
        (6, "b"),
        (None, None),
    ]


def _seeds_below(b: Bracket, side: Side) -> set[int]:
    if side.seed is not None:
        return {side.seed}
    assert side.winner_of is not None
    m = b.matches[side.winner_of]
    return _seeds_below(b, m.a) | _seeds_below(b, m.b)


@given(st.integers(2, 32), st.data())
def test_every_team_plays_until_it_loses_once_and_n_minus_one_matches_find_a_champion(n, data):
    teams = list(range(100, 100 + n))
    b = make_bracket(teams, n)
    size = 1 << (n - 1).bit_length()  # the bracket's size: the next power of two
    assert len(b.matches) == n - 1
    winners: dict[int, int] = {}
    played: dict[int, list[tuple[int, bool]]] = {t: [] for t in teams}  # (round, won) for each match a team plays
    for i, m in enumerate(b.matches):
        a, z = b.entrants(i, winners)
        assert a is not None and z is not None  # both feeders are decided before the match is reached
        winners[i] = data.draw(st.sampled_from([a, z]))
        for t in (a, z):
            played[t].append((m.round, winners[i] == t))
    champion = winners[len(b.matches) - 1]
    for t, matches in played.items():
        assert matches, "every team plays at least once"
        rounds = [r for r, _ in matches]
        assert rounds == list(range(rounds[0], rounds[0] + len(rounds)))  # one match a round, no round missed
        assert rounds[0] == (2 if b.seed_of(t) in b.byes() else 1)
        results = [won for _, won in matches]
        assert all(results[:-1])  # a team that loses plays no more
        assert results[-1] == (t == champion)
    assert b.byes() == tuple(range(1, size - n + 1))  # the top seeds have the byes
    assert all(int(m.a.seed or 0) + int(m.b.seed or 0) == size + 1 for m in b.matches if m.round == 1)
    final = b.matches[-1]
    halves = (_seeds_below(b, final.a), _seeds_below(b, final.b))
    assert (1 in halves[0]) != (1 in halves[1]) and (2 in halves[0]) != (2 in halves[1])
    assert (1 in halves[0]) == (2 in halves[1])  # seeds 1 and 2 are in different halves


@given(st.integers(2, 32))
def test_when_the_higher_seed_always_wins_one_meets_two_in_the_final(n):
    b = make_bracket(list(range(n)), n)
    winners: dict[int, int] = {}
    for i in range(len(b.matches)):
        winners[i] = min(t for t in b.entrants(i, winners) if t is not None)
    assert set(b.entrants(len(b.matches) - 1, winners)) == {0, 1}


def test_a_level_meeting_goes_to_more_game_points_then_to_the_higher_seed():
    seeds = {7: 1, 9: 2}
    split = [Result(7, 9, 121, 100, "a"), Result(7, 9, 110, 121, "b")]  # one game each; 231 points to 221
    assert meeting_winner(7, 9, split, 2, seeds) == 7
    assert meeting_winner(9, 7, [Result(9, 7, 100, 121, "b"), Result(9, 7, 121, 90, "a")], 2, seeds) == 9
    level = [Result(9, 7, 121, 100, "a"), Result(9, 7, 100, 121, "b")]  # 221 points each: the higher seed
    assert meeting_winner(9, 7, level, 2, seeds) == 7
    # A tied game is half each; an abandoned one counts for nobody, its points neither.
    odd = [Result(9, 7, 500, 500, "tie"), Result(9, 7, 300, 20, None)]
    assert meeting_winner(9, 7, odd, 2, seeds) == 7
    assert meeting_winner(9, 7, odd[:1], 2, seeds) is None  # a game still to play
    assert meeting_winner(9, 7, [], 2, seeds, forfeited_by=7) == 9


@pytest.mark.parametrize(("seeded", "n"), [([1, 2, 3], 1), ([1, 2, 3], 33), ([1, 2, 3], 4), ([1, 1, 2], 2)])
def test_an_impossible_bracket_is_refused(seeded, n):
    with pytest.raises(LeagueRefused):
        make_bracket(seeded, n)


# ---- the playoffs, stored ----------------------------------------------------------------------


@pytest.fixture
def store(league_db):
    s = Store(league_db)
    yield s
    s.close()


def _season(org: Organiser, n: int, games_per_meeting: int = 1, tables: int = 4, play: bool = True):
    """A division of the first ``n`` of STRENGTH (added in alphabetical order, so ids are not the seeds),
    its round robin played with every team beating those after it 521-480 in every game."""
    league = org.create_league("Tuesday nights")
    _, division = org.create_season(league, "Winter 2026", {"games_per_meeting": games_per_meeting})
    ids = {name: org.add_team(division, name, [f"{name} 1", f"{name} 2"]) for name in sorted(STRENGTH[:n])}
    org.add_venue(league, "Germania", tables=tables)
    org.add_venue(league, "Corner bar", tables=tables)
    if play:
        org.make_schedule(division, "2026-01-06")
        rank = {ids[name]: i for i, name in enumerate(STRENGTH[:n])}
        for m in _meetings(org, division):
            if m["team_b"] is not None:
                for _ in range(games_per_meeting):
                    a_wins = rank[m["team_a"]] < rank[m["team_b"]]
                    org.record_game(m["id"], *((521, 480, "a") if a_wins else (480, 521, "b")))
    return division, ids


def _meetings(org: Organiser, division: int, stage: str | None = None) -> list[dict]:
    with org.store.read() as r:
        return [m for m in r.meetings(division) if stage is None or m["stage"] == stage]


def _events(org: Organiser) -> int:
    with org.store.read() as r:
        return len(r.events())


def _side(s: dict) -> str:
    return s["name"] if s["team"] is not None else f"W {s['winner_of_label']}"


def _draw(org: Organiser, division: int) -> list[tuple[str, str, str, str | None]]:
    """The bracket as a user reads it: (match, side a, side b, who went through)."""
    view = org.bracket(division)
    return [
        (m["label"], _side(m["a"]), _side(m["b"]), m["winner"]["name"] if m["winner"] else None)
        for r in view["rounds"]
        for m in r["matches"]
    ]


def _play(org: Organiser, division: int, label: str, *games: tuple[int, int, str | None]) -> int:
    """Records a match's games; returns its meeting."""
    match = next(m for r in org.bracket(division)["rounds"] for m in r["matches"] if m["label"] == label)
    assert match["meeting"] is not None, f"{label} has no meeting yet"
    for g in games:
        org.record_game(match["meeting"], *g, "the bar closed" if g[2] is None else None)
    return match["meeting"]


A_WINS, B_WINS = (521, 480, "a"), (480, 521, "b")


def test_eight_teams_are_seeded_from_the_standings_and_the_first_round_is_four_meetings(store):
    org = Organiser(store)
    division, _ = _season(org, 8)
    assert [x.name for x in org.standings(division)] == STRENGTH
    assert org.make_playoffs(division, 8, "2026-03-03") == 3
    assert _draw(org, division) == [
        ("Quarter-final 1", "Aces", "Sevens", None),
        ("Quarter-final 2", "Jacks", "Tens", None),
        ("Quarter-final 3", "Kings", "Eights", None),
        ("Quarter-final 4", "Queens", "Nines", None),
        ("Semi-final 1", "W Quarter-final 1", "W Quarter-final 2", None),
        ("Semi-final 2", "W Quarter-final 3", "W Quarter-final 4", None),
        ("Final", "W Semi-final 1", "W Semi-final 2", None),
    ]
    view = org.bracket(division)
    assert [(r["name"], r["date"]) for r in view["rounds"]] == [
        ("Quarter-finals", "2026-03-03"),
        ("Semi-finals", "2026-03-10"),
        ("Final", "2026-03-17"),
    ]
    assert [t["name"] for t in view["teams"]] == STRENGTH and view["byes"] == []
    playoff = _meetings(org, division, "playoffs")
    assert len(playoff) == 4  # only the matches whose teams are known are meetings yet
    assert sorted(m["venue_id"] for m in playoff) == [1, 1, 2, 2]  # spread over the venues like the schedule
    assert {m["round"] for m in playoff} == {8}  # the round robin had 7 rounds
    with store.read() as r:  # a kiosk at the venue sees tonight's playoff meetings
        tonight = kiosk_store.meetings_on(r.conn, 1, "2026-03-03")
    assert {m["id"] for m in tonight} == {m["id"] for m in playoff if m["venue_id"] == 1}


def test_six_teams_the_top_two_wait_for_their_semi_final_opponents(store):
    org = Organiser(store)
    division, _ = _season(org, 6)
    org.make_playoffs(division, 6, "2026-03-03", every_days=14)
    assert _draw(org, division) == [
        ("Quarter-final 1", "Jacks", "Tens", None),
        ("Quarter-final 2", "Queens", "Nines", None),
        ("Semi-final 1", "Aces", "W Quarter-final 1", None),
        ("Semi-final 2", "Kings", "W Quarter-final 2", None),
        ("Final", "W Semi-final 1", "W Semi-final 2", None),
    ]
    view = org.bracket(division)
    assert [t["name"] for t in view["byes"]] == ["Aces", "Kings"]
    assert [r["date"] for r in view["rounds"]] == ["2026-03-03", "2026-03-17", "2026-03-31"]
    assert len(_meetings(org, division, "playoffs")) == 2


def test_four_teams_advance_by_recorded_games_to_a_champion(store):
    org = Organiser(store)
    division, ids = _season(org, 4, games_per_meeting=3)
    standings = [x.to_json() for x in org.standings(division)]
    org.make_playoffs(division, 4, "2026-03-03")
    assert _draw(org, division)[:2] == [
        ("Semi-final 1", "Aces", "Jacks", None),
        ("Semi-final 2", "Kings", "Queens", None),
    ]
    # Jacks beat Aces two games to one; the final is not a meeting until both semi-finals are decided.
    _play(org, division, "Semi-final 1", B_WINS, A_WINS, B_WINS)
    assert _draw(org, division)[2] == ("Final", "Jacks", "W Semi-final 2", None)
    assert len(_meetings(org, division, "playoffs")) == 2
    semi = _play(org, division, "Semi-final 2", A_WINS, A_WINS)
    assert _draw(org, division)[1][3] is None  # Kings lead two games to none, but a meeting is three games
    org.record_game(semi, 480, 521, "b")
    with pytest.raises(LeagueRefused, match="already has its 3 game"):
        org.record_game(semi, 521, 480, "a")
    assert _draw(org, division) == [
        ("Semi-final 1", "Aces", "Jacks", "Jacks"),
        ("Semi-final 2", "Kings", "Queens", "Kings"),
        ("Final", "Jacks", "Kings", None),
    ]
    final = _meetings(org, division, "playoffs")[-1]
    assert (final["team_a"], final["team_b"], final["round_date"]) == (ids["Jacks"], ids["Kings"], "2026-03-10")
    _play(org, division, "Final", A_WINS, B_WINS, (521, 521, "tie"))  # level on games and points: the higher seed
    view = org.bracket(division)
    assert view["champion"] == {"team": ids["Kings"], "name": "Kings", "seed": 2}
    assert [x.to_json() for x in org.standings(division)] == standings  # playoff games do not count there


def test_a_level_match_goes_to_game_points_then_the_higher_seed(store):
    org = Organiser(store)
    division, _ = _season(org, 4, games_per_meeting=2)
    org.make_playoffs(division, 4, "2026-03-03")
    _play(org, division, "Semi-final 1", (521, 500, "a"), (510, 521, "b"))  # Aces 1031 points, Jacks 1021
    _play(org, division, "Semi-final 2", (490, 521, "b"), (521, 495, "a"))  # Kings 1011 points, Queens 1016
    assert [d[3] for d in _draw(org, division)[:2]] == ["Aces", "Queens"]
    # The final: a tied game and an abandoned one that Aces led: half a game each, the same points.
    _play(org, division, "Final", (500, 500, "tie"), (400, 20, None))
    assert org.bracket(division)["champion"]["name"] == "Aces"


def test_a_ruling_changes_who_went_through_until_the_next_meeting_is_played(store):
    org = Organiser(store)
    division, ids = _season(org, 4)
    org.make_playoffs(division, 4, "2026-03-03")
    first = _play(org, division, "Semi-final 1", A_WINS)
    with store.read() as r:
        game = r.games(first)[0]["id"]
    org.rule_game(game, "b", "the sheet had the teams the wrong way round", points=(480, 521))
    assert _draw(org, division)[2] == ("Final", "Jacks", "W Semi-final 2", None)
    _play(org, division, "Semi-final 2", A_WINS)
    org.rule_game(game, "a", "the first sheet was right after all", points=(521, 480))
    final = _meetings(org, division, "playoffs")[-1]
    assert (final["team_a"], final["team_b"]) == (ids["Aces"], ids["Kings"])  # the meeting changed its team
    org.forfeit(final["id"], ids["Kings"], "a player is ill")
    assert org.bracket(division)["champion"]["name"] == "Aces"
    before = _events(org)
    with pytest.raises(LeagueRefused, match=f"meeting {final['id']}, which has been played already"):
        org.rule_game(game, "b", "changed minds again")
    assert _events(org) == before  # neither the ruling nor an advance is written


def test_another_writer_of_a_game_sends_the_winner_on_with_advance_playoffs(store):
    from league.organiser.actions import advance_playoffs
    from league.store import core as st
    from league.store import events as ev

    org = Organiser(store)
    division, _ = _season(org, 4)
    org.make_playoffs(division, 4, "2026-03-03")
    semi = org.bracket(division)["rounds"][0]["matches"][1]["meeting"]  # Kings v Queens
    round_robin = _meetings(org, division, "round_robin")[0]["id"]
    before = _events(org)
    with store.write() as w:  # as a kiosk's finished game would be written
        game = {"game": w.next_id(st.games), "meeting": semi, "number": 1, "points_a": 90, "points_b": 121}
        w.append(ev.GAME_RECORDED, game | {"outcome": "b"})
        advance_playoffs(w, semi)
        advance_playoffs(w, round_robin)  # a round-robin meeting: nothing to send on
    assert _events(org) == before + 2
    assert _draw(org, division)[1:] == [
        ("Semi-final 2", "Kings", "Queens", "Queens"),
        ("Final", "W Semi-final 1", "Queens", None),
    ]


def test_the_log_rebuilds_the_same_bracket(store):
    org = Organiser(store)
    division, _ = _season(org, 6)
    org.make_playoffs(division, 6, "2026-03-03")
    _play(org, division, "Quarter-final 1", B_WINS)
    _play(org, division, "Quarter-final 2", A_WINS)
    _play(org, division, "Semi-final 1", A_WINS)

    def snapshot():
        with store.read() as r:
            return org.bracket(division), r.playoff_matches(division), r.meetings(division), r.playoffs(division)

    before = snapshot()
    assert store.rebuild() > 0
    assert snapshot() == before
    assert _draw(org, division)[2] == ("Semi-final 1", "Aces", "Tens", "Aces")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda o, d: o.make_playoffs(d, 1, "2026-03-03"), "playoffs: from 2 to 32 teams, not 1"),
        (lambda o, d: o.make_playoffs(d, 33, "2026-03-03"), "playoffs: from 2 to 32 teams, not 33"),
        (lambda o, d: o.make_playoffs(d, 6, "2026-03-03"), "the division has 5 teams, so at most 5 can play"),
        (lambda o, d: o.make_playoffs(d, 4, "3 March"), "playoffs start: '3 March' is not a date"),
        (lambda o, d: o.make_playoffs(d, 4, "2026-03-03", 0), "rounds must be at least one day apart"),
        (lambda o, d: o.make_playoffs(99, 4, "2026-03-03"), "there is no division 99"),
    ],
)
def test_impossible_playoffs_are_refused_and_write_nothing(store, call, message):
    org = Organiser(store)
    division, _ = _season(org, 5)
    before = _events(org)
    with pytest.raises(LeagueRefused) as e:
        call(org, division)
    assert message in str(e.value)
    assert _events(org) == before


def test_playoffs_are_made_once(store):
    org = Organiser(store)
    division, _ = _season(org, 5)
    org.make_playoffs(division, 4, "2026-03-03")
    before = _events(org)
    with pytest.raises(LeagueRefused, match=f"division {division} already has its playoffs"):
        org.make_playoffs(division, 2, "2026-04-03")
    assert _events(org) == before


def test_an_unfinished_round_robin_is_refused_unless_anyway(store):
    org = Organiser(store)
    division, _ = _season(org, 4, play=False)
    with pytest.raises(LeagueRefused, match="has no round robin to seed from"):
        org.make_playoffs(division, 4, "2026-03-03")
    org.make_schedule(division, "2026-01-06")
    first = _meetings(org, division)[0]
    org.record_game(first["id"], 521, 480, "a")
    before = _events(org)
    with pytest.raises(LeagueRefused) as e:
        org.make_playoffs(division, 4, "2026-03-03")
    assert "5 round-robin meeting(s) still to play (the first: meeting 2 on 2026-01-06)" in str(e.value)
    assert "--anyway" in str(e.value)
    assert _events(org) == before
    org.make_playoffs(division, 2, "2026-03-03", anyway=True)  # seeded from the standings as they stand
    assert _draw(org, division) == [("Final", org.standings(division)[0].name, org.standings(division)[1].name, None)]
    assert org.standings(division)[0].team == first["team_a"]


def test_a_first_round_that_needs_more_tables_than_the_venues_have_is_refused(store):
    org = Organiser(store)
    division, _ = _season(org, 8, tables=1, play=False)
    with pytest.raises(LeagueRefused, match="playoffs: a round has 4 meetings but the venues have only 2 tables"):
        org.make_playoffs(division, 8, "2026-03-03", anyway=True)
    assert org.make_playoffs(division, 4, "2026-03-03", anyway=True) == 2


def test_no_bracket_before_the_playoffs(store):
    org = Organiser(store)
    division, _ = _season(org, 4, play=False)
    with pytest.raises(LeagueRefused, match=f"division {division} has no playoffs"):
        org.bracket(division)


# ---- the command line and the page -------------------------------------------------------------


def _run(db: str, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["league", "--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


def test_the_command_line_makes_and_shows_the_playoffs(store, league_db):
    org = Organiser(store)
    division, _ = _season(org, 5)
    assert _run(league_db, "playoffs", str(division), "--teams", "9", "--start", "2026-03-03") == (
        2,
        "",
        "league: playoffs: the division has 5 teams, so at most 5 can play\n",
    )
    assert _run(league_db, "playoffs", str(division), "--teams", "5", "--start", "2026-03-03", "--every", "3") == (
        0,
        "3 rounds\n",
        "",
    )
    _play(org, division, "Quarter-final 1", B_WINS)
    code, out, _ = _run(league_db, "bracket", str(division))  # the round robin had 15 meetings, its byes among them
    assert code == 0
    assert out.splitlines()[:3] == [
        "Quarter-finals  2026-03-03",
        "  Quarter-final 1  2026-03-03  (4) Jacks v (5) Tens at Germania (meeting 16): Tens through",
        "  byes to the next round: (1) Aces, (2) Kings, (3) Queens",
    ]
    assert "  Semi-final 1     2026-03-06  (1) Aces v (5) Tens at " in out
    code, out, _ = _run(league_db, "bracket", str(division), "--json")
    view = json.loads(out)
    assert [r["name"] for r in view["rounds"]] == ["Quarter-finals", "Semi-finals", "Final"]
    assert view["rounds"][0]["matches"][0]["winner"]["name"] == "Tens" and view["champion"] is None


def test_the_playoffs_page_shows_each_round_the_winners_and_the_champion(store):
    org = Organiser(store)
    league = org.create_league("Tuesday nights")
    season, division = org.create_season(league, "Winter 2026")
    for name in ("Aces", HOSTILE, "Queens"):
        org.add_team(division, name, ["P", "Q"])
    org.add_venue(league, "Germania", tables=2)
    client = TestClient(make_app(store))
    assert "/playoffs" not in client.get(f"/seasons/{season}").text
    assert client.get(f"/divisions/{division}/playoffs").status_code == 404
    org.make_playoffs(division, 3, "2026-03-03", anyway=True)  # no games: by name, the hostile one first
    assert f'href="/divisions/{division}/playoffs"' in client.get(f"/seasons/{season}").text
    _play(org, division, "Semi-final 1", (490, 521, "b"))  # Aces (2) v Queens (3)
    page = client.get(f"/divisions/{division}/playoffs")
    assert page.status_code == 200
    text = page.text
    assert "<script>x()" not in text and "&lt;b&gt;Kings&lt;/b&gt;" in text
    assert "<h2>Semi-finals · 2026-03-03</h2>" in text and "<h2>Final · 2026-03-10</h2>" in text
    assert "Game 1: 490–521, Queens won" in text and "Queens goes through" in text
    assert '<strong>✓ <a href="/teams/3">Queens</a> (3)</strong>' in text
    assert 'Byes to the next round: <a href="/teams/2">&lt;b&gt;Kings' in text
    _play(org, division, "Final", (500, 521, "b"))
    text = client.get(f"/divisions/{division}/playoffs").text
    assert 'Champion: <a href="/teams/3">Queens</a>' in text and "Queens wins the playoffs" in text
    schedule = client.get(f"/divisions/{division}/schedule").text
    assert f'<a href="/divisions/{division}/playoffs">playoffs</a>' in schedule


def test_a_database_from_before_the_playoffs_keeps_its_rounds_as_the_round_robin(league_db):
    from league.store.migrate import downgrade, upgrade

    store = Store(league_db)
    org = Organiser(store)
    division, _ = _season(org, 4, play=False)
    with store.engine.begin() as conn:
        downgrade(conn, "0003")
    with store.engine.begin() as conn:
        assert "stage" not in {c["name"] for c in sa.inspect(conn).get_columns("rounds")}
        # A round robin's round and meeting as the store wrote them before: no stage.
        conn.execute(
            sa.text("INSERT INTO rounds (id, division_id, number, date) VALUES (1, :d, 1, '2026-01-06')"),
            {"d": division},
        )
        conn.execute(sa.text("INSERT INTO meetings (id, round_id, team_a, team_b, venue_id) VALUES (1, 1, 1, 2, 1)"))
    with store.engine.begin() as conn:
        upgrade(conn)
    assert [(m["id"], m["stage"]) for m in _meetings(org, division)] == [(1, "round_robin")]
    org.make_playoffs(division, 2, "2026-03-03", anyway=True)
    assert [m["stage"] for m in _meetings(org, division)][-1] == "playoffs"
    store.close()


def test_the_bracket_order_example_holds():
    import doctest

    import league.organiser.playoffs

    assert doctest.testmod(league.organiser.playoffs).failed == 0
