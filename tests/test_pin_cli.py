"""``clabber`` takes the owner's PIN from a prompt or the environment, never from its arguments."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest

from kiosk.pin import FREE_TRIES
from shared.cli import cli
from tests.helpers import clabber, write_json
from tests.store_helpers import QUICK_HANDS

PIN = "739146"
FIXED = {"trump": "H", "maker": "E", "points": {"NS": 100, "EW": 62}}


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "kiosk.db")


def run(db, *args, stdin=None, env=None):
    return clabber(*args[:1], "--db", db, *args[1:], stdin=stdin, env=env)


def game_with_a_hand(db, tmp_path):
    g = run(db, "game", "new", "--teams", "Ruminers", "Mackeys", "--first-dealer", "N").stdout.strip()
    run(db, "game", "hand", g, str(write_json(tmp_path / "h.json", QUICK_HANDS[0])))
    return g, str(write_json(tmp_path / "fixed.json", FIXED))


def corrections(db):
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM events WHERE kind = 'hand_corrected'").fetchone()[0]


def _options(command, path=()):
    yield from ((path, p) for p in command.params if isinstance(p, click.Option))
    for name, sub in getattr(command, "commands", {}).items():
        yield from _options(sub, (*path, name))


def test_no_command_has_an_option_that_takes_a_pin():
    offending = [(" ".join(path), p.opts) for path, p in _options(cli) if any("pin" in o.lower() for o in p.opts)]
    assert offending == []


def test_a_pin_on_the_command_line_is_refused_and_changes_nothing(db, tmp_path):
    g, fixed = game_with_a_hand(db, tmp_path)
    assert run(db, "pin", "set", env={"CLABBER_NEW_PIN": PIN}).returncode == 0
    r = run(db, "game", "correct", g, "1", fixed, "--reason", "typo", "--pin", PIN)
    assert r.returncode == 2 and "No such option '--pin'" in r.stderr and corrections(db) == 0
    r = run(db, "pin", "set", "--pin", "271828")
    assert r.returncode == 2 and "No such option '--pin'" in r.stderr


def test_the_pin_from_the_environment_or_typed_at_the_prompt(db, tmp_path):
    g, fixed = game_with_a_hand(db, tmp_path)
    r = run(db, "pin", "set", stdin=f"{PIN}\n")  # typed: standard input is not a terminal here
    assert r.returncode == 0 and "PIN set" in r.stdout, r.stderr
    r = run(db, "game", "correct", g, "1", fixed, "--reason", "typo", stdin=f"{PIN}\n")
    assert r.returncode == 0 and json.loads(r.stdout)["marks"] == {"NS": "", "EW": "XX"}
    r = run(db, "game", "correct", g, "1", fixed, "--reason", "again", env={"CLABBER_PIN": PIN})
    assert r.returncode == 0 and corrections(db) == 2


def test_changing_the_pin_asks_for_the_current_one(db):
    assert run(db, "pin", "set", env={"CLABBER_NEW_PIN": PIN}).returncode == 0
    r = run(db, "pin", "set", stdin="641937\n271828\n")
    assert r.returncode == 2 and "wrong PIN" in r.stderr
    r = run(db, "pin", "set", stdin=f"{PIN}\n271828\n")
    assert r.returncode == 0, r.stderr
    r = run(db, "pin", "set", env={"CLABBER_PIN": "271828", "CLABBER_NEW_PIN": "50982113"})
    assert r.returncode == 0, r.stderr


def test_a_record_on_standard_input_needs_the_pin_in_the_environment(db, tmp_path):
    g, _ = game_with_a_hand(db, tmp_path)
    run(db, "pin", "set", env={"CLABBER_NEW_PIN": PIN})
    r = run(db, "game", "correct", g, "1", "-", "--reason", "typo", stdin=json.dumps(FIXED))
    assert r.returncode == 2 and "CLABBER_PIN" in r.stderr and "Traceback" not in r.stderr
    r = run(db, "game", "correct", g, "1", "-", "--reason", "typo", stdin=json.dumps(FIXED), env={"CLABBER_PIN": PIN})
    assert r.returncode == 0 and corrections(db) == 1


def test_nothing_typed_is_refused_with_a_message(db, tmp_path):
    g, fixed = game_with_a_hand(db, tmp_path)
    run(db, "pin", "set", env={"CLABBER_NEW_PIN": PIN})
    r = run(db, "game", "correct", g, "1", fixed, "--reason", "typo", stdin="")
    assert r.returncode == 2 and "CLABBER_PIN" in r.stderr and "Traceback" not in r.stderr


def test_wrong_pins_at_the_command_line_lock_it_too(db, tmp_path):
    g, fixed = game_with_a_hand(db, tmp_path)
    run(db, "pin", "set", env={"CLABBER_NEW_PIN": PIN})
    for _ in range(3):
        r = run(db, "game", "correct", g, "1", fixed, "--reason", "typo", env={"CLABBER_PIN": "641937"})
        assert r.returncode == 2 and "wrong PIN" in r.stderr
    r = run(db, "game", "correct", g, "1", fixed, "--reason", "typo", env={"CLABBER_PIN": PIN})
    assert r.returncode == 2 and "locked for" in r.stderr and corrections(db) == 0


@pytest.mark.slow  # 19 processes
def test_wrong_pins_sent_at_once_are_tried_only_until_entry_locks(db, tmp_path):
    """19 ``clabber game correct`` with a wrong PIN, started at once: each attempt is counted before
    its PIN is tried, so only the attempts up to the lock are tried; the rest are refused untried."""
    g, fixed = game_with_a_hand(db, tmp_path)
    run(db, "pin", "set", env={"CLABBER_NEW_PIN": PIN})
    exe = Path(sys.executable).with_name("clabber")
    args = [str(exe), "game", "--db", db, "correct", g, "1", fixed, "--reason", "typo"]
    procs = [
        subprocess.Popen(args, env={**os.environ, "CLABBER_PIN": "641937"}, stderr=subprocess.PIPE, text=True)
        for _ in range(19)
    ]
    said = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 2 for p in procs), said
    tried = [s for s in said if "wrong PIN" in s and "in a row" not in s]
    assert len(tried) == FREE_TRIES, said  # the third wrong one locks entry; nothing after it is tried
    assert sum(f"after {FREE_TRIES} wrong PINs in a row" in s for s in said) == 19 - FREE_TRIES
    assert corrections(db) == 0
