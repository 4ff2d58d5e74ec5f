"""The kiosk driven by simulated touches through whole games, on a real database file."""

from __future__ import annotations

import random

import pytest

from engine.deal import draw_for_dealer
from engine.seats import E, N
from tests.records import RENEGE
from tests.ui.flows import quick_hand, start_game


@pytest.fixture
def kiosk(kiosk_at_both_sizes):
    """Every flow here at both panel sizes."""
    return kiosk_at_both_sizes


def test_a_new_game_opens_the_sheet_with_the_teams_and_the_deal(kiosk):
    start_game(kiosk)
    assert kiosk.root.manager.current == "sheet"
    for shown, name in ((kiosk.text("ns_name"), "Ruminers"), (kiosk.text("ew_name"), "Mackeys")):
        assert shown == name or (shown.endswith("…") and name.startswith(shown[:-1]) and len(shown) > 4), shown
    assert kiosk.root.header.dealer == "N" and kiosk.text("status") == "N deals hand 1."
    g = kiosk.table.open_game()
    assert g.teams == {"NS": "Ruminers", "EW": "Mackeys"} and g.dealer == N


def test_team_names_are_required_and_said_next_to_the_field(kiosk):
    kiosk.tap("new_game")
    kiosk.tap("first_N")
    kiosk.tap("start")
    assert kiosk.text("notes") == "Give team NS a name." and kiosk.screen.step == "names"


def test_the_jack_draw_is_dealt_on_screen(kiosk):
    start_game(kiosk, first=None)
    g = kiosk.table.open_game()
    assert g.draw and kiosk.root.manager.current == "sheet" and kiosk.root.header.dealer == "NESW"[g.first_dealer]


def test_a_typical_quick_entry_hand_takes_at_most_8_taps(kiosk):
    start_game(kiosk)
    kiosk.taps = 0
    quick_hand(kiosk, "E", "H", "92", melds=(("N", "dad · 20"),))  # EW's 92 (E's team), N's dad A-K-Q of trump
    assert kiosk.taps <= 8, kiosk.taps
    g = kiosk.table.open_game()
    # N's dad of trump A-K-Q is dad and bell: 40 for NS, so EW (92) are set by NS (70 + 40).
    assert g.sheet.totals == (110, 0) and kiosk.text("ns_total") == "110"
    assert kiosk.widget("rows").data[-1]["ew"] == "XX"


