"""The statistics of a game from its folded events (shared/stats.py), worked out by hand; the kiosk's own
tally of its games by the names typed, folded once until a game changes; leaderboards."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from fractions import Fraction

from shared.stats import BY_KEY, Figures, Line, Tally, board, figures_of, minimum_of, sort_key, tally
from tests.helpers import ROOT
from tests.league_stats_helpers import GAME_1, GAME_1_PLAYERS, figures
from tests.store_helpers import open_table

PIN = "246813"


def _game(tmp_path, hands, players=GAME_1_PLAYERS, teams=("Aces", "Kings"), first="N"):
    table = open_table(tmp_path / f"k{len(list(tmp_path.glob('k*.db')))}.db")
    g = table.new_game(list(teams), players, first_dealer=first)
    for h in hands:
        g = table.add_hand(g.id, h)
    return table, g


def test_a_game_by_team_and_by_seat_as_worked_by_hand(tmp_path):
    _, g = _game(tmp_path, GAME_1)
    f = figures_of(g)
    #                      G  W  T  hands mk made XX XX'd points best mules 100s 50s dads bells ren p/o
    assert asdict(f.sides[0]) == figures(1, 1, 0, 6, 3, 2, 1, 1, 552, 262, 1, 1, 1, 0, 1, 1, 1)
    assert asdict(f.sides[1]) == figures(1, 0, 0, 6, 2, 1, 1, 1, 486, 182, 0, 1, 0, 2, 1, 0, 0)
    n, e, s, w = (asdict(x) for x in f.seats)
    assert n == figures(1, 1, 0, 6, 1, 1, 0, 1, 552, 262, 1, 1, 0, 0, 0, 1, 0)  # Ann: the renege is hers
    assert s == figures(1, 1, 0, 6, 2, 1, 1, 1, 552, 262, 0, 0, 1, 0, 1, 0, 1)  # Bob: the pass-out on his deal
    assert e == figures(1, 0, 0, 6, 1, 0, 1, 1, 486, 182, 0, 0, 0, 1, 0, 0, 0)
    assert w == figures(1, 0, 0, 6, 1, 1, 0, 1, 486, 182, 0, 1, 0, 1, 1, 0, 0)
    assert f.teams == {"NS": "Aces", "EW": "Kings"} and f.players["N"] == "Ann"


def test_a_renege_the_cards_prove_and_a_hand_both_teams_reneged(tmp_path):
    record = json.loads((ROOT / "examples" / "hand-renege.json").read_text())
    record = {k: v for k, v in record.items() if k not in ("format", "rules")}
    both = {
        "dealer": "E",
        "trump": "C",
        "maker": "W",
        "points": {"NS": 80, "EW": 82},
        "renege": [{"by": "NS", "reason": "table talk"}, {"by": "EW", "seat": "W", "reason": "exposed a card"}],
    }
    misdeal = {"dealer": "E", "misdeal": "a card shown"}
    _, g = _game(tmp_path, [record, both, misdeal], players=["Ann", "Cy", "Bob", "Di"])
    f = figures_of(g)
    # Hand 1: E made hearts and reneged: NS 162 + N's dad + S's bell = 202, EW nothing (not a set).
    # Hand 2: both reneged: void, no score, no makers; a renege each. Hand 3: a misdeal.
    assert asdict(f.sides[0]) == figures(1, 0, 0, 3, 0, 0, 0, 0, 202, 202, 0, 0, 0, 1, 1, 1, 0)
    assert asdict(f.sides[1]) == figures(1, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
    assert [x.reneges for x in f.seats] == [0, 1, 0, 1]  # E proven, W called by seat; NS's had no seat
    assert (f.seats[0].dads, f.seats[2].bells, f.seats[1].makers, f.seats[3].makers) == (1, 1, 1, 0)


def test_the_kiosk_tally_by_names_typed_folds_each_game_once_until_it_changes(tmp_path):
    table, g1 = _game(tmp_path, GAME_1)
    table.set_pin(PIN)
    g2 = table.new_game(["ACES ", "Queens"], ["ann", None, "Hal", None], first_dealer="N")
    for h in GAME_1:
        g2 = table.add_hand(g2.id, h)
    table.new_game(["Aces", "Open"], first_dealer="N")  # in play: not counted
    _, teams, players = table.statistics()
    by = {x.name: x.figures for x in teams}
    assert set(by) == {"ACES", "Kings", "Queens"}  # shown as last typed
    assert (by["ACES"].games, by["ACES"].won, by["ACES"].points) == (2, 2, 1104)
    named = {(x.name, x.team): x.figures for x in players}
    # "ann" at the second table is Ann, and Hal sits S; seats with no name count for their team only.
    assert set(named) == {("ann", "ACES"), ("Bob", "Aces"), ("Cy", "Kings"), ("Di", "Kings"), ("Hal", "ACES")}
    assert named[("ann", "ACES")].games == 2 and named[("Hal", "ACES")].bells == 1
    folded = table._tally._held[g1.id]
    table.statistics()
    assert table._tally._held[g1.id] is folded  # unchanged: not folded again
    fifth = {"dealer": "W", "trump": "C", "maker": "N", "points": {"NS": 100, "EW": 62}, "bell": "S"}
    table.correct(g1.id, 5, fifth, "the bell was S's", PIN)
    _, teams, players = table.statistics()
    assert {x.name: x.figures for x in teams}["ACES"].bells == 3 and table._tally._held[g1.id] is not folded
    table.abandon(g2.id, "players left", PIN)
    _, teams, _ = table.statistics()
    assert {x.name: x.figures.games for x in teams} == {"Aces": 1, "Kings": 1}


def test_tally_and_the_leaderboard():
    def line(name, **kw):
        return Line(name, Figures(**kw))

    lines = [
        line("Aces", games=4, won=3, tied=1, makers=4, made=3),
        line("kings", games=4, won=3, tied=1, makers=2, made=2),
        line("Queens", games=2, won=2),
        line("Jacks", games=5, won=0, makers=0),
    ]
    b = board(lines, "wins", 3)
    assert [(x.position, x.name) for x in b.lines] == [(1, "Aces"), (1, "kings"), (3, "Jacks")] and b.below == 1
    assert BY_KEY["wins"].shown(b.lines[0].figures) == "3½" and BY_KEY["win_rate"].shown(b.lines[0].figures) == "88%"
    b = board(lines, "make_rate", 1)  # Jacks never made trump: last, shown as a dash
    assert [x.name for x in b.lines] == ["kings", "Aces", "Jacks", "Queens"]
    assert BY_KEY["make_rate"].shown(b.lines[-1].figures) == "–"
    assert [x.name for x in board(lines, "name", 0).lines] == ["Aces", "Jacks", "kings", "Queens"]
    assert sort_key("drop table") == "wins" and sort_key("bells") == "bells"
    assert (minimum_of("5"), minimum_of("-1"), minimum_of("lots"), minimum_of("1000")) == (5, 3, 3, 3)
    summed = Figures(games=1, biggest=120, points=120) + Figures(games=1, biggest=90, points=90)
    assert (summed.games, summed.biggest, summed.points, summed.average) == (2, 120, 210, None)
    assert replace(summed, hands=3).average == Fraction(70)
    assert tally([]) == ([], [])
    assert Tally().lines([]) == ([], [])
