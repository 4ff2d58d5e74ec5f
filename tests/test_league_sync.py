"""The sync worker against a real ``clabber league serve`` on loopback (and a false league that answers
badly), the league's side of it (rulings, the game-over link), and ``clabber league join | status |
leave | sync``. The faults (a server killed, an evening offline, a lossy network, the worker killed, a
power cut, a restored backup, a revoked key) are in test_sync_faults.py."""

from __future__ import annotations

import html
import json
import os
import sqlite3
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kiosk import league_link, outbox
from kiosk.store import now_utc
from kiosk.sync import Pace
from league.api.app import create_app
from league.ingest.kiosks import Kiosks
from league.store.core import Store
from tests.league_kiosk_helpers import league_with_schedule, played_game, snapshot
from tests.league_server import CLABBER
from tests.store_helpers import open_table
from tests.sync_helpers import (
    QUICK,
    WorkerProcess,
    delivered,
    differences,
    kiosk_at,
    league_game_count,
    league_holds,
    served_league,
    wait_until,
    worker,
)


@pytest.fixture
def league(league_db):
    """A league served on SQLite and on PostgreSQL."""
    yield from served_league(league_db)


@pytest.fixture
def one_league(tmp_path):
    """A league served on SQLite only: for what does not depend on the league's database."""
    yield from served_league(str(tmp_path / "league.db"))


def _finish_a_game(kiosk) -> int:
    game = None
    while game is None or (kiosk.game.id == game and kiosk.game.status == "open"):
        kiosk.hand()
        game = kiosk.game.id
    return game


@pytest.mark.slow
def test_the_worker_delivers_league_games_once_and_friendly_games_never(league, tmp_path):
    here = league["venues"][0]
    kiosk, kiosk_id = kiosk_at(league, tmp_path / "k", here, league["url"])
    finished = _finish_a_game(kiosk)
    friendly = kiosk.table.new_game(["Us", "Them"], first_dealer="N")
    kiosk.table.add_hand(friendly.id, {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}})
    for _ in range(3):
        kiosk.hand()  # a second league game, still open
    with worker(kiosk.path):
        wait_until(lambda: delivered(kiosk), 30, "the outbox emptied")
    assert differences(league["store"], kiosk_id, kiosk.store) == []
    assert sorted(league_holds(league["store"], kiosk_id)) == [finished, kiosk.game.id]  # not the friendly game
    assert league_game_count(league["store"], kiosk_id) == {finished: 1}  # the ended game is in the standings
    state = outbox.sync_state(kiosk.store)
    assert state["state"] == "connected" and state["error"] is None and state["queued"] == 0
    assert state["last_delivery"] <= now_utc() and state["next_try"] is None
    tonight = outbox.tonight(kiosk.store)
    assert [m["meeting"] for m in tonight["meetings"]] == [league["meeting_at"][here]]
    assert tonight["venue"]["id"] == here and tonight["fetched_at"] <= now_utc()

    # The game-over QR's link: the league's game once it is one; on its way until then.
    assert league_link.game_url(kiosk.store, finished) == f"{league['url']}/k/{kiosk_id}/{finished}"
    assert league_link.game_url(kiosk.store, friendly.id) is None
    api = league["server"].api
    with league["store"].read() as r:
        [g] = r.games(league["meeting_at"][here])
    status, _ = api.page(f"/k/{kiosk_id}/{finished}")
    assert status == 303 and _location(api, f"/k/{kiosk_id}/{finished}") == f"/games/{g['id']}"
    status, page = api.page(f"/k/{kiosk_id}/{kiosk.game.id}")
    assert status == 200 and "has reached the league" in html.unescape(page)
    status, page = api.page(f"/k/{kiosk_id}/99")
    assert status == 200 and "on its way to the league" in html.unescape(page)
    assert api.page(f"/k/{kiosk_id + 100}/1")[0] == 404 and api.page("/k/x/1")[0] == 404
    kiosk.close()


def _location(api, path: str) -> str:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    try:
        conn.request("GET", path)
        return conn.getresponse().getheader("location") or ""
    finally:
        conn.close()


