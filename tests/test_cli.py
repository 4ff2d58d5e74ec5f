"""The ``clabber`` command as a subprocess on real files (HAND-RECORD.md: The command line)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import clabber, write_json
from tests.records import DEAL, LAWFUL, RENEGE

HAND = "clabber-hand/1"
QUICK = {"format": HAND, "dealer": "E", "trump": "H", "maker": "S", "points": {"NS": 70, "EW": 92}}
SCORE_KEYS = {
    "valid",
    "passed_out",
    "trump",
    "maker",
    "makers",
    "tricks",
    "melds",
    "bell",
    "totals",
    "score",
    "set",
    "meld_winner",
    "renege",
    "next_dealer",
}
ROW_KEYS = {"hand", "dealer", "score", "marks", "totals", "set", "passed_out", "makers", "renege", "next_dealer"}


def test_score_prints_the_contracts_object(tmp_path):
    r = clabber("score", str(write_json(tmp_path / "h.json", {**QUICK, "melds": {"N": [["KH", "QH", "JH"]]}})))
    assert r.returncode == 0 and r.stderr == ""
    out = json.loads(r.stdout)
    assert set(out) >= SCORE_KEYS
    assert out["score"] == {"NS": 110, "EW": 92} and out["melds"] == {"NS": 20, "EW": 0}
    assert out["bell"] == {"NS": 20, "EW": 0} and out["maker"] == "S" and out["makers"] == "NS"
    assert out["meld_winner"] == "NS" and out["next_dealer"] == "S" and out["set"] is False


def test_score_reads_standard_input():
    r = clabber("score", "-", stdin=json.dumps({**QUICK, "points": {"NS": 81, "EW": 81}}))
    assert json.loads(r.stdout)["score"] == {"NS": 0, "EW": 81}


def test_score_reports_a_proven_renege_with_seat_trick_and_card(tmp_path):
    rec = {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play"], "plays": RENEGE}
    out = json.loads(clabber("score", str(write_json(tmp_path / "r.json", rec))).stdout)
    assert out["renege"] == {
        "by": "EW",
        "seat": "E",
        "trick": 2,
        "card": "AC",
        "reason": "must trump, holding 10♥",
        "legal": ["TH"],
    }
    assert out["score"] == {"NS": 182, "EW": 0}


def test_both_teams_renege_is_void(tmp_path):
    rec = {
        "format": HAND,
        "dealer": "N",
        "up": "9H",
        "bids": ["play"],
        "plays": RENEGE,
        "renege": {"by": "NS", "reason": "advised partner"},
    }
    out = json.loads(clabber("score", str(write_json(tmp_path / "r.json", rec))).stdout)
    assert out["renege"]["void"] is True and out["score"] == {"NS": 0, "EW": 0} and out["next_dealer"] == "N"


def test_sheet_prints_rows_totals_and_the_winner(tmp_path):
    game = {
        "format": "clabber-game/1",
        "rules": {"target": 150},
        "teams": {"NS": "Ruminers", "EW": "Mackeys"},
        "hands": [
            {k: v for k, v in QUICK.items() if k != "format"},
            {"dealer": "S", "trump": "C", "maker": "W", "points": {"NS": 20, "EW": 142}},
        ],
    }
    r = clabber("sheet", str(write_json(tmp_path / "g.json", game)))
    out = json.loads(r.stdout)
    assert r.returncode == 0 and all(set(row) >= ROW_KEYS for row in out["rows"])
    assert out["totals"] == {"NS": 20, "EW": 234} and out["over"] and out["winner"] == "EW"
    assert [row["marks"] for row in out["rows"]] == [{"NS": "XX", "EW": ""}, {"NS": "", "EW": ""}]


def test_replay_tells_the_hand_trick_by_trick_with_the_renege(tmp_path):
    rec = {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play"], "hands": DEAL, "plays": RENEGE}
    r = clabber("replay", str(write_json(tmp_path / "r.json", rec)))
    assert r.returncode == 0
    text = r.stdout
    assert "Trick 1: E leads" in text and "Trick 2: N leads" in text
    assert "RENEGE by E (EW): played A♣ — must trump, holding 10♥. Legal: 10♥" in text
    assert "won by N (NS): 46 points" in text
    assert "On the sheet: NS 182, EW 0" in text


def test_replay_of_a_lawful_hand_shows_each_players_cards_and_points_so_far(tmp_path):
    rec = {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play"], "plays": LAWFUL}
    text = clabber("replay", str(write_json(tmp_path / "l.json", rec))).stdout
    assert "E plays A♥   left: 10♥ 9♦ A♣ 10♣ K♣" in text
    assert "So far NS 110, EW 52" in text and "RENEGE" not in text


Q = {k: v for k, v in QUICK.items()}
IMPOSSIBLE = [
    ("card-twice", {**Q, "plays": ["9S", "9S"]}, "plays[1]"),
    ("seventh-card", {**Q, "hands": {"N": ["9S", "TS", "JS", "QS", "KS", "AS", "9H"]}}, "hands.N"),
    ("points-not-162", {**Q, "points": {"NS": 80, "EW": 80}}, "points"),
    ("point-one", {**Q, "points": {"NS": 1, "EW": 161}}, "points.NS"),
    ("meld-in-two-seats", {**Q, "melds": {"N": [["AS", "KS", "QS"]], "E": [["KS", "QS", "JS"]]}}, "melds.E[0]"),
    ("card-in-two-melds", {**Q, "melds": {"N": [["QC", "QD", "QH", "QS"], ["QS", "JS", "TS"]]}}, "melds.N[1]"),
    (
        "same-four-both-teams",
        {**Q, "melds": {"N": [["9C", "9D", "9H", "9S"]], "E": [["9C", "9D", "9H", "9S"]]}},
        "melds.E[0]",
    ),
    (
        "sequence-through-a-four",
        {**Q, "melds": {"N": [["AC", "AD", "AH", "AS"]], "S": [["AS", "KS", "QS"]]}},
        "melds.S[0]",
    ),
    ("bell-and-sequence-share-trump-king", {**Q, "bell": "W", "melds": {"N": [["AH", "KH", "QH"]]}}, "melds.N[0]"),
    ("seven-cards-of-melds", {**Q, "melds": {"N": [["JC", "JD", "JH", "JS"], ["AC", "KC", "QC"]]}}, "melds.N[1]"),
    ("not-a-meld", {**Q, "melds": {"N": [["AS", "KS", "JS"]]}}, "melds.N[0]"),
    ("bid-after-the-bidding-ended", {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play", "pass"]}, "bids[1]"),
    ("round-2-names-up-suit", {**Q, "up": "9H", "round": 2}, "trump"),
    ("round-1-other-suit", {**Q, "up": "9S", "round": 1}, "trump"),
    ("unknown-dealer", {**Q, "dealer": "X"}, "dealer"),
    ("unknown-trump", {**Q, "trump": "Z"}, "trump"),
    ("maker-not-a-seat", {**Q, "maker": "NS"}, "maker"),
    ("unknown-field", {**Q, "scores": 3}, "scores"),
    ("wrong-format", {**Q, "format": "clabber-hand/9"}, "format"),
    ("unknown-preset", {**Q, "rules": "vegas"}, "rules"),
    ("unknown-variant-value", {**Q, "rules": {"pass_out_deal": "sometimes"}}, "rules.pass_out_deal"),
    ("renege-by-no-team", {**Q, "renege": {"by": "NE", "reason": "x"}}, "renege.by"),
    ("up-card-not-dealers", {"format": HAND, "dealer": "N", "up": "AC", "hands": DEAL, "bids": ["play"]}, "up"),
    (
        "card-not-in-hand",
        {"format": HAND, "dealer": "N", "up": "9H", "hands": DEAL, "bids": ["play"], "plays": ["JC"]},
        "plays[0]",
    ),
    (
        "plays-stop-without-renege",
        {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play"], "plays": LAWFUL[:7]},
        "plays",
    ),
    (
        "points-contradict-plays",
        {"format": HAND, "dealer": "N", "up": "9H", "bids": ["play"], "plays": LAWFUL, "points": {"NS": 80, "EW": 82}},
        "points",
    ),
    ("twenty-five-plays", {**Q, "points": None, "plays": [*LAWFUL, "9S"]}, "plays"),
    ("no-result", {"format": HAND, "dealer": "N", "trump": "S", "maker": "E"}, "points"),
    ("missing-dealer", {"format": HAND, "trump": "S", "maker": "E", "points": {"NS": 80, "EW": 82}}, "dealer"),
    ("trump-without-maker", {"format": HAND, "dealer": "N", "trump": "S", "points": {"NS": 80, "EW": 82}}, "maker"),
    (
        "melds-in-a-pass-out",
        {"format": HAND, "dealer": "N", "passed_out": True, "melds": {"N": [["AS", "KS", "QS"]]}},
        "melds.N[0]",
    ),
    ("bell-without-trump", {"format": HAND, "dealer": "N", "passed_out": True, "bell": "N"}, "bell"),
    ("a-game-record", {"format": "clabber-game/1", "hands": []}, "format"),
    ("not-an-object", ["AS"], "hand record"),
]


@pytest.mark.parametrize(("record", "where"), [pytest.param(r, w, id=k) for k, r, w in IMPOSSIBLE])
def test_impossible_records_are_refused_with_status_2_and_the_field_named(tmp_path, record, where):
    r = clabber("score", str(write_json(tmp_path / "bad.json", record)))
    assert r.returncode == 2, r.stdout
    assert r.stdout == ""
    assert where in r.stderr and "Traceback" not in r.stderr
    assert all(":" in line for line in r.stderr.splitlines())


def test_every_problem_gets_its_own_line(tmp_path):
    bad = {**Q, "dealer": "X", "trump": "Z", "scores": 1}
    lines = clabber("score", str(write_json(tmp_path / "bad.json", bad))).stderr.splitlines()
    assert {line.split(":")[0] for line in lines} == {"dealer", "trump", "scores"}


def test_a_game_hand_after_the_end_is_refused(tmp_path):
    hand = {"dealer": "N", "trump": "S", "maker": "N", "points": {"NS": 162, "EW": 0}}
    game = {"format": "clabber-game/1", "rules": {"target": 100}, "hands": [hand, {**hand, "dealer": "E"}]}
    r = clabber("sheet", str(write_json(tmp_path / "g.json", game)))
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("hands[1]: the game was over")


def test_a_game_names_the_hand_and_field_of_a_problem(tmp_path):
    game = {"format": "clabber-game/1", "teams": {"NS": ""}, "hands": [{"dealer": "N", "trump": "S", "maker": "Q"}]}
    r = clabber("sheet", str(write_json(tmp_path / "g.json", game)))
    assert r.returncode == 2 and "teams.NS" in r.stderr and "hands[0].maker" in r.stderr


@pytest.mark.parametrize("text", ["", "{", "nul", "\x00\x01", "[" * 100000])
def test_text_that_is_not_json_is_refused_without_a_traceback(text):
    r = clabber("score", "-", stdin=text)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr and r.stderr.strip()


def test_a_missing_file_is_refused_with_its_name():
    r = clabber("sheet", "/nonexistent/game.json")
    assert r.returncode == 2 and r.stderr.startswith("/nonexistent/game.json: cannot read")


def test_score_does_not_load_kivy_or_the_web_server(tmp_path):
    import subprocess
    import sys

    record = write_json(tmp_path / "h.json", QUICK)
    heavy = ("kivy", "sqlite_utils", "starlette", "uvicorn", "jinja2", "gpiozero", "qrcode")
    code = (
        "import sys, json\n"
        "from shared.cli import cli\n"
        f"cli.main(['score', {str(record)!r}], standalone_mode=False)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == []


def test_the_kiosk_command_does_not_load_the_league():
    """``clabber kiosk`` is looked up in the kiosk's part alone: the league's libraries (SQLAlchemy, its
    migrations, PostgreSQL's driver) cost a table's start-up half a second on a Pi-sized machine."""
    import subprocess
    import sys

    heavy = ("sqlalchemy", "alembic", "psycopg", "league")
    code = (
        "import sys, json\n"
        "from shared.cli import cli\n"
        "try:\n"
        "    cli.main(['kiosk', '--help'], standalone_mode=False)\n"
        "finally:\n"
        f"    print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == []
