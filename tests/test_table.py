"""The table controller: every action on a game, through a real SQLite file."""

from __future__ import annotations

import random

import pytest

from engine.deal import draw_for_dealer
from engine.seats import E, N, S, W
from kiosk.projection import project
from shared.game_state import ActionRefused
from tests.store_helpers import QUICK_HANDS, event_count, open_table, reopen


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    yield t
    t.store.close()


def game_with(table, hands, **kw):
    g = table.new_game(["Ruminers", "Mackeys"], first_dealer="N", **kw)
    for h in hands:
        g = table.add_hand(g.id, h)
    return g


def test_start_a_game_with_teams_players_and_first_dealer(table):
    g = table.new_game(["Ruminers", "Mackeys"], ["Ron", "Elbert", "Carolyn", "Walter"], "pagat", "S")
    assert (g.teams, g.players["W"], g.dealer, g.status) == ({"NS": "Ruminers", "EW": "Mackeys"}, "Walter", S, "open")
    assert g.rules.pass_out_deal == "next" and len(g.token) >= 16


def test_the_jack_draw_picks_the_first_dealer_from_the_random_source(table):
    g = table.new_game(["A", "B"])
    expected = draw_for_dealer(random.Random(1))
    assert g.first_dealer == expected.first and len(g.draw) == len(expected.cards)


def test_the_rules_are_frozen_into_the_game(table):
    g = table.new_game(["A", "B"], rules={"target": 300, "tie_at_target": "play_on"}, first_dealer="N")
    started = table.store.events(g.id)[0]
    assert started.payload["rules"] == {
        "pass_out_deal": "same",
        "target": 300,
        "both_reach_target": "higher",
        "tie_at_target": "play_on",
    }


@pytest.mark.parametrize(
    ("teams", "why"), [(["A"], "two team names"), (["A", " "], "team EW needs a name"), (["A" * 41, "B"], "longer")]
)
def test_bad_team_names_are_refused(table, teams, why):
    with pytest.raises(ActionRefused, match=why):
        table.new_game(teams)
    assert event_count(table.store) == 0


def test_an_entered_hand_waits_for_the_other_team(table):
    g = table.new_game(["A", "B"], first_dealer="N")
    g = table.enter_hand(g.id, QUICK_HANDS[0], by="EW")
    assert g.pending is not None and g.hands == [] and g.sheet.totals == (0, 0)
    with pytest.raises(ActionRefused, match="EW entered this hand: the other team confirms it"):
        table.confirm(g.id, by="EW")
    g = table.confirm(g.id, by="NS")
    assert g.sheet.totals == (70, 92) and g.dealer == E and g.pending is None


def test_a_hand_the_engine_refuses_is_not_stored(table):
    g = table.new_game(["A", "B"], first_dealer="N")
    before = event_count(table.store)
    with pytest.raises(ActionRefused) as e:
        table.enter_hand(g.id, {"trump": "H", "maker": "E", "points": {"NS": 1, "EW": 161}})
    assert "points.NS" in e.value.problems[0] and event_count(table.store) == before


def test_the_same_action_delivered_twice_is_stored_once(table):
    g = table.new_game(["A", "B"], first_dealer="N", action_id="start-1")
    assert table.new_game(["A", "B"], first_dealer="N", action_id="start-1").id == g.id
    table.enter_hand(g.id, QUICK_HANDS[0], action_id="tap-7")
    table.enter_hand(g.id, QUICK_HANDS[0], action_id="tap-7")  # the double tap
    table.confirm(g.id, action_id="tap-8")
    g = table.confirm(g.id, action_id="tap-8")
    assert len(g.hands) == 1 and event_count(table.store) == 3


def test_a_half_entered_hand_survives_a_restart(table):
    g = table.new_game(["A", "B"], first_dealer="W")
    table.save_draft(g.id, {"up": "9H", "bids": ["pass", "play"], "plays": ["AH", "KH"]})
    again = reopen(table)
    resumed = again.open_game()
    assert resumed.draft == {"dealer": "W", "up": "9H", "bids": ["pass", "play"], "plays": ["AH", "KH"]}
    again.store.close()


def test_resume_after_restart_exactly_where_it_was(table):
    g = game_with(table, QUICK_HANDS[:2])
    table.move_deal(g.id, "next")
    table.enter_hand(g.id, {**QUICK_HANDS[2], "dealer": "W"}, by="EW")
    before = table.game(g.id)
    again = reopen(table)
    after = again.open_game()
    assert (after.id, after.sheet, after.dealer, after.pending.record) == (
        before.id,
        before.sheet,
        before.dealer,
        before.pending.record,
    )
    again.store.close()


def test_undo_takes_back_the_last_action_moving_the_deal_included(table):
    g = game_with(table, QUICK_HANDS[:1])
    assert g.dealer == E
    g = table.move_deal(g.id, "back")
    assert g.dealer == N and g.rules_dealer == E
    g = table.undo(g.id)
    assert g.dealer == E
    g = table.undo(g.id)  # the confirmation
    assert g.hands == [] and g.pending is not None
    g = table.undo(g.id)  # the entry
    assert g.pending is None and g.dealer == N
    with pytest.raises(ActionRefused, match="nothing to undo"):
        table.undo(g.id)


def test_a_moved_deal_is_recorded_beside_what_the_rules_said(table):
    g = game_with(table, QUICK_HANDS[:1])
    table.move_deal(g.id, "next")
    g = table.add_hand(g.id, QUICK_HANDS[1])
    row = g.sheet.rows[1]
    assert (row.dealer, row.rules_dealer) == (S, E)