@pytest.mark.slow
def test_the_organisers_ruling_reaches_the_kiosk(league, tmp_path):
    here = league["venues"][0]
    kiosk, _ = kiosk_at(league, tmp_path / "k", here, league["url"])
    kiosk.play(10)
    kiosk.table.finish(kiosk.game.id, reason="closing time")  # short of the target: counts for nobody
    with worker(kiosk.path, Pace(**{**QUICK.__dict__, "tonight_every": 0.2})):
        wait_until(lambda: delivered(kiosk), 30, "the game delivered")
        with league["store"].read() as r:
            [g] = r.games(league["meeting_at"][here])
        league["org"].rule_game(g["id"], "b", "agreed by both captains")
        ruled = wait_until(lambda: outbox.rulings(kiosk.store).get(str(kiosk.game.id)), 10, "the ruling pulled")
    # Team b sat EW at this table (team a at NS): the table reads the ruling by its seats.
    assert ruled["winner"] == "EW" and ruled["reason"] == "agreed by both captains"
    assert ruled["league_game"] == g["id"] and ruled["outcome"] == "b"
    assert ruled["score"] == {"NS": g["points_a"], "EW": g["points_b"]}
    kiosk.close()


@pytest.mark.slow
def test_a_refused_game_is_held_with_the_leagues_words_and_the_rest_goes_on(league, tmp_path):
    here, there = league["venues"]
    kiosk, kiosk_id = kiosk_at(league, tmp_path / "k", here, league["url"])
    elsewhere = league["meeting"][there]  # another venue's meeting: the league refuses it (403)
    wrong = kiosk.table.new_game(
        list(league["teams_at"][there]),
        league={"meeting": elsewhere["id"], "NS": elsewhere["team_a"], "EW": elsewhere["team_b"]},
        first_dealer="N",
    )
    kiosk.play(20)  # this venue's game, in the same batch
    with worker(kiosk.path):
        wait_until(lambda: outbox.queued(kiosk.store) == 1 and outbox.sync_state(kiosk.store).get("held") == 1, 30)
    [held] = outbox.held(kiosk.store)
    assert held["game"] == wrong.id
    assert (
        held["why"]
        == f"the league refused this game: game {wrong.id}: meeting {elsewhere['id']} is not at this kiosk's venue"
    )
    assert outbox.sync_state(kiosk.store)["state"] == "connected"
    assert sorted(league_holds(league["store"], kiosk_id)) == list(range(2, kiosk.game.id + 1))  # the rest
    kiosk.close()


@pytest.mark.slow
def test_not_joined_says_so_and_a_join_wakes_the_worker(league, tmp_path):
    from tests.sync_helpers import Kiosk

    here = league["venues"][0]
    kiosk = Kiosk(tmp_path / "kiosk.db", league["meeting"][here], league["teams_at"][here])
    kiosk.play(5)  # a league game played before the kiosk joined: it waits in the outbox
    with worker(kiosk.path):
        wait_until(lambda: outbox.sync_state(kiosk.store).get("state") == "not joined", 10)
        assert outbox.sync_state(kiosk.store)["queued"] == outbox.queued(kiosk.store) >= 5
        kiosk_id = kiosk.join(league["kiosks"], here, league["url"])
        wait_until(lambda: delivered(kiosk), 10, "delivered once joined, without a restart")
    assert differences(league["store"], kiosk_id, kiosk.store) == []
    kiosk.close()


# ---- a league that answers badly ------------------------------------------------------------------


