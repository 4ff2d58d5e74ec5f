"""What settles a dispute, at both panel sizes: card by card to the end of a hand with every played
card shown as gone, each refusal saying the rule that forbids the card, the replay of that hand read
to its last trick by a finger's drag, and the game-over sheet marked as the paper one (W, XX, -).
Every tap is checked by tests/ui/layout.py: cards played and in hand 3:1 apart, a seat and its card
on one line, nothing under a scroll bar, the sheet holding the rows it should."""

from __future__ import annotations

import pytest

from engine.cards import card_symbol, parse_card
from kiosk.ui import theme
from tests.records import LAWFUL, RENEGE
from tests.ui.flows import quick_hand, start_game
from tests.ui.layout import box, face_colour, lines_of, text_of


@pytest.fixture
def kiosk(kiosk_at_both_sizes):
    return kiosk_at_both_sizes


def card_by_card(kiosk, maker: str = "E", trump: str = "H") -> None:
    kiosk.tap("card_by_card")
    kiosk.tap(f"maker_{maker}")
    kiosk.tap(f"trump_{trump}")


def play(kiosk, name: str) -> None:
    """Taps a card; a bell the plays complete is kept."""
    kiosk.tap(f"card_{name}")
    if kiosk.screen.manager and kiosk._popups():
        kiosk.tap("bell_ok")


def test_a_hand_card_by_card_to_its_end_shows_every_card_played_as_gone(kiosk):
    start_game(kiosk)
    card_by_card(kiosk)
    for i, name in enumerate(LAWFUL):
        play(kiosk, name)
        cards = [kiosk.widget(f"card_{n}") for n in LAWFUL]
        gone, left = cards[: i + 1], cards[i + 1 :]
        assert all(c.played for c in gone) and not any(c.played for c in left)
        if left:  # as drawn: the card just played an empty slot, one still in hand a card's face
            assert theme.contrast(face_colour(gone[-1]), face_colour(left[0])) >= 3
            shown = [text_of(kiosk.widget(f"trick_{k}")) for k in range(4)]
            assert any(s.endswith(card_symbol(parse_card(name))) for s in shown), shown
    assert kiosk.text("turn") == "All 24 cards played."
    kiosk.tap("done")
    kiosk.tap("confirm")
    assert kiosk.table.open_game().hands[0].record["plays"] == LAWFUL


def lawful_hand_replayed(kiosk) -> None:
    """The lawful hand entered card by card, confirmed, and its replay opened."""
    start_game(kiosk)
    card_by_card(kiosk)
    for name in LAWFUL:
        play(kiosk, name)
    kiosk.tap("done")
    kiosk.tap("confirm")
    kiosk.tap("replay")


def test_the_replay_of_a_hand_is_read_to_the_end_of_every_trick_by_a_finger(kiosk):
    lawful_hand_replayed(kiosk)
    scroll = kiosk.widget("scroll")
    for trick in range(1, 7):
        kiosk.tap("next_trick")
        assert kiosk.screen.trick_number == trick
        for _ in range(6):  # dragged up until the list is at its foot (a list that fits is there)
            if scroll.scroll_y <= 0.001 or scroll.viewport_size[1] <= scroll.height:
                break
            kiosk.drag(scroll, scroll.height * 0.6)
        (won,) = [w for w in kiosk.widget("lines").children if w.kind == "won"]
        view = box(scroll)
        for r, _ in lines_of(won):  # every line of the trick's winner, whole, inside the list
            assert r[1] >= view[1] - 1 and r[3] <= view[3] + 1, (trick, r, view)
        assert text_of(won).startswith("won by ") and "points" in text_of(won)


def test_a_finger_drags_the_replay_down_and_back_up(kiosk):
    start_game(kiosk)
    g = kiosk.table.open_game()
    kiosk.table.add_hand(g.id, {"up": "9H", "bids": ["play"], "plays": RENEGE[:10]})
    kiosk.root.show("replay")
    scroll = kiosk.widget("scroll")
    for _ in range(8):  # the first page longer than the list, under the header and the red banner
        if scroll.viewport_size[1] > scroll.height:
            break
        kiosk.tap("next_trick")
    assert scroll.viewport_size[1] > scroll.height, "no page of the hand is longer than its list"
    kiosk.drag(scroll, scroll.height * 0.6)
    assert scroll.scroll_y < 1
    kiosk.drag(scroll, -scroll.height * 0.9)
    kiosk.drag(scroll, -scroll.height * 0.9)
    assert scroll.scroll_y >= 0.999