def test_five_quick_hands_with_a_set_and_a_renege(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS")  # EW 92 made
    quick_hand(kiosk, "S", "S", "81", team="NS")  # 81-81: NS set
    quick_hand(kiosk, "S", "C", "130", team="NS", melds=(("W", "fifty · 50"),))  # EW 32 + fifty and bell 70
    quick_hand(kiosk, "W", "D", "50", team="NS", renege=("EW", "table talk"))
    quick_hand(kiosk, "N", "S", "90", team="NS")
    g = kiosk.table.open_game()
    rows = kiosk.widget("rows").data
    assert [r["ns"] for r in rows] == ["70", "XX", "130", "162", "90"]
    assert [r["ew"] for r in rows] == ["92", "81", "102", "-", "72"]
    assert "renege EW" in rows[3]["note"]
    assert g.sheet.totals == (452, 347) and kiosk.text("ns_total") == "452" and kiosk.text("ew_total") == "347"
    assert kiosk.root.header.dealer == "E" and g.dealer == E


def test_an_impossible_entry_is_refused_in_the_strip_with_its_field_outlined(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("trump_H")
    kiosk.tap_exact("1")
    kiosk.tap("done")
    assert kiosk.root.manager.current == "quick"
    assert kiosk.text("strip") == "No hand ends 161 to 1: check the points"
    assert kiosk.widget("points_box").faulty and not kiosk.widget("maker_E").faulty
    kiosk.tap_exact("0")
    kiosk.tap("done")
    assert kiosk.root.manager.current == "summary"


def test_the_summary_says_made_or_set_before_the_other_team_confirms(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "S", "S", "81", team="NS", confirm=False)
    assert "NS set (XX)" in kiosk.text("headline") and kiosk.text("ns") == "0" and kiosk.text("ew") == "81"
    assert kiosk.text("confirm") == "EW: confirm ✓"
    kiosk.tap("change")
    assert kiosk.root.manager.current == "quick" and kiosk.screen.entry.points == "81"
    kiosk.tap("done")
    kiosk.tap("confirm")
    assert kiosk.table.open_game().sheet.totals == (0, 81)


def test_a_double_tap_on_confirm_saves_the_hand_once(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS", confirm=False)
    confirm = kiosk.widget("confirm")
    kiosk.screen.confirm()  # the first registration
    kiosk.manager_screen = kiosk.root.manager.get_screen("summary")
    kiosk.manager_screen.confirm()  # the same tap registered again
    g = kiosk.table.open_game()
    assert len(g.hands) == 1 and confirm is not None


def to_the_proving_card(kiosk):
    """Card by card up to E's 10 of trump, which proves E reneged on trick 2."""
    start_game(kiosk)
    kiosk.tap("card_by_card")
    kiosk.tap("maker_E")
    kiosk.tap("trump_H")
    for name in RENEGE[:9]:
        kiosk.tap(f"card_{name}")
    kiosk.tap("card_TH")


def test_card_by_card_with_a_renege_shown_and_recorded(kiosk):
    start_game(kiosk)
    kiosk.tap("card_by_card")
    kiosk.tap("maker_E")
    kiosk.tap("trump_H")
    assert kiosk.text("turn") == "E (EW) to play"
    for name in RENEGE[:9]:
        kiosk.tap(f"card_{name}")
    assert "Trick 3" in kiosk.text("trick") and kiosk.text("so_far") == "So far NS 74 · EW 0"
    kiosk.tap("card_TH")  # E plays the 10 of trump he held when he threw a club on trick 2
    assert "renege by E" in kiosk.text("question") and "must trump, holding 10♥" in kiosk.text("question")
    kiosk.tap("yes")
    assert kiosk.text("turn") == "Renege by EW: play ends."
    kiosk.tap("done")
    assert "Renege by EW" in kiosk.text("headline")
    kiosk.tap("confirm")
    g = kiosk.table.open_game()
    assert g.sheet.totals == (162, 0)  # play ended before S's Q of trump showed a bell
    assert g.hands[0].record["plays"][:10] == RENEGE[:10]


def test_a_wrong_card_can_be_refused_at_the_renege_question(kiosk):
    to_the_proving_card(kiosk)
    kiosk.tap("no")
    assert len(kiosk.table.open_game().draft["plays"]) == 9 and not kiosk.widget("card_TH").disabled


def test_undo_is_one_tap_and_takes_back_the_deal_move_too(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("deal_next")
    assert kiosk.root.header.dealer == "S"
    kiosk.tap("undo")
    assert kiosk.root.header.dealer == "E"
    kiosk.tap("undo")
    assert kiosk.table.open_game().pending is not None and kiosk.text("enter_hand") == "Confirm hand"


def test_an_owner_correction_needs_the_pin_and_a_reason(kiosk):
    kiosk.table.set_pin("246813")
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("owner")
    for d in "111111":
        kiosk.tap_exact(d)
    kiosk.tap("unlock")
    assert kiosk.text("notes") == "Wrong PIN" and kiosk.screen.step == "pin"
    for d in "246813":
        kiosk.tap_exact(d)
    kiosk.tap("unlock")
    kiosk.tap("correct")
    assert kiosk.text("hand_1") == "1 N: NS 70, EW 92"  # each hand with its dealer and scores, each named
    kiosk.tap("hand_1")
    assert kiosk.root.manager.current == "quick" and kiosk.screen.entry.points == "92"
    kiosk.tap_exact("C")
    type_digits = "62"
    for d in type_digits:
        kiosk.tap_exact(d)
    kiosk.tap("done")
    kiosk.tap_exact("points entered wrong")
    g = kiosk.table.open_game()
    # EW named trump and took 62: set.
    assert g.sheet.totals == (100, 0) and g.hands[0].corrections[0].reason == "points entered wrong"
    assert kiosk.root.manager.current == "sheet" and kiosk.text("ns_total") == "100"


def test_restart_resumes_the_game_and_the_half_entered_hand(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("play_S")
    kiosk.tap("trump_C")
    kiosk.restart()
    assert kiosk.root.manager.current == "sheet" and kiosk.text("ns_total") == "70"
    assert kiosk.text("enter_hand") == "Continue hand" and "♣[/color]" in kiosk.root.header.trump
    kiosk.tap("enter_hand")
    assert kiosk.screen.entry.maker == "S" and kiosk.screen.entry.trump == "C"


def test_game_over_shows_the_winner_and_the_final_sheet(kiosk):
    start_game(kiosk)
    for maker in ("N", "E", "S", "W"):
        quick_hand(kiosk, maker, "S", "162", team="NS")
    assert kiosk.root.manager.current == "over"
    assert kiosk.text("headline") == "Ruminers win 648 – 0"
    assert len(kiosk.widget("rows").data) == 4
    kiosk.tap("new_game")
    assert kiosk.root.manager.current == "start"


def test_replay_steps_through_a_hand_with_its_renege(kiosk):
    to_the_proving_card(kiosk)
    kiosk.tap("yes")
    kiosk.tap("done")
    kiosk.tap("confirm")
    kiosk.tap("replay")
    assert "RENEGE by EW in trick 2" in kiosk.text("banner")
    kiosk.tap("next_trick")
    kiosk.tap("next_trick")
    assert "Trick 2: N leads" in kiosk.screen.body and "must trump, holding 10♥" in kiosk.screen.body
    kiosk.tap("prev_trick")
    assert "Trick 1: E leads" in kiosk.screen.body


def test_replay_of_a_quick_hand_shows_its_entry_and_trail(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("replay")
    body = kiosk.screen.body
    assert "Entered quickly" in body and "entered" in body and "confirmed" in body and E == 1


def test_a_damaged_database_notice_is_shown_at_start_and_in_the_owner_menu(tmp_path):
    from tests.ui.harness import Kiosk

    k = Kiosk(tmp_path / "clabber.db", check_layout=True)
    try:
        k.table.store.add_notice("The database was damaged (test). It was moved to /x.")
        k.restart()
        assert "database was damaged" in k.text("notice_summary") and k.text("notes") == ""
        k.table.set_pin("246813")
        start_game(k)
        k.tap("owner")
        assert "database was damaged" in k.text("notice_summary")
    finally:
        k.close()


def test_the_first_touch_after_dimming_wakes_the_screen_and_works_its_control(kiosk):
    start_game(kiosk)
    kiosk.root.dim_after = 600
    kiosk.root.dim()
    assert kiosk.root.dimmer.level > 0
    kiosk.tap("deal_next")  # wakes the screen and moves the deal: no tap is lost
    assert kiosk.root.dimmer.level == 0 and kiosk.table.open_game().dealer == E


def test_meld_chips_show_their_worth(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("trump_H")
    kiosk.tap(kiosk.widget("meldrow_S").ids.add)
    kiosk.tap_exact("fifty · 50")
    chips = [w.text for w in kiosk.widget("melds_S").children]
    assert any("fifty A" in t and "· 50" in t for t in chips)


def _seed_where(gap):
    """A seed whose Jack draw puts the second Jack ``gap`` seats clockwise of the first."""
    for seed in range(1000):
        d = draw_for_dealer(random.Random(seed))
        if (d.second - d.first) % 4 == gap:
            return seed
    raise AssertionError(f"no seed puts the second Jack {gap} seats on")


@pytest.mark.parametrize("gap", [1, 2, 3])
def test_the_draw_names_the_right_change_of_seats(kiosk, gap):
    seed = _seed_where(gap)
    kiosk.table.rng = random.Random(seed)
    kiosk.tap("new_game")
    kiosk.tap("draw")
    d = draw_for_dealer(random.Random(seed))
    lines = kiosk.text("draw_text").splitlines()
    first, second, partner = "NESW"[d.first], "NESW"[d.second], "NESW"[(d.first + 2) % 4]
    assert lines[4] == f"{first} got the first Jack and deals first."
    if gap == 2:
        assert lines[5] == f"{second} got the second Jack and already sits opposite {first}."
    else:
        assert lines[5] == f"{second} got the second Jack: {second} and {partner} change seats."
    # The first Jack is the last card its holder got; the second Jack is the last card of the draw.
    cards = {line[0]: line.split(": ", 1)[1].split() for line in lines[:4]}
    assert cards[first][-1].startswith("J") and cards[second][-1].startswith("J")
    assert sum(c.startswith("J") for c in cards[first]) == 1