class FalseLeague:
    """A server on loopback that answers pushes as told, one answer a push (then the last again);
    tonight's meetings as a league does, and no rulings (404, as an older league server)."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.pushes: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:
                if self.path.startswith("/api/v1/tonight"):
                    self.reply(
                        200, {"date": "2026-01-06", "venue": {"id": 1, "name": "Bar"}, "table": 1, "meetings": []}
                    )
                else:
                    self.reply(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.pushes.append(body)
                answer = outer.answers[min(len(outer.pushes), len(outer.answers)) - 1]
                status, payload, headers = answer(body) if callable(answer) else answer
                self.reply(status, payload, headers)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FalseLeague:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def _all_acked(body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    acked = [
        {"game": g["game"], "acked": g["events"][-1]["seq"], "quarantined": [], "diverged": [], "resend_from": None}
        for g in body["games"]
    ]
    return 200, {"games": acked}, {}


def _joined_to(kiosk_path: Path, url: str):
    from tests.sync_helpers import Kiosk

    kiosk = Kiosk(kiosk_path, {"id": 12, "team_a": 1, "team_b": 4}, ("Aces", "Kings"))
    outbox.set_link(
        kiosk.store, {"url": url, "key": "k" * 43, "kiosk": 1, "venue": {"id": 1, "name": "Bar"}, "table": 1}
    )
    return kiosk


@pytest.mark.parametrize(
    "status, answer, headers, state, words",
    [
        (200, b"<html>a captive portal</html>", {}, "unreachable", "did not answer as a league server does"),
        (200, [1, 2], {}, "unreachable", "did not answer as a league server does"),
        (200, {"games": "all"}, {}, "unreachable", "has no list of games"),
        (200, {"games": [{"game": 1, "acked": "5"}]}, {}, "unreachable", "without its number or acked seq"),
        (200, {"games": []}, {}, "unreachable", "says nothing of game 1"),
        (200, {"games": [{"game": 1, "acked": 0, "resend_from": -3}]}, {}, "unreachable", "again from -3"),
        (500, b"Internal Server Error", {}, "waiting", "the league answered 500: try again later"),
        (
            503,
            {"error": "the league's database cannot be used now"},
            {"Retry-After": "1"},
            "waiting",
            "cannot be used now",
        ),
        (429, {"error": "slow down"}, {"Retry-After": "1"}, "waiting", "the league refused (429): slow down"),
        (404, b"no such page", {}, "waiting", "the league refused (404)"),
    ],
)
def test_a_bad_answer_is_said_in_words_and_nothing_is_believed_or_lost(tmp_path, status, answer, headers, state, words):
    with FalseLeague([(status, answer, headers), _all_acked]) as league:
        kiosk = _joined_to(tmp_path / "kiosk.db", league.url)
        kiosk.play(5)
        queued = outbox.queued(kiosk.store)
        seen: list[dict[str, Any]] = []
        with worker(kiosk.path, Pace(**{**QUICK.__dict__, "first": 2.0, "longest": 2.0})):
            wait_until(lambda: seen.append(outbox.sync_state(kiosk.store)) or seen[-1].get("state") == state, 10)
            assert outbox.queued(kiosk.store) == queued  # nothing acknowledged on a bad answer
            then = seen[-1]
            assert words in then["error"] and then["next_try"] > then["at"]
            wait_until(lambda: delivered(kiosk), 20, "delivered once the league answers well")
        assert len(league.pushes) == 2 and league.pushes[0] == league.pushes[1]  # the same batch again
        kiosk.close()


def test_a_push_too_big_for_the_league_goes_in_smaller_pushes(tmp_path):
    sizes: list[int] = []

    def judge(body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        sizes.append(sum(len(g["events"]) for g in body["games"]))
        return (413, {"error": "the body is more than 1048576 bytes"}, {}) if sizes[-1] > 50 else _all_acked(body)

    with FalseLeague([judge]) as league:
        kiosk = _joined_to(tmp_path / "kiosk.db", league.url)
        kiosk.play(300)
        with worker(kiosk.path):
            wait_until(lambda: delivered(kiosk), 20)
    assert sizes[:2] == [200, 100]  # refused, then halved until the league takes them
    assert all(n <= 50 for n in sizes[2:]) and sum(sizes[2:]) == kiosk.events()  # each event once
    kiosk.close()


@pytest.mark.slow
def test_a_league_slow_to_answer_gets_fewer_and_larger_pushes_not_more(tmp_path):
    """While the table goes on storing, a push that took all that waited is followed by the next only
    ``Pace.gather`` after it began: what the table stores meanwhile goes in one push, however slowly
    the league answers (each slow answer finding a few new events would otherwise send them at once)."""
    import time

    def slow(body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        time.sleep(0.15)
        return _all_acked(body)

    with FalseLeague([slow]) as league:
        kiosk = _joined_to(tmp_path / "kiosk.db", league.url)
        kiosk.play(1)
        with worker(kiosk.path, Pace(**{**QUICK.__dict__, "gather": 0.6})):
            began = time.monotonic()
            while time.monotonic() - began < 3.0:  # a hand every 50 ms: far faster than any table
                kiosk.hand()
                time.sleep(0.05)
            playing = time.monotonic() - began
            wait_until(lambda: delivered(kiosk), 20)
        sizes = [sum(len(g["events"]) for g in body["games"]) for body in league.pushes]
    assert sum(sizes) == kiosk.events()  # each event once
    assert len(sizes) <= playing / 0.6 + 3, sizes  # one push a gathering pause (the last after the play)
    assert max(sizes) >= 6, sizes  # the events of several hands in one push
    kiosk.close()


def test_a_push_of_as_many_games_as_a_push_takes_is_followed_at_once(tmp_path):
    """More games waiting than a push carries (``outbox.MOST_GAMES``), however few their events: the
    push that carried as many as it could is no reason to pause either."""
    with FalseLeague([_all_acked]) as league:
        kiosk = _joined_to(tmp_path / "kiosk.db", league.url)
        for _ in range(outbox.MOST_GAMES + 5):
            kiosk.game = None  # a new game for each hand
            kiosk.hand()
        with worker(kiosk.path, Pace(**{**QUICK.__dict__, "gather": 30.0})):
            wait_until(lambda: delivered(kiosk), 20, "every game delivered without a pause after a push of 50")
        games = [len(body["games"]) for body in league.pushes]
    assert games[0] == outbox.MOST_GAMES and sum(games) == outbox.MOST_GAMES + 5
    kiosk.close()


def test_a_full_push_is_followed_at_once_by_the_next(tmp_path):
    """A push that could not take all that waited (``Pace.most_events``) is no reason to pause: a
    backlog goes as fast as the league answers."""
    with FalseLeague([_all_acked]) as league:
        kiosk = _joined_to(tmp_path / "kiosk.db", league.url)
        kiosk.play(700)
        with worker(kiosk.path, Pace(**{**QUICK.__dict__, "gather": 30.0})):
            wait_until(lambda: delivered(kiosk), 20, "a backlog delivered without a pause between full pushes")
        sizes = [sum(len(g["events"]) for g in body["games"]) for body in league.pushes]
    assert sizes[:3] == [200, 200, 200] and sum(sizes) == kiosk.events()
    kiosk.close()


# ---- the command line -----------------------------------------------------------------------------


def _clabber(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLABBER), *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture
def home(tmp_path) -> dict[str, str]:
    """An environment whose kiosk database defaults into tmp_path, as clabber kiosk's would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLABBER_")}
    (tmp_path / "empty.toml").write_text("")
    return {
        **env,
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "CLABBER_CONFIG": str(tmp_path / "empty.toml"),
    }


