"""Hindsight as the players read it: ``clabber replay`` and the result pages (shared/replay.py) and
``clabber solve``. The numbers come from the solver, which tests/test_solve.py checks against an
exhaustive minimax; these tests check what is said, where, and that nothing is said too early."""

from __future__ import annotations

import json

from engine.record import read_hand
from engine.solve import position_of, solve
from shared.replay import COSTLY, VERDICT, hindsight_lines, replay_text, trick_lines
from tests.helpers import ROOT, clabber, write_json
from tests.records import BELL_DECIDES, RENEGE, SET_BY_ONE_CARD, SET_IN_THE_CARDS

FORMAT = {"format": "clabber-hand/1"}


def hand_of(fields: dict):
    rec = read_hand({**FORMAT, **fields}, complete=False)
    return rec.hand, rec.rules


def costly_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "COSTLY" in line]


def test_a_set_that_was_in_the_cards_says_so_and_marks_no_card_of_the_makers():
    hand, rules = hand_of(SET_IN_THE_CARDS)
    text = replay_text(hand, rules)
    most = solve(position_of(hand, 0)).points[1]  # EW named trump
    assert f"With every card open: EW could take at most {most} — the set was in the cards." in text
    assert not [line for line in costly_lines(text) if line.split("'s")[0].endswith(("E", "W"))]


def test_a_set_one_card_caused_names_the_card_and_what_the_best_one_kept():
    hand, rules = hand_of(SET_BY_ONE_CARD)
    text = replay_text(hand, rules)
    assert "With every card open: EW could have made it: trick 2, W's Q♦ instead of 10♦ keeps 7 points." in text
    # Marked under the card in its trick, and only there for EW.
    trick_2 = trick_lines(hand, 2, rules)
    assert "** COSTLY, with every card open: trick 2, W's Q♦ instead of 10♦ keeps 7 points" in "\n".join(
        map(str, trick_2)
    )
    (costly,) = [line for line in trick_2 if line.kind == COSTLY]  # the screens and pages mark it by its kind
    assert costly.text == "Costly, with every card open: trick 2, W's Q♦ instead of 10♦ keeps 7 points"
    ew = [line for line in costly_lines(text) if "W's" in line or "E's" in line]
    assert len(ew) == 1


def test_a_make_the_bell_decides_is_in_the_cards():
    hand, rules = hand_of(BELL_DECIDES)
    lines = hindsight_lines(hand, rules)
    most = solve(position_of(hand, 0)).points[0]  # NS named trump
    assert [(line.text, line.kind) for line in lines] == [
        (f"With every card open: NS could take {most} — the make was in the cards.", VERDICT)
    ]
    assert most < 81  # the card points alone would set NS: the bell's 20 makes it


def test_the_renege_hand_says_what_best_play_without_it_gave_beside_the_penalty():
    text = clabber("replay", str(ROOT / "examples/hand-renege.json")).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("With every card open")]
    assert line.startswith("With every card open, without the renege: best play from there gives NS ")
    # EW reneged: NS 162, N's dad of 20 and S's bell of 20.
    assert line.endswith("where the penalty gives NS 202, EW 0.") and "On the sheet: NS 202, EW 0." in text


def test_nothing_is_said_of_a_quick_entry_or_of_a_hand_still_being_played(tmp_path):
    quick = {**FORMAT, "dealer": "E", "trump": "H", "maker": "S", "points": {"NS": 70, "EW": 92}}
    assert "every card open" not in clabber("replay", str(write_json(tmp_path / "q.json", quick))).stdout
    # Ten cards into SET_BY_ONE_CARD, W's costly card already played: no hint while cards are played.
    playing = {**SET_BY_ONE_CARD, "plays": SET_BY_ONE_CARD["plays"][:10]}
    hand, rules = hand_of(playing)
    assert hindsight_lines(hand, rules) == []
    assert not costly_lines("\n".join(str(line) for n in (1, 2, 3) for line in trick_lines(hand, n, rules)))


def test_clabber_solve_gives_each_teams_points_from_the_position_and_every_legal_card(tmp_path):
    fields = {**SET_BY_ONE_CARD, "plays": SET_BY_ONE_CARD["plays"][:5]}  # trick 2, S led the J♦
    path = write_json(tmp_path / "p.json", {**FORMAT, **fields})
    out = json.loads(clabber("solve", "--json", str(path)).stdout)
    taken = hand_of(fields)[0].tricks()[0].points  # trick 1, taken before the position
    assert out["NS"] + out["EW"] == 162 - taken
    assert (out["trick"], out["to_play"], out["played_in_trick"]) == (2, "W", ["JD"])
    assert set(out["cards"]) == {"AD", "QD", "TD"}  # nothing beats the J♦ of trump: any trump of W's
    assert out["best"] == ["QD"] and out["cards"]["TD"]["NS"] - out["cards"]["QD"]["NS"] == 7
    text = clabber("solve", str(path)).stdout
    assert "from trick 2 with W to play" in text and "W plays Q♦" in text and "costs 7" in text


def test_clabber_solve_says_what_a_record_lacks(tmp_path):
    no_hands = {**FORMAT, "dealer": "N", "up": "9H", "bids": ["play"], "plays": RENEGE[:3]}
    r = clabber("solve", str(write_json(tmp_path / "n.json", no_hands)))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "not all known" in r.stderr and "six cards (hands)" in r.stderr
