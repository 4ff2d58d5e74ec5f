"""The result pages: a real server on loopback, real QR codes read back by a real decoder."""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import sqlite3
from urllib.parse import quote

import pytest
import zxingcpp
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from kiosk.store import Store
from shared.share import decode_result, encode_result, result_of
from tests.helpers import clabber_process as clabber
from tests.store_helpers import open_table
from tests.web_helpers import Server


def play_to_the_end(table, teams=("Ruminers", "Mackeys")):
    g = table.new_game(list(teams), ["Ron", "Elbert", "Carolyn", "Walter"], first_dealer="N")
    g = table.add_hand(g.id, {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}})
    g = table.add_hand(g.id, {"trump": "S", "maker": "S", "points": {"NS": 81, "EW": 81}})
    while g.status == "open":
        g = table.add_hand(g.id, {"trump": "S", "maker": "N", "points": {"NS": 162, "EW": 0}})
    return g


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    table = open_table(folder / "clabber.db")
    game = play_to_the_end(table)
    evil = play_to_the_end(table, ("<script>alert(1)</script>", "Mackeys & Co"))
    open_game = table.new_game(["Open", "Game"], first_dealer="E")
    table.store.close()
    server = Server(folder / "clabber.db")
    yield {
        "server": server,
        "db": folder / "clabber.db",
        "game": game,
        "evil": evil,
        "open": open_game,
        "folder": folder,
    }
    assert "Traceback" not in server.close()


def decode_qr(path) -> str:
    found = zxingcpp.read_barcodes(Image.open(path))
    assert len(found) == 1, found
    return found[0].text


def test_the_printed_qr_decodes_to_the_result_page(site):
    png = site["folder"] / "qr.png"
    r = clabber(
        "qr", "--db", str(site["db"]), str(site["game"].id), "--png", str(png), "--public-url", site["server"].base
    )
    assert r.returncode == 0, r.stderr
    url = decode_qr(png)
    assert url == f"{site['server'].base}/g/{site['game'].token}"
    status, kind, html = site["server"].get(url)
    assert status == 200 and kind.startswith("text/html")
    g = site["game"]
    assert "Ruminers" in html and "Mackeys" in html and "Ruminers win." in html
    assert f">{g.sheet.totals[0]} W<" in html and "XX" in html and "Carolyn" in html


@pytest.mark.slow
def test_the_svg_and_text_forms(site):
    svg = site["folder"] / "qr.svg"
    assert clabber("qr", "--db", str(site["db"]), str(site["game"].id), "--svg", str(svg)).returncode == 0
    assert svg.read_text().startswith("<svg")
    r = clabber("qr", "--db", str(site["db"]), str(site["game"].id), "--text")
    assert r.returncode == 0 and "█" in r.stdout
    r = clabber("qr", "--db", str(site["db"]), str(site["game"].id))
    assert r.returncode == 2 and "exactly one of" in r.stderr


def test_the_record_is_served_as_json(site):
    status, kind, body = site["server"].get(f"/g/{site['game'].token}.json")
    assert status == 200 and kind.startswith("application/json")
    assert json.loads(body) == site["game"].record()


def test_the_link_that_carries_the_result_decodes_to_the_same_record(site):
    _, _, html = site["server"].get(f"/g/{site['game'].token}")
    link = re.search(r'href="([^"]+/view#r=[^"]+)"', html).group(1)
    result = decode_result(link.split("#r=", 1)[1])
    assert result["record"] == site["game"].record() and result["winner"] == "NS"
    assert result == json.loads(json.dumps(result_of(site["game"])))
    status, kind, page = site["server"].get("/view")
    assert status == 200 and kind.startswith("text/html") and "DecompressionStream" in page and "MAX_DECODED" in page


def test_the_viewer_caps_what_a_link_may_decode_to():
    big = {"rows": ["x" * 1000] * 200}
    with pytest.raises(ValueError, match="more than"):
        decode_result(encode_result(big), cap=64 * 1024)
    with pytest.raises(ValueError):
        decode_result("not-a-result")


def test_a_team_named_like_a_script_is_shown_as_text(site):
    status, _, html = site["server"].get(f"/g/{site['evil'].token}")
    assert status == 200
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Mackeys &amp; Co" in html


def test_pages_only_by_token_and_nothing_lists_the_games(site):
    paths = ("/", "/recent", "/stats", "/g/", f"/g/{site['game'].token[:-1]}", "/g/1", "/games", "/g/../clabber.db")
    for path in paths:
        status, _, _ = site["server"].get(path)
        assert status == 404, path
    status, _, html = site["server"].get(f"/g/{site['open'].token}")
    assert status == 200 and "The game is not over." in html


@settings(max_examples=120, deadline=None)
@given(st.text(max_size=80))
def test_fuzzed_paths_get_404_never_a_5xx(site, junk):
    junk = quote(junk, safe="/:@!$&'()*+,;=-._~%")  # any text, as a browser would send it
    conn = http.client.HTTPConnection("127.0.0.1", site["server"].port, timeout=10)
    for path in (f"/{junk}", f"/g/{junk}", f"/g/{junk}.json"):
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        assert r.status in (400, 404) or (r.status == 200 and junk in ("view",)), (path, r.status)
    conn.close()


