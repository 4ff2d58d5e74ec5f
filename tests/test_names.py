"""Names and reasons are plain text: control and bidi characters are refused where they come in,
and whatever is already stored reaches a terminal escaped."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from engine.errors import EntryError
from engine.record import read_game
from engine.text import json_safe, terminal_safe, text_problem
from kiosk.projection import rows_of
from shared.game_state import ActionRefused, GameState
from tests.helpers import clabber, write_json
from tests.store_helpers import QUICK_HANDS, event_count, open_table

# What each kind of character is called in the refusal, and one of each kind.
HOSTILE = [
    ("\x1b[31mRed", "a control character (U+001B) at character 1"),
    ("Ruminers\x07", "a control character (U+0007) at character 9"),
    ("Ru\x00miners", "a control character (U+0000) at character 3"),
    ("Mack\x9beys", "a control character (U+009B) at character 5"),
    ("\u202eSREKCAM", "a bidirectional control character (U+202E) at character 1"),
    ("Mac\u2066keys", "a bidirectional control character (U+2066) at character 4"),
    ("Mackeys\u200f", "a bidirectional control character (U+200F) at character 8"),
    ("Ru\u200bminers", "an invisible formatting character (U+200B) at character 3"),
    ("Two\u2028lines", "a line break (U+2028) at character 4"),
    ("Half\ud800", "half of a surrogate pair (U+D800) at character 5"),
]
PLAIN = ["Ruminers", "Les Bœufs", "Čapek & Co.", "שלום", "مرحبا", "👨\u200d👩\u200d👧 family", "[b]Bold[/b]", "O'Neil"]


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    yield t
    t.store.close()


def game_record(teams=None, players=None, hands=()):
    record = {"format": "clabber-game/1", "teams": teams or {"NS": "Ruminers", "EW": "Mackeys"}, "hands": []}
    if players:
        record["players"] = players
    dealer = "NESW"
    for i, h in enumerate(hands):
        record["hands"].append({**h, "dealer": dealer[i % 4]})
    return record


@pytest.mark.parametrize(("name", "why"), HOSTILE)
def test_the_engine_says_which_character_and_where(name, why):
    assert text_problem(name) == f"has {why}: names and reasons are plain text"


@pytest.mark.parametrize("name", PLAIN)
def test_names_in_any_script_with_joiners_and_markup_are_plain_text(name, table):
    assert text_problem(name) is None
    g = table.new_game([name, "B"], {"N": name}, first_dealer="N")
    assert g.teams["NS"] == name and g.players["N"] == name


@pytest.mark.parametrize(("name", "why"), HOSTILE)
def test_the_controller_refuses_them_in_team_and_player_names(table, name, why):
    with pytest.raises(ActionRefused, match="^" + re.escape(f"team EW's name has {why}")):
        table.new_game(["Ruminers", name])
    with pytest.raises(ActionRefused, match="^" + re.escape(f"W's name has {why}")):
        table.new_game(["Ruminers", "Mackeys"], ["Ron", "Elbert", "Carolyn", name])
    assert event_count(table.store) == 0


def test_record_import_refuses_them_saying_where(table):
    record = game_record({"NS": "Ruminers", "EW": "\u202eSREKCAM"}, {"S": "Caro\x1b[2Jlyn"}, QUICK_HANDS[:1])
    record["hands"][0]["renege"] = {"by": "EW", "reason": "table\u2067talk"}
    with pytest.raises(EntryError) as err:
        read_game(record)
    assert [str(p) for p in err.value.problems] == [
        "teams.EW: has a bidirectional control character (U+202E) at character 1: names and reasons are plain text",
        "players.S: has a control character (U+001B) at character 5: names and reasons are plain text",
        "hands[0].renege.reason: has a bidirectional control character (U+2067) at character 6: names and "
        "reasons are plain text",
    ]
    with pytest.raises(ActionRefused) as refused:
        table.import_game(record)
    assert len(refused.value.problems) == 3 and event_count(table.store) == 0


def test_reasons_are_checked_too(table):
    g = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    table.add_hand(g.id, QUICK_HANDS[0])
    table.set_pin("739146")
    fixed = {"trump": "H", "maker": "E", "points": {"NS": 100, "EW": 62}}
    with pytest.raises(ActionRefused, match=r"^the reason has a control character \(U\+001B\)"):
        table.correct(g.id, 1, fixed, "typo\x1b[8m", "739146")
    with pytest.raises(
        ActionRefused, match=r"^renege\.reason: has a bidirectional control character \(U\+202E\) at character 6"
    ):
        table.call_renege(g.id, "NS", "table\u202etalk")
    with pytest.raises(ActionRefused, match=r"^the reason has"):
        table.abandon(g.id, "closing\u2066", "739146")
    with pytest.raises(ActionRefused, match=r"^the reason has"):
        table.finish(g.id, "done\x7f")
    assert [e.kind for e in table.store.events(g.id)] == ["game_started", "hand_entered", "hand_confirmed"]


def old_game(table, ns, ew):
    """A game stored before names were checked (an older kiosk, a record imported then)."""
    event = table._started_event(table.store.next_game_id(), ["A", "B"], None, None, "N", None, None, moved=False)
    event = replace(event, payload={**event.payload, "teams": {"NS": ns, "EW": ew}})
    state = GameState(event)
    table.store.append(event, rows_of(state))
    return state


def test_names_already_stored_reach_the_terminal_escaped(tmp_path):
    db = tmp_path / "clabber.db"
    table = open_table(db)
    ns, ew = "\x1b[31mRED\x1b[0m\u202eSREKCAM", "Mackeys\x9b2J"
    old_game(table, ns, ew)
    table.store.close()
    listing = clabber("game", "--db", str(db), "list")
    assert listing.returncode == 0 and "\\x1b[31mRED\\x1b[0m\\u202eSREKCAM 0 – 0 Mackeys\\x9b2J" in listing.stdout
    for out in (
        listing.stdout,
        clabber("game", "--db", str(db), "show", "1").stdout,
        clabber("game", "--db", str(db), "list", "--json").stdout,
        clabber("game", "--db", str(db), "export", "1").stdout,
    ):
        assert not any(text_problem(line) for line in out.splitlines()), out
    shown = json.loads(clabber("game", "--db", str(db), "show", "1").stdout)
    assert shown["teams"] == {"NS": ns, "EW": ew}  # the JSON still says exactly what is stored


def test_a_refused_name_is_echoed_escaped_on_the_terminal(tmp_path):
    record = write_json(tmp_path / "g.json", game_record({"NS": "A", "EW": "B"}, {"N": "\u202e\x1b]0;pwned\x07"}))
    r = clabber("game", "--db", str(tmp_path / "x.db"), "import", str(record))
    assert r.returncode == 2 and "players.N: has a bidirectional control character (U+202E)" in r.stderr
    assert text_problem(r.stderr.replace("\n", " ")) is None
    r = clabber("game", "--db", str(tmp_path / "x.db"), "show", "\x1b[2J")
    assert r.returncode == 2 and "\\x1b[2J" in r.stderr and "\x1b" not in r.stderr


def test_the_escapes_keep_what_is_safe():
    assert terminal_safe("Les Bœufs\n", keep="\n") == "Les Bœufs\n"
    assert terminal_safe("a\u202eb\U000e0001") == "a\\u202eb\\U000e0001"
    text = json.dumps({"n": "a\u202eb\x85\U000110bd"}, ensure_ascii=False)
    assert json.loads(json_safe(text)) == json.loads(text) and text_problem(json_safe(text)) is None