@pytest.mark.slow  # the commands as processes
def test_join_status_and_leave_from_the_command_line(one_league, tmp_path, home):
    league = one_league
    here = league["venues"][1]
    db = tmp_path / "data" / "clabber" / "clabber.db"  # where clabber kiosk keeps it by default
    out = _clabber("league", "status", env=home)
    assert out.returncode == 2 and out.stderr == f"kiosk: {db}: no kiosk database here yet\n"
    code = league["kiosks"].make_code(here, 2)
    out = _clabber("league", "join", league["url"], code, env=home)
    assert (
        out.returncode == 0
        and out.stdout.startswith(f"joined {league['url']}: kiosk ")
        and "Bar 2, table 2" in out.stdout
    )
    assert db.exists()
    again = _clabber("league", "join", league["url"], code, "--kiosk-db", str(db), env=home)
    assert again.returncode == 2 and again.stderr == "join: this kiosk is in a league already: leave it first\n"
    status = _clabber("league", "status", "--json", env=home)
    shown = json.loads(status.stdout)
    assert shown["league"]["venue"] == {"id": here, "name": "Bar 2"} and "key" not in shown["league"]
    assert "key" not in status.stdout and shown["queued"] == 0 and shown["sync"] == {}
    text = _clabber("league", "status", env=home).stdout.splitlines()
    assert text[0].startswith(f"league: {league['url']} (kiosk ") and text[0].endswith("Bar 2, table 2")
    assert text[1] == "sync: the sync worker has not run yet; 0 events queued"
    assert _clabber("league", "leave", env=home).stdout == "left the league\n"
    assert _clabber("league", "status", env=home).stdout == "not in a league\n"
    out = _clabber("league", "leave", env=home)
    assert out.returncode == 2 and out.stderr == "leave: this kiosk is not in a league\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, words",
    [
        (["join", "http://127.0.0.1:1", "AAAAA-AAAAA"], "join: cannot reach the league at http://127.0.0.1:1"),
        (["join", "http://league.example.org", "AAAAA-AAAAA"], "join: the league's address must start with https://"),
        (["join", "{url}", "AAAAA-AAAAA"], "join: the league refused the code: this code is unknown, used or expired"),
    ],
)
def test_joining_refused_is_one_line_and_status_2(one_league, home, args, words):
    league = one_league
    out = _clabber("league", *[a.format(url=league["url"]) for a in args], env=home)
    assert out.returncode == 2 and out.stderr.startswith(words) and out.stderr.count("\n") == 1, out.stderr
    assert out.stdout == "" and "Traceback" not in out.stderr
    data = Path(home["XDG_DATA_HOME"])
    assert not data.exists() or not any(data.rglob("*.db*"))  # a refused join makes no kiosk database