def test_corrections_need_the_pin_and_a_reason_and_keep_the_original(table):
    g = game_with(table, QUICK_HANDS[:2])
    fixed = {"trump": "H", "maker": "E", "points": {"NS": 60, "EW": 102}}
    with pytest.raises(ActionRefused, match="no owner PIN"):
        table.correct(g.id, 1, fixed, "typo", "739146")
    table.set_pin("739146")
    with pytest.raises(ActionRefused, match="wrong PIN"):
        table.correct(g.id, 1, fixed, "typo", "641937")
    with pytest.raises(ActionRefused, match="needs a reason"):
        table.correct(g.id, 1, fixed, " ", "739146")
    g = table.correct(g.id, 1, fixed, "NS counted wrong", "739146")
    assert g.sheet.totals == (60, 102 + 81) and g.hands[0].trail()[-1]["reason"] == "NS counted wrong"
    kinds = [e.kind for e in table.store.events(g.id)]
    assert kinds.count("hand_entered") == 2 and kinds[-1] == "hand_corrected"
    assert table.store.events(g.id)[1].payload["record"]["points"] == {"NS": 70, "EW": 92}  # the original
    with pytest.raises(ActionRefused, match="nothing to undo"):
        table.undo(g.id)  # a correction is not taken back by a tap


def test_a_correction_that_would_end_the_game_earlier_is_refused(table):
    g = game_with(table, QUICK_HANDS[:2], rules={"target": 300})
    table.set_pin("739146")
    big = {"trump": "H", "maker": "E", "points": {"NS": 0, "EW": 162}, "melds": {"E": [["JC", "JD", "JH", "JS"]]}}
    with pytest.raises(ActionRefused, match="cannot stand"):
        table.correct(g.id, 1, big, "typo", "739146")


def test_the_game_ends_at_the_target_and_takes_no_more_hands(table):
    g = game_with(table, QUICK_HANDS[:3], rules={"target": 480})
    assert g.status == "over" and g.winner == "EW" and g.sheet.totals == (70 + 0 + 40, 92 + 81 + 322)
    with pytest.raises(ActionRefused, match="game is over"):
        table.add_hand(g.id, QUICK_HANDS[0])
    g = table.undo(g.id)
    assert g.status == "open"  # a wrong last hand can still be taken back


def test_finish_and_abandon(table):
    g = game_with(table, QUICK_HANDS[:1])
    table.set_pin("246813")
    with pytest.raises(ActionRefused, match="say why"):
        table.abandon(g.id, "", "246813")
    g = table.abandon(g.id, "bar closed", "246813")
    assert g.status == "abandoned" and table.open_game() is None
    with pytest.raises(ActionRefused, match="abandoned"):
        table.add_hand(g.id, QUICK_HANDS[1])
    h = table.new_game(["C", "D"], first_dealer="E")
    assert table.finish(h.id).status == "finished"


def test_the_game_list_is_newest_first(table):
    a = game_with(table, QUICK_HANDS[:1])
    b = game_with(table, [])
    assert [r["id"] for r in table.games()] == [b.id, a.id]


def test_export_import_export_is_identical(table, tmp_path):
    g = game_with(table, QUICK_HANDS[:3], rules="pagat")
    table.move_deal(g.id, "next")
    g = table.add_hand(g.id, QUICK_HANDS[3])
    record = table.export(g.id)
    fresh = open_table(tmp_path / "fresh.db")
    imported = fresh.import_game(record)
    assert fresh.export(imported.id) == record
    assert imported.sheet == g.sheet
    fresh.store.close()


def test_an_invalid_import_stores_nothing(table):
    bad = {
        "format": "clabber-game/1",
        "teams": {"NS": "A", "EW": "B"},
        "hands": [{"dealer": "N", "trump": "H", "maker": "E", "points": {"NS": 70, "EW": 90}}],
    }
    with pytest.raises(ActionRefused, match=r"hands\[0\].points"):
        table.import_game(bad)
    assert event_count(table.store) == 0


def test_derived_tables_match_a_rebuild_from_the_log(table):
    g = game_with(table, QUICK_HANDS[:3])
    table.undo(g.id)
    table.undo(g.id)
    table.save_draft(g.id, {"trump": "S"})
    assert table.store.derived_matches(project)
    rows = table.store.sheet_rows(g.id)
    assert [(r["score_ns"], r["score_ew"], r["mark_ns"]) for r in rows] == [(70, 92, ""), (0, 81, "XX")]


def test_an_unknown_game_is_refused(table):
    with pytest.raises(ActionRefused, match="there is no game 42"):
        table.undo(42)


def test_seats_and_deal_moves_wrap_around(table):
    g = table.new_game(["A", "B"], first_dealer="W")
    assert table.move_deal(g.id, "next").dealer == N
    assert table.move_deal(g.id, "back").dealer == W
    with pytest.raises(ActionRefused, match="next or back"):
        table.move_deal(g.id, "sideways")


def test_a_renege_called_mid_hand_ends_it_for_the_reneging_team_to_confirm(table):
    g = table.new_game(["A", "B"], first_dealer="N")
    table.save_draft(g.id, {"trump": "S", "maker": "E", "melds": {"N": [["AH", "KH", "QH"]]}})
    g = table.call_renege(g.id, "EW", "advised partner", seat="W")
    assert g.pending.by == "NS" and g.pending.record["renege"]["seat"] == "W"
    with pytest.raises(ActionRefused, match="the other team confirms"):
        table.confirm(g.id, by="NS")
    g = table.confirm(g.id, by="EW")
    assert g.sheet.totals == (162 + 20, 0) and g.sheet.rows[0].score.renege.reason == "advised partner"
