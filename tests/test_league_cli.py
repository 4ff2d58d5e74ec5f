"""``clabber league ...`` in process through click's runner, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

from click.testing import CliRunner

from shared.cli import cli


def _run(db: str, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["league", "--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


def test_a_season_from_the_command_line(league_db):
    assert _run(league_db, "create", "Tuesday nights") == (0, "1\n", "")
    assert _run(league_db, "season", "1", "Winter", "--ranking", "game_points")[1] == "1 1\n"
    for i, name in enumerate(["Aces", "Kings", "Queens"], 1):
        assert _run(league_db, "team", "1", name, "--player", f"P{i}", "--player", f"Q{i}")[1] == f"{i}\n"
    assert _run(league_db, "venue", "1", "Germania", "--tables", "2")[1] == "1\n"
    assert _run(league_db, "schedule", "1", "--start", "2026-01-06")[1] == "3 rounds\n"
    code, out, _ = _run(league_db, "schedule", "1")
    assert code == 0 and out.count("bye") == 3 and "round  1  2026-01-06" in out
    meetings = [m for m in json.loads(_run(league_db, "schedule", "1", "--json")[1]) if m["team_b"]]
    m, names = meetings[0], {1: "Aces", 2: "Kings", 3: "Queens"}
    a, b = names[m["team_a"]], names[m["team_b"]]
    # What the result will do, before it counts: nothing is written.
    said = f"{a} beat {b} 521–497; {a} stay 1st, {b} go down to 2nd.\n"
    assert _run(league_db, "game", str(m["id"]), "521", "497", "a", "--dry-run") == (0, said, "")
    assert json.loads(_run(league_db, "standings", "1", "--json")[1])[0]["played"] == 0
    assert _run(league_db, "game", str(m["id"]), "521", "497", "a") == (0, "1\n", said)
    code, out, _ = _run(league_db, "standings", "1", "--json")
    lines = json.loads(out)
    winner = meetings[0]["team_a"]
    assert lines[0]["team"] == winner and lines[0]["points_for"] == 521 and lines[0]["wins"] == 1.0
    code, out, _ = _run(league_db, "standings", "1")
    assert code == 0 and out.splitlines()[1].split()[:2] == ["1", ["Aces", "Kings", "Queens"][winner - 1]]
    assert _run(league_db, "rebuild")[1].endswith("events replayed; 0 kiosk games' figures written\n")


def test_refusals_are_one_line_and_a_status(league_db, tmp_path):
    assert _run(league_db, "create", "L")[0] == 0
    assert _run(league_db, "team", "7", "X", "--player", "a", "--player", "b") == (
        2,
        "",
        "league: there is no division 7\n",
    )
    code, out, err = _run(league_db, "season", "1", "S", "--tie-breakers", "coin")
    assert (code, out) == (2, "") and "tie_breakers[0]: must be one of" in err
    code, _, err = _run("postgresql://nobody@127.0.0.1:1/none", "create", "L")
    assert code == 3 and err.startswith("league: cannot use postgresql+psycopg://nobody@127.0.0.1:1/none")


def test_a_result_no_game_ends_with_is_refused_naming_why(league_db):
    _run(league_db, "create", "L")
    _run(league_db, "season", "1", "Winter", "--games-per-meeting", "3")
    for name in ("Aces", "Kings"):
        assert _run(league_db, "team", "1", name, "--player", f"{name} 1", "--player", f"{name} 2")[0] == 0
    _run(league_db, "venue", "1", "Germania")
    _run(league_db, "schedule", "1", "--start", "2026-01-06")
    m = str(next(x for x in json.loads(_run(league_db, "schedule", "1", "--json")[1]) if x["team_b"])["id"])
    for args, says in [
        ((m, "200", "600", "a"), "the first team won with 200, short of the target 500: swap a and b?"),
        ((m, "510", "600", "a"), "the first team won with 510 against 600: the winner has more points"),
        (
            ("--", m, "-300", "-5000", "tie"),
            "the first team's points: -300 is not a game's points (whole, from 0 to 981)",
        ),
        ((m, "512", "500", "tie"), "a tie is equal totals of 500 or more, not 512–500"),
        ((m, "300", "200", "abandoned"), "abandoned: a reason is needed"),
        ((m, "600", "982", "b"), "the second team's points: 982 is not a game's points"),
    ]:
        code, out, err = _run(league_db, "game", *args)
        assert (code, out) == (2, "") and says in err, (args, err)
    assert json.loads(_run(league_db, "standings", "1", "--json")[1])[0]["played"] == 0
    # What the rules allow is counted: a tie at the target, and a game abandoned with why.
    assert _run(league_db, "game", m, "512", "512", "tie")[0] == 0
    code, out, err = _run(league_db, "game", m, "300", "200", "abandoned", "--reason", "the bar closed")
    assert code == 0 and "game, abandoned at 300–200, counts for nobody." in err
