"""A season's standings and games as CSV and JSON, on SQLite and PostgreSQL: the organiser's downloads
and ``clabber league export``. The CSV parses back to the standings; each kiosk game's record is read
back by the engine (and by ``clabber sheet``) to the points the league holds."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from engine.record import read_game
from league.organiser.actions import Organiser
from league.pages import make_app
from league.store.core import Store
from shared.cli import cli
from tests.league_stats_helpers import generated_season, small_season


@pytest.fixture
def season(league_db, tmp_path):
    store = Store(league_db)
    yield {**small_season(store, tmp_path), "store": store, "db": league_db, "tmp": tmp_path}
    store.close()


def _run(db: str, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["league", "--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


def _standings_as_text(org: Organiser, division: int) -> list[dict[str, str]]:
    return [
        {
            "division": "Division 1",
            "position": str(x.position),
            "team": x.name,
            "played": str(x.played),
            "won": str(x.won),
            "lost": str(x.lost),
            "tied": str(x.tied),
            "wins": f"{float(x.wins):g}",
            "points_for": str(x.points_for),
            "points_against": str(x.points_against),
            "difference": str(x.difference),
        }
        for x in org.standings(division)
    ]


def _points_by_side(game: dict) -> dict[str, int]:
    """The league's points of a kiosk game, by the seats its teams sat at."""
    a_sat_ns = game["sides"]["NS"] == game["teams"]["a"]["id"]
    a, b = game["points"]["a"], game["points"]["b"]
    return {"NS": a, "EW": b} if a_sat_ns else {"NS": b, "EW": a}


def test_the_standings_download_parses_back_to_the_standings(season):
    client = TestClient(make_app(season["store"]))
    page = client.get(f"/seasons/{season['season']}").text
    for what in ("standings.csv", "standings.json", "games.csv", "games.json"):
        assert f'href="/seasons/{season["season"]}/{what}"' in page
    got = client.get(f"/seasons/{season['season']}/standings.csv")
    assert got.status_code == 200 and got.headers["content-type"] == "text/csv; charset=utf-8"
    assert got.headers["content-disposition"] == f'attachment; filename="season-{season["season"]}-standings.csv"'
    rows = list(csv.DictReader(io.StringIO(got.text)))
    assert rows == _standings_as_text(season["org"], season["division"])
    assert [r["team"] for r in rows] == ["Aces", "Kings", "Queens", "Jacks"]  # Aces 3 wins, the forfeit among them
    data = client.get(f"/seasons/{season['season']}/standings.json").json()
    lines = [x.to_json() for x in season["org"].standings(season["division"])]
    assert data["season"] == {"id": season["season"], "name": "Winter 2026"} and data["league"] == "Tuesday nights"
    assert data["divisions"] == [{"id": season["division"], "name": "Division 1", "standings": lines}]
    assert client.get("/seasons/99/standings.csv").status_code == 404


def test_each_kiosk_games_record_reads_back_to_the_points_the_league_holds(season, tmp_path):
    client = TestClient(make_app(season["store"]))
    got = client.get(f"/seasons/{season['season']}/games.json")
    assert got.headers["content-disposition"].endswith('games.json"')
    games = got.json()["games"]
    assert [(g["played_at"], g["result"]) for g in games] == [("by hand", "a"), ("kiosk", "b"), ("kiosk", "a")]
    by_hand = games[0]
    assert "record" not in by_hand and (by_hand["teams"]["a"]["name"], by_hand["points"]) == (
        "Kings",
        {"a": 660, "b": 580},
    )
    for g in games[1:]:
        record = g["record"]
        assert record["format"] == "clabber-game/1"
        # The teams by the league's names at the seats they sat at; the players as typed.
        names = {g["teams"][s]["id"]: g["teams"][s]["name"] for s in "ab"}
        assert record["teams"] == {"NS": names[g["sides"]["NS"]], "EW": names[g["sides"]["EW"]]}
        sheet = read_game(record).sheet()
        assert dict(zip(("NS", "EW"), sheet.totals, strict=True)) == _points_by_side(g)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(games[1]["record"]))
    result = CliRunner().invoke(cli, ["sheet", str(path)])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["totals"] == _points_by_side(games[1]) == {"NS": 150, "EW": 616}
    rows = list(csv.DictReader(io.StringIO(client.get(f"/seasons/{season['season']}/games.csv").text)))
    first = rows[0]
    assert [first[k] for k in ("team_a", "points_a", "points_b", "result", "played_at")] == [
        "Kings",
        "660",
        "580",
        "a",
        "by hand",
    ]
    assert len(rows) == 3


def test_export_from_the_command_line(season, tmp_path):
    db, s = season["db"], str(season["season"])
    code, out, err = _run(db, "export", s)
    assert (code, err) == (0, "") and json.loads(out)["divisions"][0]["standings"][0]["name"] == "Aces"
    out_file = tmp_path / "standings.csv"
    code, out, err = _run(db, "export", s, "--format", "csv", "--what", "standings", "--out", str(out_file))
    assert (code, out) == (0, "") and "written to" in err
    rows = list(csv.DictReader(io.StringIO(out_file.read_text(encoding="utf-8"))))
    assert rows == _standings_as_text(season["org"], season["division"])
    code, out, _ = _run(db, "export", s, "--what", "games", "--format", "json")
    games = json.loads(out)["games"]
    assert [(g["played_at"], "record" in g) for g in games] == [("by hand", False), ("kiosk", True), ("kiosk", True)]
    assert games[0]["game"] == season["game3"]
    assert _run(db, "export", "99") == (2, "", "league: there is no season 99\n")
    code, _, err = _run(db, "export", s, "--out", str(tmp_path / "no" / "such" / "folder.csv"))
    assert code == 2 and err.startswith("league: export: cannot write")


def test_a_name_a_spreadsheet_would_run_as_a_formula_is_written_as_text(league_db):
    store = Store(league_db)
    org = Organiser(store)
    league = org.create_league("L")
    season, division = org.create_season(league, "S")
    org.add_team(division, "=HYPERLINK(1)", ["+a", "b"])
    org.add_team(division, "Kings", ["c", "d"])
    text = TestClient(make_app(store)).get(f"/seasons/{season}/standings.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["team"] for r in rows} == {"'=HYPERLINK(1)", "Kings"}
    assert all(r["difference"] == "0" for r in rows)
    data = TestClient(make_app(store)).get(f"/seasons/{season}/standings.json").json()
    assert {x["name"] for x in data["divisions"][0]["standings"]} == {"=HYPERLINK(1)", "Kings"}
    store.close()


@pytest.mark.slow
def test_every_record_of_a_generated_season_reads_back(league_db, tmp_path):
    """Whole hands card by card, corrections after the end, undos, rulings: the engine reads each record
    to the table's totals; a ruled game keeps the table's points."""
    store = Store(league_db)
    w = generated_season(store, tmp_path)
    games = json.loads(_run(league_db, "export", str(w["season"]), "--what", "games")[1])["games"]
    kiosk = [g for g in games if g["played_at"] == "kiosk"]
    assert len(kiosk) >= 70 and any(g["ruling"] for g in kiosk)
    corrected = 0
    for g in kiosk:
        record = g["record"]
        corrected += bool(record.get("corrections"))
        assert dict(zip(("NS", "EW"), read_game(record).sheet().totals, strict=True)) == _points_by_side(g)
    assert corrected > 0
    store.close()
