"""Records that contradict themselves are refused, each contradiction with its own line."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from engine.record import hand_to_json
from engine.rules import Rules
from engine.simulate import random_hand
from shared.cli import cli
from tests.helpers import clabber_process as clabber

HAND = "clabber-hand/1"
POINTS = {"NS": 80, "EW": 82}
EIGHT_PASSES = ["pass"] * 8


def score(record: dict) -> tuple[int, dict | None, list[str]]:
    """``clabber score -`` in process: the exit status, the printed object and the refusal lines."""
    r = CliRunner().invoke(cli, ["score", "-"], input=json.dumps({"format": HAND, **record}))
    out = json.loads(r.stdout) if r.exit_code == 0 else None
    return r.exit_code, out, r.stderr.splitlines()


def refused_at(record: dict) -> list[str]:
    """The fields a refusal names (the part of each line before the colon)."""
    status, out, lines = score(record)
    assert status == 2 and out is None, lines
    return [line.split(":")[0] for line in lines]


# ---- quick fields beside the bidding ---------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"up": "9H", "bids": ["play"], "maker": "S"}, "maker"),  # E said play
        ({"up": "9H", "bids": ["play"], "trump": "S"}, "trump"),  # round 1: hearts
        ({"up": "9H", "bids": ["pass"] * 4 + ["play S"], "trump": "C"}, "trump"),  # round 2: spades named
        ({"up": "9H", "bids": ["pass"] * 4 + ["play S"], "maker": "N"}, "maker"),  # E named spades
        ({"bids": ["pass", "play"], "maker": "E"}, "maker"),  # no up card: S said play
    ],
)
def test_a_lone_quick_field_that_contradicts_the_bids_is_refused(record, field):
    assert refused_at({"dealer": "N", "points": POINTS, **record}) == [field]


@pytest.mark.parametrize(
    ("record", "trump", "maker"),
    [
        ({"up": "9H", "bids": ["play"], "maker": "E"}, "H", "E"),
        ({"up": "9H", "bids": ["play"], "trump": "H"}, "H", "E"),
        ({"up": "9H", "bids": ["pass"] * 4 + ["play S"], "trump": "S", "maker": "E"}, "S", "E"),
        ({"bids": ["pass", "play"], "trump": "C"}, "C", "S"),  # the trump says which suit was turned up
        ({"up": "9H", "bids": ["pass"] * 4 + ["play S"], "maker": "E"}, "S", "E"),
    ],
)
def test_quick_fields_that_agree_with_the_bids_are_accepted(record, trump, maker):
    status, out, lines = score({"dealer": "N", "points": POINTS, **record})
    assert status == 0, lines
    assert (out["trump"], out["maker"]) == (trump, maker)


def test_round_2_through_the_quick_fields_alone_still_needs_both():
    assert refused_at({"dealer": "N", "up": "9H", "trump": "S", "points": POINTS}) == ["maker"]


# ---- a passed-out hand -----------------------------------------------------------------------

PLAYED_ONLY = {
    "trump": "C",
    "maker": "E",
    "bell": "N",
    "melds": {"N": [["AS", "KS", "QS"]]},
    "points": POINTS,
    "plays": ["9H"],
    "renege": {"by": "NS", "reason": "table talk"},
}


@pytest.mark.parametrize("passed", [{"bids": EIGHT_PASSES}, {"passed_out": True}], ids=["bids", "passed_out"])
@pytest.mark.parametrize("field", sorted(PLAYED_ONLY))
def test_a_passed_out_hand_carries_nothing_only_a_played_hand_has(passed, field):
    where = refused_at({"dealer": "N", **passed, field: PLAYED_ONLY[field]})
    assert [w.split("[")[0].split(".")[0] for w in where] == [field]


@pytest.mark.parametrize("passed", [{"bids": EIGHT_PASSES}, {"passed_out": True}], ids=["bids", "passed_out"])
def test_each_field_on_a_passed_out_hand_gets_its_own_line(passed):
    where = refused_at({"dealer": "N", **passed, **PLAYED_ONLY})
    assert sorted({w.split("[")[0].split(".")[0] for w in where}) == sorted(PLAYED_ONLY)
    assert len(where) == len(PLAYED_ONLY)


def test_a_plain_pass_out_is_still_scored():
    status, out, _ = score({"dealer": "N", "bids": EIGHT_PASSES})
    assert status == 0 and out["passed_out"] and out["score"] == {"NS": 0, "EW": 0}


# ---- the round-1 "play X" ruling -------------------------------------------------------------


def test_round_1_play_naming_the_up_cards_suit_is_accepted():
    status, out, _ = score({"dealer": "N", "up": "9H", "bids": ["play H"], "points": POINTS})
    assert status == 0 and out["trump"] == "H"


def test_round_1_play_naming_another_suit_is_refused():
    assert refused_at({"dealer": "N", "up": "9H", "bids": ["pass", "play S"], "points": POINTS}) == ["bids[1]"]


def test_round_1_play_x_without_an_up_card_says_which_suit_was_turned_up():
    status, out, _ = score({"dealer": "N", "bids": ["play D"], "points": POINTS})
    assert status == 0 and (out["trump"], out["maker"]) == ("D", "E")


# ---- readable refusals -----------------------------------------------------------------------


def test_a_long_refusal_lists_50_problems_then_how_many_more():
    bad = {"dealer": "N", "trump": "H", "maker": "E", "plays": ["XX"] * 24}
    game = {"format": "clabber-game/1", "hands": [bad, bad, bad]}  # 72 unreadable cards
    r = CliRunner().invoke(cli, ["sheet", "-"], input=json.dumps(game))
    lines = r.stderr.splitlines()
    assert r.exit_code == 2 and len(lines) == 51
    assert lines[0].startswith("hands[0].plays[0]: ") and lines[-1] == "... and 22 more"


def test_a_million_plays_are_one_line():
    assert refused_at({"dealer": "N", "trump": "H", "maker": "E", "plays": ["XX"] * 1_000_000}) == ["plays"]


@pytest.mark.parametrize(
    ("rules", "where"),
    [
        ({"target": 0}, "rules.target"),
        ({"preset": "nope"}, "rules.preset"),
        ({"preset": {"target": "x"}}, "rules.preset.target"),
        ("nope", "rules"),
    ],
)
def test_a_problem_in_the_rules_names_its_path_once(rules, where):
    assert refused_at({"dealer": "N", "rules": rules}) == [where]


# ---- the property: one contradicting quick field -------------------------------------------


@pytest.mark.slow
def test_ten_thousand_lawful_hands_with_one_contradicting_quick_field_are_refused():
    rng = random.Random(2026)
    refused = 0
    for i in range(10_000):
        hand = random_hand(rng, i % 4, melds=False)
        if hand.passed_out:
            continue
        record = hand_to_json(hand, Rules())
        field = rng.choice(["trump", "maker"])
        if field == "trump":
            record["trump"] = rng.choice([s for s in "CDHS" if s != "CDHS"[hand.trump]])
        else:
            record["maker"] = rng.choice([s for s in "NESW" if s != "NESW"[hand.maker]])
        status, _, lines = score(record)
        assert status == 2 and any(line.startswith(f"{field}: ") for line in lines), (record, lines)
        refused += 1
    assert refused > 5_000


def test_the_subprocess_refuses_a_contradiction_with_status_2():
    record = {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play"], "maker": "W", "points": POINTS}
    r = clabber("score", "-", stdin=json.dumps(record))
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("maker: the bids say E said play")
