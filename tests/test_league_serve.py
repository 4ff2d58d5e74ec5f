"""``clabber league serve`` as a real uvicorn process on 127.0.0.1, and the kiosk commands of
``clabber league``, on SQLite and PostgreSQL."""

from __future__ import annotations

import http.client
import json
import socket

import pytest
from click.testing import CliRunner

from league.store.core import Store
from shared.cli import cli
from tests.league_kiosk_helpers import NIGHT, kiosk_game, league_with_schedule, refused_event, snapshot
from tests.league_server import league_server


def _run(db: str, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["league", "--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def served(league_db):
    store = Store(league_db)
    world = league_with_schedule(store)
    with league_server(league_db) as api:
        yield {**world, "store": store, "api": api, "db": league_db}
    store.close()


@pytest.mark.slow
def test_two_kiosks_enrol_push_real_games_and_pull_tonight_over_http(served, tmp_path):
    api, db = served["api"], served["db"]
    here, there = served["venues"]
    keys = {}
    for venue in (here, there):
        code, out, err = _run(db, "enrol-code", str(venue), "1")
        assert code == 0 and "valid once" in err
        status, got = api.call("POST", "/api/v1/enrol", {"code": out.strip()})
        assert status == 200 and got["venue"]["id"] == venue
        keys[venue] = got["key"]
        # The same code again is refused.
        assert api.call("POST", "/api/v1/enrol", {"code": out.strip()})[0] == 403

    status, tonight = api.call("GET", f"/api/v1/tonight?date={NIGHT}", key=keys[here])
    assert status == 200 and [m["meeting"] for m in tonight["meetings"]] == [served["meeting_at"][here]]

    game = kiosk_game(tmp_path, teams=served["teams_at"][here])  # a correction among its hands
    game = [*game[:3], refused_event(4), *({**e, "seq": e["seq"] + 1} for e in game[3:])]
    meeting = served["meeting_at"][here]
    batch = lambda events: {"games": [{"game": 1, "meeting": meeting, "events": events}]}  # noqa: E731

    status, got = api.call("POST", "/api/v1/push", batch(game[:5]), keys[here])
    assert status == 200 and got["games"][0]["acked"] == 5
    assert [q["seq"] for q in got["games"][0]["quarantined"]] == [4]
    status, got = api.call("POST", "/api/v1/push", batch(game[7:]), keys[here])  # 6 and 7 lost
    assert got["games"][0]["resend_from"] == 6 and got["games"][0]["stored"] == 0
    status, got = api.call("POST", "/api/v1/push", batch(game[3:]), keys[here])  # from 4: 4 and 5 twice
    assert got["games"][0] | {"quarantined": None} == {
        "game": 1,
        "meeting": meeting,
        "acked": len(game),
        "stored": len(game) - 5,
        "duplicates": 2,
        "quarantined": None,
        "diverged": [],
        "resend_from": None,
    }
    before = snapshot(served["store"])
    assert api.call("POST", "/api/v1/push", batch(game), keys[here])[1]["games"][0]["duplicates"] == len(game)
    assert snapshot(served["store"]) == before

    # The other venue's kiosk cannot push to this venue's meeting: refused, nothing written.
    status, got = api.call("POST", "/api/v1/push", batch(game), keys[there])
    assert status == 403 and "not at this kiosk's venue" in got["error"]
    assert snapshot(served["store"]) == before

    code, out, _ = _run(db, "quarantine")
    held = json.loads(out)
    assert code == 0 and [(q["seq"], q["event"]["kind"]) for q in held] == [(4, "hand_entered")]

    # Revoked from the command line: the key is refused at once.
    kiosks = json.loads(_run(db, "kiosks", "--json")[1])
    assert len(kiosks) == 2 and "key" not in json.dumps(kiosks)
    lines = _run(db, "kiosks")[1].splitlines()  # the organiser's reading: a line a kiosk, no key either
    assert len(lines) == 2 and not any(keys[v] in line for v in keys for line in lines)
    mine = next(k["id"] for k in kiosks if k["venue_id"] == here)
    assert _run(db, "revoke", str(mine))[0] == 0
    assert api.call("GET", "/api/v1/tonight", key=keys[here])[0] == 401
    assert _run(db, "revoke", str(mine)) == (2, "", f"league: kiosk {mine}'s key is already revoked\n")


@pytest.mark.slow
def test_the_same_server_serves_the_pages(served):
    conn = http.client.HTTPConnection("127.0.0.1", served["api"].port, timeout=10)
    try:
        conn.request("GET", "/")
        r = conn.getresponse()
        body = r.read().decode()
    finally:
        conn.close()
    assert r.status == 200 and "text/html" in r.getheader("Content-Type", "")
    assert "default-src 'none'" in r.getheader("Content-Security-Policy", "")
    assert "Evansville Clabber League" in body  # the league the fixture made, on its public page


def test_enrol_code_refusals_are_one_line(league_db):
    store = Store(league_db)
    league_with_schedule(store)
    store.close()
    assert _run(league_db, "enrol-code", "1", "9") == (2, "", "league: venue 'Bar 1' has tables 1 to 2, not 9\n")
    assert _run(league_db, "enrol-code", "7", "1") == (2, "", "league: there is no venue 7\n")
    assert _run(league_db, "revoke", "5") == (2, "", "league: there is no kiosk 5\n")


def test_a_server_whose_port_is_taken_says_so_and_never_that_it_listens(league_db):
    """Another program holds the port: serve refuses in one line, and prints no address it never had."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = _run(league_db, "serve", "--port", str(port))
    assert code == 2 and out == "" and "league pages on" not in err, err
    assert err.startswith("league: ") and str(port) in err and err.count("\n") == 1, err
