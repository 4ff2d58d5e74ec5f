"""``clabber game``, ``clabber db`` and ``clabber pin`` on a real database file (in process; one as a process)."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from tests.helpers import clabber, clabber_process, write_json
from tests.store_helpers import QUICK_HANDS


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "kiosk.db")


def run(db, *args, stdin=None, env=None):
    return clabber(*args[:1], "--db", db, *args[1:], stdin=stdin, env=env)


def new_game(db, *extra):
    r = run(db, "game", "new", "--teams", "Ruminers", "Mackeys", "--first-dealer", "N", *extra)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_new_hand_show_and_list(db):
    g = new_game(db, "--players", "Ron", "Elbert", "Carolyn", "Walter", "--rules", "pagat")
    r = run(db, "game", "hand", g, "-", stdin=json.dumps({"format": "clabber-hand/1", **QUICK_HANDS[0]}))
    row = json.loads(r.stdout)
    assert row["hand"] == 1 and row["score"] == {"NS": 70, "EW": 92} and row["dealer"] == "N"
    shown = json.loads(run(db, "game", "show", g).stdout)
    assert shown["teams"] == {"NS": "Ruminers", "EW": "Mackeys"} and shown["dealer"] == "E"
    assert shown["rules"] == "pagat" and shown["totals"] == {"NS": 70, "EW": 92}
    listing = run(db, "game", "list").stdout
    assert "Ruminers 70 – 92 Mackeys" in listing and "dealer E" in listing


def test_the_database_path_comes_from_clabber_db_too(tmp_path):
    path = tmp_path / "env.db"
    r = clabber("game", "list", env={"CLABBER_DB": str(path)})
    assert r.returncode == 0 and path.exists()


def test_deal_undo_and_the_jack_draw(db):
    g = new_game(db)
    assert run(db, "game", "deal", g, "next").stdout.strip() == "dealer E"
    assert "dealer N" in run(db, "game", "undo", g).stdout
    drawn = run(db, "game", "new", "--teams", "A", "B").stdout.strip()
    assert json.loads(run(db, "game", "show", drawn).stdout)["dealer"] in "NESW"


def test_the_jack_draw_says_who_changes_seats_and_their_names_go_with_them(db):
    typed = dict(zip("NESW", ["Ann", "Cy", "Bob", "Di"], strict=True))
    seen_a_change = False
    for _ in range(12):  # the draw is random: most draws change seats, some do not
        r = run(db, "game", "new", "--teams", "A", "B", "--players", *typed.values())
        shown = json.loads(run(db, "game", "show", r.stdout.strip()).stdout)
        said = re.fullmatch(r"the Jack draw: ([NESW]) deals first(?:; ([NESW]) and ([NESW]) change seats)?\n", r.stderr)
        assert said, r.stderr
        assert shown["dealer"] == said[1]
        moved = dict(typed)
        if said[2]:
            seen_a_change = True
            moved[said[2]], moved[said[3]] = typed[said[3]], typed[said[2]]
        assert shown["players"] == moved and shown["teams"] == {"NS": "A", "EW": "B"}
    assert seen_a_change


def test_correct_with_pin_and_reason(db, tmp_path):
    g = new_game(db)
    run(db, "game", "hand", g, str(write_json(tmp_path / "h.json", QUICK_HANDS[0])))
    fixed = write_json(tmp_path / "fixed.json", {"trump": "H", "maker": "E", "points": {"NS": 100, "EW": 62}})
    r = run(db, "game", "correct", g, "1", str(fixed), "--reason", "typo", env={"CLABBER_PIN": "739146"})
    assert r.returncode == 2 and "no owner PIN" in r.stderr and r.stdout == ""
    assert run(db, "pin", "set", stdin="739146\n").returncode == 0  # typed at the prompt
    r = run(db, "game", "correct", g, "1", str(fixed), "--reason", "typo", env={"CLABBER_PIN": "739146"})
    assert json.loads(r.stdout)["marks"] == {"NS": "", "EW": "XX"}
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT reason, authorised_by FROM events WHERE kind = 'hand_corrected'").fetchone() == (
        "typo",
        "owner",
    )


def test_export_import_round_trip_into_a_fresh_database(db, tmp_path):
    g = new_game(db)
    for h in QUICK_HANDS[:3]:
        run(db, "game", "hand", g, "-", stdin=json.dumps(h))
    exported = run(db, "game", "export", g).stdout
    other = str(tmp_path / "other.db")
    g2 = run(other, "game", "import", "-", stdin=exported).stdout.strip()
    assert run(other, "game", "export", g2).stdout == exported


def test_db_check_rebuild_backup_restore(db, tmp_path):
    g = new_game(db)
    run(db, "game", "hand", g, "-", stdin=json.dumps(QUICK_HANDS[0]))
    assert run(db, "db", "check").stdout.strip().endswith(": ok")
    assert "rebuilt 1 games" in run(db, "db", "rebuild").stdout
    backup = run(db, "db", "backup", "--to", str(tmp_path / "b")).stdout.strip()
    run(db, "game", "hand", g, "-", stdin=json.dumps(QUICK_HANDS[1]))
    r = run(db, "db", "restore", backup)
    assert r.returncode == 0 and "replaced database is kept" in r.stdout
    assert json.loads(run(db, "game", "show", g).stdout)["totals"] == {"NS": 70, "EW": 92}


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("game", "show", "7"), None, "there is no game 7"),
        (("game", "show", "seven"), None, "not a game number"),
        (("game", "hand", "1", "-"), '{"trump": "H", "maker": "E", "points": {"NS": 1, "EW": 161}}', "points.NS"),
        (("game", "hand", "1", "-"), "{nope", "not JSON"),
        (("game", "import", "-"), '{"format": "clabber-game/1", "hands": [{"dealer": "Q"}]}', "hands[0].dealer"),
        (("game", "deal", "1", "next"), None, "there is no game 1"),
        (("db", "restore", "/nonexistent.db"), None, "will not restore"),
        (("pin", "set"), "12\n", "6 to 12 digits"),
        (("pin", "set"), "123456\n", "too easy to guess"),
    ],
)
def test_refusals_exit_2_with_a_message_and_no_traceback(db, args, stdin, message):
    if args[:2] == ("game", "hand"):
        new_game(db)
    r = run(db, *args, stdin=stdin)
    assert r.returncode == 2 and r.stdout == "" and message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_a_damaged_database_is_reported_and_set_aside(db, tmp_path):
    new_game(db)
    run(db, "db", "backup")
    with open(db, "r+b") as f:
        f.seek(100)
        f.write(b"\xff" * 3000)
    r = clabber_process("game", "--db", db, "list")  # the notice is the log line a process prints
    assert r.returncode == 0 and "The database was damaged" in r.stderr and "Ruminers" in r.stdout


def test_a_bad_config_value_names_the_key(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('backups_keep = "many"\n')
    r = clabber("game", "list", env={"CLABBER_CONFIG": str(cfg), "CLABBER_DB": str(tmp_path / "x.db")})
    assert r.returncode == 2 and "backups_keep" in r.stderr and "Traceback" not in r.stderr