def test_a_config_the_kiosk_cannot_use_is_refused_in_one_line(tmp_path, home):
    (tmp_path / "bad.toml").write_text("rotation = 45\n")
    out = _clabber("league", "status", env={**home, "CLABBER_CONFIG": str(tmp_path / "bad.toml")})
    assert out.returncode == 2 and out.stderr.startswith("kiosk: ") and "rotation" in out.stderr
    assert out.stderr.count("\n") == 1


@pytest.mark.slow
def test_the_worker_process_delivers_and_stops_cleanly_on_sigterm(one_league, tmp_path, home):
    """As systemd runs it, with a config file it cannot use: the database from --kiosk-db still tells."""
    league = one_league
    here = league["venues"][0]
    kiosk, kiosk_id = kiosk_at(league, tmp_path / "k", here, league["url"])
    kiosk.play(30)
    (tmp_path / "bad.toml").write_text("rotation = 45\n")
    process = WorkerProcess(kiosk.path, env={**home, "CLABBER_CONFIG": str(tmp_path / "bad.toml")})
    wait_until(lambda: delivered(kiosk), 30, "delivered by the worker's process")
    kiosk.play(10)  # woken by the new events, not by a timer
    wait_until(lambda: delivered(kiosk), 5, "the new events delivered")
    assert process.stop() == 0
    words = process.words()
    assert "rotation" in words and "sync: connected" in words and words.endswith("sync: stopped\n")
    assert "Traceback" not in words
    assert differences(league["store"], kiosk_id, kiosk.store) == []
    kiosk.close()


def test_without_a_database_to_find_the_worker_says_why_and_waits(tmp_path, home):
    (tmp_path / "bad.toml").write_text("rotation = 45\n")
    process = WorkerProcess(None, env={**home, "CLABBER_CONFIG": str(tmp_path / "bad.toml")})
    wait_until(lambda: "reading it again every minute" in process.words(), 10)
    assert process.proc.poll() is None  # waiting, not ended (systemd would only start it again)
    assert process.stop() == 0
    words = process.words()
    assert "rotation" in words and words.count("\n") == 1 and "Traceback" not in words


def test_a_worker_on_a_kiosk_not_made_yet_waits_for_it(tmp_path, home):
    path = tmp_path / "later" / "kiosk.db"
    process = WorkerProcess(path, env=home)
    wait_until(lambda: "no kiosk database here yet" in process.words(), 10)
    assert not path.exists()  # the kiosk makes it (or restores it): never the worker
    assert process.stop() == 0


