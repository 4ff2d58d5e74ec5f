"""The entry screens as a table uses them: messages in the strip that never cover a control, the
dealer's badge, card by card with melds, a bell and a wrong card, the renege dialog, settings that
apply at once, the game-over sheet, corrections on the sheet, round 2 and the up card."""

from __future__ import annotations

import re

import pytest
from kivy.uix.button import Button

from kiosk.ui.theme import ERROR
from tests.ui.flows import quick_hand, start_game, type_text
from tests.ui.layout import text_of
from tests.ui.shoot import BELL

PLAYERS = {"N": "RON", "E": "ELBERT", "S": "CAROLYN", "W": "WALTER"}


@pytest.fixture
def kiosk(kiosk_at_both_sizes):
    """Every flow here at both panel sizes."""
    return kiosk_at_both_sizes


def start_named(k, first="N"):
    """A new game with the four players' names."""
    k.tap("new_game")
    k.tap(f"first_{first}")
    type_text(k, "Ruminers")
    k.tap("field_EW")
    type_text(k, "Mackeys")
    for seat, name in PLAYERS.items():
        k.tap(f"field_{seat}")
        type_text(k, name)
    k.tap("start")


def box(w):
    x, y = w.to_window(w.x, w.y)
    return x, y, x + w.width, y + w.height


def controls(k):
    """Every button a finger can reach on the screen now."""
    return [
        w
        for w in k.screen.walk(restrict=True)
        if isinstance(w, Button)
        and not w.disabled
        and w.opacity > 0
        and w.width > 1
        and all(p.opacity > 0 for p in _parents(w))
    ]


def _parents(w):
    while w.parent is not None and w.parent is not w:
        w = w.parent
        yield w
        if w.__class__.__name__ == "WindowSDL":
            return


def assert_strip_clear(k, strip_box):
    """The strip is where it always is, and no control is under it or off the screen."""
    strip = k.widget("strip")
    assert box(strip) == strip_box, "the message strip moved"
    sx0, sy0, sx1, sy1 = strip_box
    from kivy.core.window import Window

    for w in controls(k):
        x0, y0, x1, y1 = box(w)
        assert min(x1, sx1) - max(x0, sx0) <= 0 or min(y1, sy1) - max(y0, sy0) <= 0, f"{w.text!r} is under the strip"
        assert x0 >= 0 and y0 >= 0 and x1 <= Window.width + 0.5 and y1 <= Window.height + 0.5, f"{w.text!r} is off"


# ---- the message strip ----------------------------------------------------------------------------