def test_the_web_process_cannot_write_the_file(site):
    def fingerprint():
        conn = sqlite3.connect(f"file:{site['db']}?mode=ro", uri=True)
        rows = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
        conn.close()
        return hashlib.sha256(repr(rows).encode()).hexdigest()

    before = fingerprint()
    for _ in range(5):
        site["server"].get(f"/g/{site['game'].token}")
    assert fingerprint() == before
    reader = Store(site["db"], readonly=True)
    with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only"):
        reader.conn.execute("INSERT INTO settings VALUES ('x', 'y')")
    reader.close()


def test_recent_games_only_where_the_config_allows(tmp_path, site):
    from tests.web_helpers import Server as S

    cfg = tmp_path / "config.toml"
    cfg.write_text('show_recent = true\ntable_name = "Table 3"\n')
    server = S(site["db"], env={"CLABBER_CONFIG": str(cfg)})
    try:
        status, _, html = server.get("/recent")
        assert status == 200 and "Table 3: recent games" in html and site["game"].token in html
    finally:
        server.close()


def test_statistics_only_where_the_config_allows_by_the_names_typed(tmp_path):
    from tests.league_pages_helpers import table_rows
    from tests.web_helpers import Server as S

    table = open_table(tmp_path / "clabber.db")
    table.set_pin("582917")
    play_to_the_end(table)
    play_to_the_end(table, ("ruminers", "<b>Mackeys</b>"))  # the same Ruminers, typed in lower case
    table.new_game(["Ruminers", "Open"], first_dealer="E")  # still in play: not counted
    gone = table.new_game(["Ruminers", "Gone"], first_dealer="E")
    table.abandon(gone.id, "players left", "582917")  # abandoned: not counted
    table.store.close()
    cfg = tmp_path / "config.toml"
    cfg.write_text('show_recent = true\ntable_name = "Table 3"\n')
    server = S(tmp_path / "clabber.db", env={"CLABBER_CONFIG": str(cfg)})
    try:
        status, _, html = server.get("/stats?min=1&sort=average")
        assert status == 200 and "Table 3: statistics" in html and "2 games ended at this table" in html
        rows = table_rows(html)
        games = rows[rows.index(["#", "Team", "G", "W", "W%", "Hands", "Pts ▼", "Best"]) + 1 :][:3]
        # Each game: 70, set, then 162 three times (556 in 5 hands); the others 92 and 81.
        assert games == [
            ["1", "ruminers", "2", "2", "100%", "10", "111.2", "162"],
            ["2", "<b>Mackeys</b>", "1", "0", "0%", "5", "34.6", "92"],
            ["2", "Mackeys", "1", "0", "0%", "5", "34.6", "92"],
        ]
        trump = rows[rows.index(["#", "Team", "Trump", "Made", "Made%", "XX", "XX'd", "P/O"]) + 1 :][0]
        assert trump == ["1", "ruminers", "8", "6", "75%", "2", "0", "0"]
        assert "<b>Mackeys</b>" not in html and "&lt;b&gt;Mackeys&lt;/b&gt;" in html
        assert ["1", "Carolyn ruminers", "2", "2", "100%", "10", "111.2", "162"] in rows  # S, with Ron
        status, _, html = server.get("/stats")  # nobody has 3 games: those with the most (2) are listed
        assert "at least 2 games" in html and "No teams with" not in html and ">ruminers<" in html
        status, _, html = server.get("/stats?min=3")
        assert "at least 3 games" in html and "No teams with 3 games or more yet." in html
    finally:
        server.close()


def test_a_correction_is_marked_on_the_page_and_in_the_record(tmp_path):
    table = open_table(tmp_path / "clabber.db")
    table.set_pin("582917")
    game = play_to_the_end(table)
    plain = play_to_the_end(table, ("Pinochlers", "Bellmen"))
    reason = "NS counted the last trick twice <b>"
    game = table.correct(game.id, 1, {"trump": "H", "maker": "E", "points": {"NS": 60, "EW": 102}}, reason, "582917")
    table.store.close()
    server = Server(tmp_path / "clabber.db")
    try:
        status, _, html = server.get(f"/g/{game.token}")
        sheet = html.split('<table id="sheet">', 1)[1].split("</table>", 1)[0]
        first, second = re.findall(r"<tr><td>\d+</td>.*?</tr>", sheet, re.S)[:2]
        assert status == 200 and 'class="corrected"' in first and "corrected" not in second
        assert "Hand 1 corrected" in html and "NS counted the last trick twice &lt;b&gt;" in html
        status, _, body = server.get(f"/g/{game.token}.json")
        record = json.loads(body)
        [correction] = record.pop("corrections")
        assert record == game.record() and record["hands"][0]["points"] == {"NS": 60, "EW": 102}
        assert correction["hand"] == 1 and correction["reason"] == reason.strip() and correction["by"] == "owner"
        assert correction["at"] == game.hands[0].corrections[0].at
        saved = tmp_path / "game.json"
        saved.write_text(body)
        r = clabber("sheet", str(saved))  # the record as served is still a record the tools read
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["totals"] == {"NS": game.sheet.totals[0], "EW": game.sheet.totals[1]}
        status, _, html = server.get(f"/g/{plain.token}")
        assert 'class="corrected"' not in html
        assert "corrections" not in json.loads(server.get(f"/g/{plain.token}.json")[2])
    finally:
        assert "Traceback" not in server.close()