# ---- the league's side: the rulings, and nothing stored after a divergence ------------------------------


@pytest.fixture
def api(league_db, tmp_path):
    store = Store(league_db)
    world = league_with_schedule(store)
    kiosks = Kiosks(store)
    with TestClient(create_app(kiosks)) as client:
        yield {**world, "store": store, "kiosks": kiosks, "client": client, "tmp": tmp_path}
    store.close()


def _key(s: dict[str, Any], venue: int, table: int = 1) -> dict[str, str]:
    got = s["client"].post("/api/v1/enrol", json={"code": s["kiosks"].make_code(venue, table)}).json()
    return {"Authorization": f"Bearer {got['key']}"}


def _push(s: dict[str, Any], key: dict[str, str], game: int, events: list[dict[str, Any]], venue: int) -> dict:
    body = {"games": [{"game": game, "meeting": s["meeting_at"][venue], "events": events}]}
    r = s["client"].post("/api/v1/push", json=body, headers=key)
    assert r.status_code == 200, r.text
    return r.json()["games"][0]


def test_rulings_are_the_kiosks_own_by_its_game_number_in_its_seats(api):
    here, there = api["venues"]
    mine, theirs = _key(api, here), _key(api, there)
    a, b = api["teams_at"][here]
    _push(api, mine, 7, played_game(api["tmp"], (b, a), winner="NS"), here)  # team b sat NS and won
    _push(api, theirs, 7, played_game(api["tmp"], api["teams_at"][there]), there)
    assert api["client"].get("/api/v1/rulings", headers=mine).json() == {"rulings": []}
    with api["store"].read() as r:
        [g] = r.games(api["meeting_at"][here])
        [other] = r.games(api["meeting_at"][there])
    api["org"].rule_game(g["id"], "a", "team b played a substitute not on its list", points=(500, 0))
    api["org"].rule_game(other["id"], None, "abandoned: the bar closed")
    [ruling] = api["client"].get("/api/v1/rulings", headers=mine).json()["rulings"]
    assert ruling == {
        "game": 7,
        "league_game": g["id"],
        "meeting": api["meeting_at"][here],
        "outcome": "a",
        "points": {"a": 500, "b": 0},
        "reason": "team b played a substitute not on its list",
        "winner": "EW",  # team a sat EW at this table
        "score": {"NS": 0, "EW": 500},
    }
    [abandoned] = api["client"].get("/api/v1/rulings", headers=theirs).json()["rulings"]
    assert (
        abandoned["outcome"] is None
        and abandoned["winner"] is None
        and abandoned["reason"] == "abandoned: the bar closed"
    )
    r = api["client"].get("/api/v1/rulings")
    assert r.status_code == 401 and "Bearer" in r.json()["error"]


def test_a_push_that_diverges_stores_nothing_after_it(api):
    """A kiosk restored from an older backup goes on past what the league holds: its later events belong to
    another history of the game and are not added to the league's."""
    here = api["venues"][0]
    key = _key(api, here)
    teams = api["teams_at"][here]
    game = played_game(api["tmp"], teams)
    _push(api, key, 1, game[:6], here)
    before = snapshot(api["store"])
    other = played_game(api["tmp"], teams, winner="EW")
    got = _push(api, key, 1, other[:9], here)
    assert got["diverged"] == [1, 2, 3, 4, 5, 6] and got["stored"] == 0 and got["acked"] == 6
    assert got["resend_from"] is None
    after = snapshot(api["store"])
    assert {k: v for k, v in after.items() if k != "kiosk_divergences"} == before