def test_the_game_over_sheet_has_the_paper_sheets_marks(kiosk):
    start_game(kiosk)
    quick_hand(kiosk, "S", "S", "81", team="NS")  # 81-81: NS set, XX
    kiosk.tap("enter_hand")  # passed out: nothing for either, - and -
    kiosk.tap("done")
    kiosk.tap("confirm")
    quick_hand(kiosk, "W", "D", "50", team="NS", renege=("EW", "table talk"))  # EW reneged: 162 and -
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "N", "C", "162", team="NS")  # NS take every trick: EW -
    rows = kiosk.widget("rows").data
    assert [(r["ns"], r["ew"]) for r in rows[:3]] == [("XX", "81"), ("-", "-"), ("162", "-")]
    assert [r["note"] for r in rows[:3]] == ["", "passed out", "renege EW"]
    g = kiosk.table.game(kiosk.root.game_id)
    so_far = 0
    for r, row in zip(rows, g.sheet.rows, strict=True):  # the check columns: the hand's, and so far
        so_far += sum(row.score.score)
        assert (int(r["check"]), int(r["so_far"])) == (sum(row.score.score), so_far)
    totals = kiosk.widget("totals_row").ids
    ns, ew = g.sheet.totals
    assert text_of(totals["ns_final"]) == f"{ns}\u2009W" and text_of(totals["ew_final"]) == str(ew)
    assert text_of(totals["so_far_final"]) == str(ns + ew)


def test_every_card_by_card_refusal_says_why(kiosk):
    start_game(kiosk)  # N deals: E leads
    card_by_card(kiosk)
    kiosk.tap("melds")
    kiosk.tap(kiosk.widget("meldrow_N").ids.add)
    kiosk.tap("kind_hundred")  # N's hundred: A K Q J 10 of trump preset to spades below
    chips = kiosk.screen.chips["N"]
    assert [c.cards() for c in chips] == [["AH", "KH", "QH", "JH", "TH"]]
    kiosk.tap(kiosk.widget("meldchips_N").children[0])
    kiosk.tap("suit_3")  # spades
    kiosk.tap("keep")
    kiosk.tap("melds_done")
    assert [c.cards() for c in kiosk.screen.chips["N"]] == [["AS", "KS", "QS", "JS", "TS"]]

    kiosk.tap("card_AS")  # E leads: the ace of spades is in N's hundred
    assert kiosk.text("strip") == "A♠ is in N's melds: E cannot hold it"
    for name in ("9D", "KD", "AD", "9C"):  # N, void in diamonds with no trump, throws the 9 of clubs
        play(kiosk, name)
    kiosk.tap("card_KD")  # a card already played
    assert kiosk.text("strip") == "K♦ is gone: S played it in trick 1"
    play(kiosk, "QD")  # W, who won trick 1, leads
    kiosk.tap("card_AH")  # N's six cards are all known: the hundred and the 9 of clubs played
    assert kiosk.text("strip") == "N has only A♠ K♠ Q♠ J♠ 10♠ left: not A♥"
    for name in ("AS", "KC", "JD", "9S", "KS"):  # E throws a club on diamonds; trick 3
        play(kiosk, name)
    kiosk.tap("card_TD")  # E shows a diamond: E did not follow suit in trick 2
    said = kiosk.text("question")
    assert "10♦ shows a renege by E: in trick 2 E played K♣ — must follow suit (diamonds), holding 10♦" in said
    kiosk.tap("no")  # a wrong card: not taken
    assert kiosk.screen.plays[-1] == "KS"


def test_card_by_card_says_a_trump_and_an_overtrump_renege_with_the_rule(kiosk):
    start_game(kiosk)
    card_by_card(kiosk)
    for name in RENEGE[:9]:
        play(kiosk, name)
    kiosk.tap("card_TH")  # E threw a club on a spade lead while holding the 10 of trump
    assert "must trump, holding 10♥" in kiosk.text("question")
    kiosk.tap("no")
    kiosk.tap("cancel")
    card_by_card(kiosk)
    for name in ("9D", "KH", "QH", "AS", "TS"):  # W plays the Q under S's K of trump, void in diamonds
        play(kiosk, name)
    kiosk.tap("card_AH")  # W shows the ace of trump: W could have overtrumped in trick 1
    assert "shows a renege by W: in trick 1 W played Q♥ — must overtrump, holding A♥" in kiosk.text("question")


def test_after_the_score_the_replay_says_the_bids_odds_once_worked_out_off_the_screens_thread(kiosk):
    """The last step of a hand entered card by card: the score, hindsight, then the bid's odds from
    what the maker could know; a line says they are being worked out, and the screen answers taps
    meanwhile (the work is in a thread of its own)."""
    import time

    from kiosk.ui.dispute import ReplayLine
    from shared.present import unbroken
    from shared.replay import odds_after

    lawful_hand_replayed(kiosk)
    odds_after.cache_clear()  # worked out afresh, as on a kiosk that has just started
    for _ in range(7):
        kiosk.tap("next_trick")
    shown = [text_of(w) for w in reversed(kiosk.widget("lines").children)]
    assert shown[-1].startswith("Working out the odds of E's bid from what E could know"), shown[-1]
    deadline = time.monotonic() + 60
    while not text_of(kiosk.widget("lines").children[0]).startswith("E's play on ♥") and time.monotonic() < deadline:
        kiosk.wait(0.2)
    said = text_of(kiosk.widget("lines").children[0])
    hand = kiosk.table.open_game().hands[0].hand
    odds = odds_after(hand)
    assert odds is not None and said == text_of(ReplayLine(text=unbroken(f"E's play on ♥: {odds.words('E')}.")))
    kiosk.assert_layout("the odds shown")