def test_done_says_what_the_hand_still_needs_and_the_keypad_refuses_more_than_162(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    strip_box = box(kiosk.widget("strip"))
    assert not kiosk.widget("done").chosen and kiosk.text("strip") == "Pick the trump suit"
    kiosk.tap("done")  # not yet: it says so, and nothing is saved
    assert kiosk.root.manager.current == "quick" and kiosk.table.open_game().pending is None
    assert kiosk.text("strip") == "Pick the trump suit" and kiosk.widget("strip").color == list(ERROR)
    kiosk.tap("trump_H")
    assert not kiosk.widget("done").chosen and kiosk.text("strip") == "Type one team's points"
    for d in "17":
        kiosk.tap_exact(d)
    kiosk.tap_exact("0")  # 170
    assert kiosk.text("strip") == "At most 162 points: 170 is too many"
    assert kiosk.screen.entry.points == "17" and kiosk.widget("points_box").faulty
    assert_strip_clear(kiosk, strip_box)
    kiosk.tap_exact("⌫")  # the keypad still works under the message, and the message goes
    kiosk.tap_exact("2")
    assert kiosk.screen.entry.points == "12" and kiosk.text("strip") == ""
    assert kiosk.widget("done").chosen


def test_a_renege_needs_no_trick_points(kiosk):
    start_game(kiosk)
    kiosk.tap("play_S")
    kiosk.tap("trump_H")
    kiosk.tap("renege")
    kiosk.tap("team_EW")
    kiosk.tap_exact("table talk")
    assert kiosk.widget("done").chosen and kiosk.text("points_other") == "not needed"
    kiosk.tap("done")
    kiosk.tap("confirm")
    assert kiosk.table.open_game().sheet.totals == (162, 0)


def test_each_refusal_is_said_in_the_strip_with_its_field_outlined_and_every_control_free(kiosk):
    start_game(kiosk)
    kiosk.tap("play_N")
    kiosk.tap("trump_S")
    strip_box = box(kiosk.widget("strip"))
    for d in "90":
        kiosk.tap_exact(d)
    for seat in "EW":  # the same fifty for two players: the same cards twice
        kiosk.tap(kiosk.widget(f"meldrow_{seat}").ids.add)
        kiosk.tap_exact("fifty · 50")
    kiosk.tap("done")
    assert kiosk.root.manager.current == "quick"
    assert kiosk.text("strip") == "E's and W's melds share A♠ K♠ Q♠ J♠"
    assert all(c.faulty for s in "EW" for c in kiosk.widget(f"melds_{s}").children)
    assert not kiosk.widget("points_box").faulty and not kiosk.widget("trump_S").faulty
    assert_strip_clear(kiosk, strip_box)
    kiosk.tap(kiosk.widget("melds_W").children[0])
    kiosk.tap("remove")
    assert kiosk.text("strip") == ""
    kiosk.tap("done")
    assert kiosk.root.manager.current == "summary"


def test_a_point_count_no_cards_can_make_is_refused_in_the_players_words(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("trump_H")
    strip_box = box(kiosk.widget("strip"))
    for d in "161":
        kiosk.tap_exact(d)
    kiosk.tap("done")
    assert kiosk.text("strip") == "No hand ends 161 to 1: check the points"
    assert kiosk.widget("points_box").faulty
    assert_strip_clear(kiosk, strip_box)


# ---- the dealer at a glance -------------------------------------------------------------------------


def test_the_dealers_badge_names_the_dealer_after_every_kind_of_hand(kiosk):
    start_named(kiosk)
    h = kiosk.root.header

    def badge(seat):
        assert h.badge == f"{seat} deals" and h.dealer_name == PLAYERS[seat].title() and h.dealer == seat
        assert kiosk.table.open_game().dealer == "NESW".index(seat)

    badge("N")
    quick_hand(kiosk, "E", "H", "70", team="NS")  # made
    badge("E")
    quick_hand(kiosk, "S", "S", "81", team="NS")  # set
    badge("S")
    kiosk.tap("enter_hand")  # passed out (Evansville: the same dealer deals again)
    kiosk.tap("done")
    kiosk.tap("confirm")
    badge("S")
    quick_hand(kiosk, "W", "D", "50", team="NS", renege=("EW", "table talk"))  # a renege
    badge("W")
    kiosk.tap("deal_next")  # the table moved the deal
    badge("N")
    kiosk.tap("undo")
    badge("W")
    assert kiosk.widget("play_N").text.endswith("Ron[/size]")  # the seat buttons carry the names


# ---- card by card ------------------------------------------------------------------------------------


def test_card_by_card_with_a_meld_a_bell_taken_back_and_a_card_played_twice(kiosk):
    start_game(kiosk, first="E")  # E deals: S leads
    kiosk.tap("card_by_card")
    kiosk.tap("maker_E")
    kiosk.tap("trump_H")
    kiosk.tap("melds")
    kiosk.tap(kiosk.widget("meldrow_S").ids.add)
    kiosk.tap("four_9")  # S announces four nines before trick 1
    kiosk.tap(kiosk.widget("meldrow_N").ids.add)
    kiosk.tap("suit_1")
    kiosk.tap_exact("dad · 20")  # and N a dad of diamonds, A K Q
    kiosk.tap("melds_done")
    assert re.sub(r"\[/?color[^\]]*\]", "", kiosk.text("melds")) == "Melds: N dad A♦; S four 9s"
    assert kiosk.table.open_game().draft["melds"] == {"N": [["AD", "KD", "QD"]], "S": [["9C", "9D", "9H", "9S"]]}
    kiosk.tap("card_KH")
    assert kiosk.widget("melds").disabled  # play has started: melds are closed
    kiosk.tap("card_9C")  # W cannot hold a nine: S showed all four
    assert kiosk.text("strip") == "9♣ is in S's melds: W cannot hold it"
    assert kiosk.table.open_game().draft["plays"] == ["KH"]
    for name in BELL[1:4]:
        kiosk.tap(f"card_{name}")
    kiosk.tap("card_QH")  # S's Queen of trump after the King: a bell
    assert kiosk.text("bell_said") == "Bell — 20 for NS: S played the King and Queen of trump."
    kiosk.tap("bell_take_back")
    assert kiosk.table.open_game().draft["plays"] == BELL[:4] and not kiosk.widget("card_QH").disabled
    kiosk.tap("card_QH")
    kiosk.tap("bell_ok")
    assert kiosk.table.open_game().draft["plays"] == BELL


# ---- the renege dialog ---------------------------------------------------------------------------------


def test_the_renege_dialog_preselects_nothing_and_can_be_cancelled_or_cleared(kiosk):
    start_named(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("renege")
    assert kiosk.widget("team_NS").chosen is False and kiosk.widget("team_EW").chosen is False
    assert kiosk.widget("no_renege").disabled  # no renege to clear yet
    kiosk.tap_exact("table talk")
    assert kiosk.text("strip") == "First tap the team (or the player) who reneged"
    kiosk.tap("renege_cancel")
    assert kiosk.screen.entry.renege is None
    kiosk.tap("renege")
    kiosk.tap("seat_W")  # a seat gives its team
    assert kiosk.widget("team_EW").chosen and "Walter" in kiosk.text("seat_W")
    kiosk.tap_exact("didn't overtrump")
    assert kiosk.screen.entry.renege == {"by": "EW", "reason": "didn't overtrump", "seat": "W"}
    kiosk.tap("renege")
    kiosk.tap("team_NS")
    kiosk.tap("renege_other")  # a reason of the table's own, on the letter keys
    type_text(kiosk, "card shown")
    kiosk.tap_exact("OK ▶")
    assert kiosk.screen.entry.renege == {"by": "NS", "reason": "card shown"}
    kiosk.tap("renege")
    kiosk.tap("no_renege")
    assert kiosk.screen.entry.renege is None


# ---- the summary ----------------------------------------------------------------------------------------


def test_the_summary_says_which_meld_beat_which_and_why_a_set_is_a_set(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("trump_H")
    kiosk.tap("points_NS")
    for d in "70":
        kiosk.tap_exact(d)
    kiosk.tap(kiosk.widget("meldrow_N").ids.add)
    kiosk.tap("suit_3")
    kiosk.tap_exact("dad · 20")  # N's A-K-Q of spades
    kiosk.tap(kiosk.widget("meldrow_E").ids.add)
    kiosk.tap_exact("fifty · 50")  # E's A-K-Q-J of trump
    kiosk.tap("done")
    detail = kiosk.text("detail")
    assert "Melds: E's fifty A♥–J♥ beat N's dad A♠–Q♠ (the higher meld): EW 50, NS's melds do not count" in detail
    assert "Made: EW 162 against NS 70" in detail  # 92, the fifty's 50 and E's bell 20
    kiosk.tap("confirm")
    quick_hand(kiosk, "S", "S", "81", team="NS", confirm=False)
    assert kiosk.text("detail").startswith("XX — set: NS 81 against EW 81")


# ---- dimming and settings -------------------------------------------------------------------------------


def test_a_new_dim_time_applies_at_once(kiosk):
    kiosk.table.set_pin("582917")
    start_game(kiosk)
    kiosk.tap("owner")
    for d in "582917":
        kiosk.tap_exact(d)
    kiosk.tap("unlock")
    kiosk.tap("settings")
    kiosk.tap_exact("1 min")
    assert kiosk.root.dim_after == 60 and kiosk.root._idle is not None and kiosk.root._idle.timeout == 60
    assert kiosk.table.kiosk_setting("dim_after", "300") == "60"
    kiosk.tap_exact("off")
    assert kiosk.root.dim_after == 0 and kiosk.root._idle is None


# ---- game over -------------------------------------------------------------------------------------------


def test_the_game_over_sheet_shows_the_last_hand_headings_and_totals_and_new_game_starts_setup(kiosk):
    start_game(kiosk)
    for _ in range(6):
        quick_hand(kiosk, "N", "S", "90", team="NS")  # 90 a hand: the game ends on the sixth
    assert kiosk.root.manager.current == "over"
    kiosk.frames(3)
    rows = kiosk.widget("rows")
    assert len(rows.data) == 6
    if kiosk.screen.landscape:  # longer than its box on the 7" display: scrolled to its end
        assert rows.children[0].height > rows.height and rows.scroll_y == 0
    last = [v for v in rows.children[0].children if v.number == "6"]
    assert last, "the last hand is not drawn"
    (_, y0, _, y1), (_, vy0, _, vy1) = box(last[0]), box(rows)
    assert y0 >= vy0 - 1 and y1 <= vy1 + 1, "the last hand is scrolled out of view"
    totals = kiosk.widget("totals_row").ids  # the W in the winner's column, both totals added beside
    assert [text_of(totals[k]) for k in ("ns_final", "ew_final", "so_far_final")] == ["540\u2009W", "432", "972"]
    headings = [w.text for w in kiosk.screen.walk() if getattr(w, "text", None) in ("hand", "NS", "EW", "check")]
    assert {"hand", "NS", "EW", "check"} <= set(headings)
    kiosk.tap("new_game")
    assert kiosk.root.manager.current == "start" and kiosk.screen.step == "deal"


# ---- corrections, round 2 and the up card ------------------------------------------------------------------


def test_a_corrected_hand_is_marked_on_the_sheet_and_its_old_values_are_in_the_trail(kiosk):
    kiosk.table.set_pin("582917")
    start_game(kiosk)
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("owner")
    for d in "582917":
        kiosk.tap_exact(d)
    kiosk.tap("unlock")
    kiosk.tap("correct")
    kiosk.tap("hand_1")
    kiosk.tap_exact("C")
    for d in "62":
        kiosk.tap_exact(d)
    kiosk.tap("done")
    kiosk.tap_exact("points entered wrong")
    row = kiosk.widget("rows").data[0]
    assert row["note"] == "✎ corrected" and row["corrected"]  # the mark on a line under the row
    kiosk.tap("replay")
    assert "corrected " in kiosk.screen.body
    assert "(points entered wrong): points NS 70, EW 92 → NS 100, EW 62" in kiosk.screen.body


def test_quick_entry_records_round_2_and_the_up_card_when_the_table_wants(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("trump_H")
    kiosk.tap("more")
    kiosk.tap("round_2")
    kiosk.tap("up_JS")
    kiosk.tap("bidding_done")
    assert kiosk.text("more") == "round 2 · up [color=000000]J♠[/color]"
    for d in "70":
        kiosk.tap_exact(d)
    kiosk.tap("done")
    kiosk.tap("confirm")
    record = kiosk.table.open_game().hands[0].record
    assert record["round"] == 2 and record["up"] == "JS"


def test_round_2_naming_the_up_cards_suit_is_refused_in_the_players_words(kiosk):
    start_game(kiosk)
    kiosk.tap("play_E")
    kiosk.tap("trump_D")
    kiosk.tap("more")
    kiosk.tap("round_2")
    kiosk.tap("up_9D")
    kiosk.tap("bidding_done")
    for d in "70":
        kiosk.tap_exact(d)
    kiosk.tap("done")
    assert kiosk.root.manager.current == "quick"
    assert kiosk.text("strip") == "Round 2 cannot name the up card's suit" and kiosk.widget("more").faulty