@pytest.mark.slow  # each try waits out the store's 5 s busy timeout
def test_a_store_locked_by_another_program_is_said_once_and_waited_out(tmp_path, caplog):
    with FalseLeague([_all_acked]) as league:
        kiosk = _joined_to(tmp_path / "kiosk.db", league.url)
        kiosk.play(5)
        other = sqlite3.connect(kiosk.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # a program holding the write lock (a copy, an sqlite3 shell)
        with caplog.at_level("INFO", logger="clabber.sync"), worker(kiosk.path) as sync:
            wait_until(lambda: any("busy" in r.getMessage() for r in caplog.records), 20, "the lock said")
            wait_until(lambda: sync.backoff.failures >= 2, 20, "tried again while the lock is held")
            other.execute("ROLLBACK")
            other.close()
            wait_until(lambda: delivered(kiosk), 20, "delivered once the lock is gone")
        said = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert said == [
            "sync: StoreError: the database is busy in another program: nothing was saved; try again;"
            " trying again within 0.5 s"
        ]
        assert caplog.records[-1].getMessage() == "sync: stopped"  # it never crashed on the way
        kiosk.close()


@pytest.mark.slow
def test_a_moved_meeting_reaches_the_kiosk_at_its_next_look_within_a_minute(league, tmp_path):
    """The organiser moves tonight's meeting to another table: the kiosk's start screen has it at the
    worker's next look at tonight, which comes within a minute at the worker's own pace."""
    assert Pace().tonight_every <= 60  # the kiosks' pace: a moved meeting is on the screens within a minute
    here = league["venues"][0]
    kiosk, _ = kiosk_at(league, tmp_path / "k", here, league["url"])
    meeting = league["meeting_at"][here]
    with worker(kiosk.path, Pace(**{**QUICK.__dict__, "tonight_every": 0.3})):
        wait_until(lambda: outbox.tonight(kiosk.store), 10, "tonight fetched")
        league["org"].move_meeting(meeting, venue=here, table=2, reason="table 1 wobbles")
        moved = wait_until(
            lambda: [m for m in (outbox.tonight(kiosk.store) or {}).get("meetings", []) if m.get("table") == 2],
            10,
            "the moved meeting fetched",
        )
    assert moved[0]["meeting"] == meeting


@pytest.mark.slow
def test_a_meetings_game_starts_from_the_command_line(one_league, tmp_path, home):
    """A headless table (or a script) starts tonight's meeting's game with ``clabber game new
    --meeting``: the meeting's teams, their players and the season's rules, as a tap would; a meeting
    not among tonight's, and one whose game is in play here, are refused in words."""
    league = one_league
    here = league["venues"][0]
    db = tmp_path / "data" / "clabber" / "clabber.db"
    assert _clabber("league", "join", league["url"], league["kiosks"].make_code(here, 1), env=home).returncode == 0
    kiosk = open_table(db)
    key = outbox.link(kiosk.store)["key"]
    answer = league["kiosks"].tonight(key)
    outbox.set_tonight(kiosk.store, {**answer, "fetched_at": kiosk.clock()})  # as the sync worker keeps it
    kiosk.close()
    [m] = answer["meetings"]
    out = _clabber("game", "new", "--meeting", str(m["meeting"]), "--ns", "b", "--first-dealer", "E", env=home)
    assert out.returncode == 0, out.stderr
    kiosk = open_table(db)
    started = kiosk.store.events(int(out.stdout))[0].payload
    assert started["teams"] == {"NS": m["teams"]["b"]["name"], "EW": m["teams"]["a"]["name"]}
    assert started["players"]["N"] == m["teams"]["b"]["players"][0]
    assert started["league"] == {"meeting": m["meeting"], "NS": m["teams"]["b"]["id"], "EW": m["teams"]["a"]["id"]}
    kiosk.close()
    again = _clabber("game", "new", "--meeting", str(m["meeting"]), env=home)
    assert (
        again.returncode == 2
        and f"meeting {m['meeting']}'s game is in play here: game {out.stdout.strip()}" in again.stderr
    )
    other = _clabber("game", "new", "--meeting", "999", env=home)
    assert other.returncode == 2 and "meeting 999 is not among tonight's meetings here" in other.stderr
    both = _clabber("game", "new", "--meeting", "1", "--teams", "A", "B", env=home)
    assert both.returncode == 2 and "give --teams NS EW, or --meeting N for a league game" in both.stderr
