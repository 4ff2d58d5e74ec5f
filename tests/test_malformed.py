"""Malformed records of every shape are refused with a message, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EntryError
from engine.output import score_to_json, sheet_to_json
from engine.record import HAND_FIELDS, read_game, read_hand
from engine.rules import Rules
from engine.scoring import score_hand
from shared.replay import replay_text
from tests.helpers import clabber_process as clabber
from tests.records import DEAL, RENEGE

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["N", "EW", "AS", "10h", "play", "pass", "play S", "S", "H", "clabber-hand/1", "evansville"]),
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(
            st.text(max_size=6) | st.sampled_from(["N", "E", "S", "W", "NS", "EW", "by", "reason"]), inner, max_size=5
        )
    ),
    max_leaves=20,
)
FIELDS = [*HAND_FIELDS, "extra"]
VALID = [
    {
        "format": "clabber-hand/1",
        "dealer": "E",
        "trump": "H",
        "maker": "S",
        "points": {"NS": 70, "EW": 92},
        "melds": {"N": [["KH", "QH", "JH"]]},
    },
    {"format": "clabber-hand/1", "dealer": "N", "up": "9H", "bids": ["play"], "hands": DEAL, "plays": RENEGE},
]


@st.composite
def mutated_records(draw):
    record = dict(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(FIELDS))
        if draw(st.booleans()) and key in record:
            del record[key]
        else:
            record[key] = draw(json_values)
    return record


def check(obj):
    """Reads a record as the CLI would; only an EntryError may come out."""
    try:
        rec = read_hand(obj)
    except EntryError as e:
        assert e.problems and all(p.why for p in e.problems)
        return
    json.dumps(score_to_json(rec.hand, score_hand(rec.hand, rec.rules)))
    replay_text(rec.hand, rec.rules)


@given(json_values)
def test_any_json_value_is_refused_cleanly(value):
    check(value)


@given(mutated_records())
def test_mutated_hand_records_are_scored_or_refused_cleanly(record):
    check(record)


@given(st.lists(mutated_records(), max_size=3), json_values)
def test_mutated_game_records_are_read_or_refused_cleanly(hands, teams):
    game = {
        "format": "clabber-game/1",
        "teams": teams,
        "hands": [{k: v for k, v in h.items() if k not in ("format", "rules")} for h in hands],
    }
    try:
        sheet_to_json(read_game(game).sheet())
    except EntryError as e:
        assert e.problems


@pytest.mark.slow  # each record through a process of its own
@settings(max_examples=12)
@given(mutated_records())
def test_the_command_never_prints_a_traceback(record):
    r = clabber("score", "-", stdin=json.dumps(record))
    assert r.returncode in (0, 2) and "Traceback" not in r.stderr
    assert (r.returncode == 0) == (r.stderr == "") and (r.returncode == 2) == (r.stdout == "")


def test_rules_snapshot_round_trips():
    assert Rules().to_json() == "evansville"
    assert Rules(target=301).to_json()["target"] == 301


QUICK = '{"format": "clabber-hand/1", "dealer": "N", "trump": "H", "maker": "S", '
HOSTILE = [
    pytest.param(QUICK + '"points": {"NS": ' + "9" * 5000 + ', "EW": 1}}', "points.NS", id="5000-digit-number"),
    pytest.param(
        QUICK + '"points": {"NS": 80, "EW": 82}, "renege": {"by": "NS", "reason": "\\ud800"}}',
        "renege.reason",
        id="lone-high-surrogate",
    ),
    pytest.param(
        QUICK + '"points": {"NS": 80, "EW": 82}, "renege": {"by": "NS", "reason": "\\udc80"}}',
        "renege.reason",
        id="lone-low-surrogate",
    ),
    pytest.param(
        '{"format": "clabber-hand/1", "dealer": "N", "\\u001b[2J\\ud800": 1}',
        "\\x1b[2J\\ud800",
        id="escape-in-a-field-name",
    ),
]


@pytest.mark.parametrize(("text", "where"), HOSTILE)
def test_hostile_input_is_refused_where_it_stands_and_all_output_is_utf8(text, where):
    exe = [sys.executable, "-m", "kiosk"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG")}
    r = subprocess.run([*exe, "score", "-"], input=text.encode(), capture_output=True, env={**env, "LC_ALL": "C"})
    err = r.stderr.decode("utf-8")  # raises if not UTF-8
    assert r.returncode == 2 and r.stdout == b"", err
    assert err.startswith(f"{where}: ") and len(err.splitlines()) == 1 and "Traceback" not in err
