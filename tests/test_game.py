"""A game (RULES.md: End of the game, Who deals next, Variants): the sheet and its end."""

import pytest

from engine.errors import IllegalEntryError
from engine.output import sheet_to_json
from engine.record import read_game


def q(dealer, maker, ns, ew, trump="S", **more):
    return {"dealer": dealer, "trump": trump, "maker": maker, "points": {"NS": ns, "EW": ew}, **more}


def game(hands, rules="evansville"):
    return read_game({"format": "clabber-game/1", "rules": rules, "hands": hands})


def sheet(hands, rules="evansville"):
    return sheet_to_json(game(hands, rules).sheet())


def test_the_sheet_keeps_running_totals_and_marks():
    s = sheet([q("N", "E", 70, 92), q("E", "E", 100, 62), q("S", "N", 162, 0)])
    assert [r["totals"] for r in s["rows"]] == [{"NS": 70, "EW": 92}, {"NS": 170, "EW": 92}, {"NS": 332, "EW": 92}]
    assert [r["marks"] for r in s["rows"]][1:] == [{"NS": "", "EW": "XX"}, {"NS": "", "EW": "-"}]
    assert s["next_dealer"] == "W" and not s["over"] and s["winner"] is None


def test_the_game_ends_after_the_hand_that_reaches_500():
    s = sheet([q("N", "S", 162, 0, melds={"N": [["JC", "JD", "JH", "JS"]]}), q("E", "S", 162, 0)])
    assert s["over"] and s["winner"] == "NS" and s["totals"]["NS"] == 524 and s["next_dealer"] is None


def test_no_hand_after_the_end():
    hands = [q("N", "S", 162, 0, melds={"N": [["JC", "JD", "JH", "JS"]]}), q("E", "S", 162, 0), q("S", "S", 80, 82)]
    with pytest.raises(IllegalEntryError, match=r"hands\[2\]: the game was over after hand 2"):
        game(hands)


def test_target_variant():
    s = sheet([q("N", "S", 162, 0)], {"target": 150})
    assert s["over"] and s["winner"] == "NS"


def both_reach(rules):
    # NS 400 then EW sets NS... both over 150 after the second hand; EW made the last hand.
    return sheet([q("N", "S", 140, 22), q("E", "E", 40, 122, melds={"E": [["AC", "KC", "QC"]]})], rules)


def test_both_reach_target_higher_total_wins():
    s = both_reach({"target": 150, "both_reach_target": "higher"})
    assert s["totals"] == {"NS": 180, "EW": 164} and s["winner"] == "NS"


def test_both_reach_target_makers_first():
    s = both_reach({"target": 150, "both_reach_target": "makers_first"})
    assert s["winner"] == "EW"


def test_equal_totals_at_the_target_tie():
    s = sheet([q("N", "S", 100, 62), q("E", "E", 62, 100)], {"target": 160})
    assert s["totals"] == {"NS": 162, "EW": 162} and s["over"] and s["winner"] == "tie"


def test_equal_totals_at_the_target_play_on():
    s = sheet([q("N", "S", 100, 62), q("E", "E", 62, 100)], {"target": 160, "tie_at_target": "play_on"})
    assert not s["over"] and s["winner"] is None and s["next_dealer"] == "S"


def test_pass_out_and_void_rows_score_0_and_have_no_marks():
    s = sheet([{"dealer": "N", "passed_out": True}, {"dealer": "N", "misdeal": True}, q("N", "E", 80, 82)])
    assert [r["score"] for r in s["rows"][:2]] == [{"NS": 0, "EW": 0}] * 2
    assert [r["marks"] for r in s["rows"][:2]] == [{"NS": "", "EW": ""}] * 2
    assert [r["next_dealer"] for r in s["rows"]] == ["N", "N", "E"]


def test_rows_record_who_the_rules_said_should_deal():
    s = sheet([q("N", "E", 80, 82), q("S", "E", 80, 82)])
    assert s["rows"][1]["rules_dealer"] == "E" and s["rows"][1]["dealer"] == "S"
