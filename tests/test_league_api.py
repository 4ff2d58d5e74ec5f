"""The kiosk API through Starlette's TestClient, on SQLite and PostgreSQL: enrolment, push with its
idempotence, gaps and quarantine, tonight's meetings, and every refusal writing nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from starlette.testclient import TestClient

from league.api.app import create_app
from league.ingest.kiosks import Kiosks
from league.organiser.season import LeagueRefused
from league.store.core import Store
from shared.events import event_of as _event
from shared.game_state import GameState
from tests.league_kiosk_helpers import NIGHT, kiosk_game, league_with_schedule, refused_event, snapshot


@pytest.fixture
def setup(league_db, tmp_path):
    store = Store(league_db)
    world = league_with_schedule(store)
    kiosks = Kiosks(store)
    with TestClient(create_app(kiosks)) as client:
        yield {**world, "store": store, "kiosks": kiosks, "client": client, "tmp": tmp_path}
    store.close()


def _enrol(s, venue: int, table: int = 1) -> dict:
    code = s["kiosks"].make_code(venue, table)
    r = s["client"].post("/api/v1/enrol", json={"code": code.lower()})  # typed in any case
    assert r.status_code == 200, r.text
    return r.json()


def _auth(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def _with_refused(game: list[dict]) -> list[dict]:
    """The game with a refused hand pushed after its first confirmed hand (seq 4), the rest after it."""
    return game[:3] + [refused_event(4)] + [{**e, "seq": e["seq"] + 1} for e in game[3:]]


def test_enrol_gives_a_key_for_the_venue_and_table_and_keeps_only_its_hash(setup):
    venue = setup["venues"][0]
    got = _enrol(setup, venue, 2)
    assert got["venue"] == {"id": venue, "name": "Bar 1"} and got["table"] == 2
    assert len(got["key"]) >= 43  # 256 bits in URL-safe base64
    rows = snapshot(setup["store"])
    assert got["key"] not in repr(rows)
    assert len(rows["kiosks"]) == 1


def test_tonight_lists_the_venues_meetings_with_teams_players_and_rules(setup):
    venue = setup["venues"][0]
    key = _enrol(setup, venue)["key"]
    r = setup["client"].get(f"/api/v1/tonight?date={NIGHT}", headers=_auth(key))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["venue"]["name"] == "Bar 1" and body["date"] == NIGHT
    assert [m["meeting"] for m in body["meetings"]] == [setup["meeting_at"][venue]]
    m = body["meetings"][0]
    assert {m["teams"]["a"]["name"], m["teams"]["b"]["name"]} <= {"Team 1", "Team 2", "Team 3", "Team 4"}
    assert len(m["teams"]["a"]["players"]) == 2 and m["games_per_meeting"] == 1
    assert m["rules"]["target"] > 0
    other = setup["client"].get("/api/v1/tonight?date=2026-01-07", headers=_auth(key)).json()
    assert other["meetings"] == []


def test_a_pushed_game_is_stored_once_folded_and_a_refused_event_quarantined(setup):
    venue = setup["venues"][0]
    meeting = setup["meeting_at"][venue]
    key = _enrol(setup, venue)["key"]
    game = _with_refused(kiosk_game(setup["tmp"], teams=setup["teams_at"][venue]))
    body = {"games": [{"game": 1, "meeting": meeting, "events": game}]}
    first = setup["client"].post("/api/v1/push", json=body, headers=_auth(key))
    assert first.status_code == 200, first.text
    got = first.json()["games"][0]
    assert got["acked"] == len(game) and got["stored"] == len(game) and got["resend_from"] is None
    assert [q["seq"] for q in got["quarantined"]] == [4]
    assert "X" in got["quarantined"][0]["why"]
    before = snapshot(setup["store"])
    again = setup["client"].post("/api/v1/push", json=body, headers=_auth(key)).json()["games"][0]
    assert again["stored"] == 0 and again["duplicates"] == len(game) and again["acked"] == len(game)
    assert snapshot(setup["store"]) == before  # delivered twice, stored once
    # The quarantined event is kept with why; the rest folds to the kiosk's own sheet.
    q = setup["kiosks"].quarantine()
    assert [(x["game"], x["seq"], x["event"]["kind"]) for x in q] == [(1, 4, "hand_entered")]
    with setup["store"].read() as r:
        from league.store import kiosks as ks

        stored = ks.game_events(r.conn, 1, 1)
    folded = GameState.from_events(
        _event(1, __import__("json").loads(s["event"])) for s in stored if s["quarantined"] is None
    )
    assert folded.status == "finished" and len(folded.hands) == 4
    assert folded.hands[1].record["points"] == {"NS": 91, "EW": 71}  # the correction applied


def test_a_gap_is_answered_with_the_seq_to_resend_from(setup):
    venue = setup["venues"][0]
    key = _enrol(setup, venue)["key"]
    game = kiosk_game(setup["tmp"], corrected=False, teams=setup["teams_at"][venue])

    def push(events):
        body = {"games": [{"game": 3, "meeting": setup["meeting_at"][venue], "events": events}]}
        return setup["client"].post("/api/v1/push", json=body, headers=_auth(key)).json()["games"][0]

    assert push(game[:4])["acked"] == 4
    gap = push(game[6:])  # 5 and 6 lost on the way
    assert gap["resend_from"] == 5 and gap["stored"] == 0 and gap["acked"] == 4
    done = push(game[4:])
    assert done["resend_from"] is None and done["acked"] == len(game) and done["quarantined"] == []


def test_tonight_and_push_need_a_key(setup):
    for r in (
        setup["client"].get("/api/v1/tonight"),
        setup["client"].get("/api/v1/tonight", headers=_auth("not-a-key")),
        setup["client"].post("/api/v1/push", json={"games": []}, headers={"Authorization": "Basic abc"}),
    ):
        assert r.status_code == 401 and "key" in r.json()["error"]


def _refused(s, call, status: int, words: str) -> None:
    before = snapshot(s["store"])
    r = call()
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert snapshot(s["store"]) == before


def test_a_wrong_code_is_refused_with_nothing_written(setup):
    setup["kiosks"].make_code(setup["venues"][0], 1)
    _refused(setup, lambda: setup["client"].post("/api/v1/enrol", json={"code": "AAAAA-AAAAA"}), 403, "unknown")


def test_a_replayed_code_is_refused_with_nothing_written(setup):
    code = setup["kiosks"].make_code(setup["venues"][0], 1)
    assert setup["client"].post("/api/v1/enrol", json={"code": code}).status_code == 200
    _refused(setup, lambda: setup["client"].post("/api/v1/enrol", json={"code": code}), 403, "used")


def test_an_expired_code_is_refused_with_nothing_written(setup):
    past = Kiosks(setup["store"], clock=lambda: dt.datetime.now(dt.UTC) - dt.timedelta(minutes=11))
    code = past.make_code(setup["venues"][0], 1, minutes=10)
    _refused(setup, lambda: setup["client"].post("/api/v1/enrol", json={"code": code}), 403, "expired")


def test_a_revoked_key_is_refused_with_nothing_written(setup):
    venue = setup["venues"][0]
    got = _enrol(setup, venue)
    setup["kiosks"].revoke(got["kiosk"])
    body = {
        "games": [
            {
                "game": 1,
                "meeting": setup["meeting_at"][venue],
                "events": kiosk_game(setup["tmp"], teams=setup["teams_at"][venue]),
            }
        ]
    }
    _refused(setup, lambda: setup["client"].post("/api/v1/push", json=body, headers=_auth(got["key"])), 401, "revoked")
    _refused(setup, lambda: setup["client"].get("/api/v1/tonight", headers=_auth(got["key"])), 401, "revoked")
    with pytest.raises(LeagueRefused, match="already revoked"):
        setup["kiosks"].revoke(got["kiosk"])


def test_a_key_pushing_to_another_venues_meeting_is_refused_with_nothing_written(setup):
    here, there = setup["venues"]
    key = _enrol(setup, here)["key"]
    game = kiosk_game(setup["tmp"], teams=setup["teams_at"][here])
    elsewhere = {"games": [{"game": 1, "meeting": setup["meeting_at"][there], "events": game}]}
    _refused(setup, lambda: setup["client"].post("/api/v1/push", json=elsewhere, headers=_auth(key)), 403, "venue")
    # A batch with a good game first and a foreign one after: all of it refused.
    mixed = {
        "games": [
            {"game": 1, "meeting": setup["meeting_at"][here], "events": game},
            {"game": 2, "meeting": setup["meeting_at"][there], "events": game},
        ]
    }
    _refused(setup, lambda: setup["client"].post("/api/v1/push", json=mixed, headers=_auth(key)), 403, "venue")


def test_a_game_stays_bound_to_its_kiosk_and_meeting(setup):
    venue = setup["venues"][0]
    meeting = setup["meeting_at"][venue]
    one, two = _enrol(setup, venue, 1)["key"], _enrol(setup, venue, 2)["key"]
    game = kiosk_game(setup["tmp"], teams=setup["teams_at"][venue])
    push = lambda key, events, m=meeting: setup["client"].post(  # noqa: E731
        "/api/v1/push", json={"games": [{"game": 1, "meeting": m, "events": events}]}, headers=_auth(key)
    )
    assert push(one, game[:3]).json()["games"][0]["acked"] == 3
    # The other kiosk's game 1 is its own: it cannot add to or change the first kiosk's.
    assert push(two, game[:2]).json()["games"][0]["acked"] == 2
    assert push(one, game[3:]).json()["games"][0]["acked"] == len(game)
    moved = setup["meeting_at"][venue] + 1000
    _refused(setup, lambda: push(one, game, moved), 409, "is played for meeting")


@pytest.mark.parametrize(
    "body, status, words",
    [
        (b"{not json", 400, "not JSON"),
        (b'{"games": 3}', 422, "push: send"),
        (b'{"games": [{"game": 0, "events": []}]}', 422, "games[0].game"),
        (b'{"games": [{"game": 1, "meeting": 1, "events": [{"seq": 1}]}]}', 422, "games[0].events[0].at"),
        (b'{"games": [{"game": 1, "events": []}]}', 422, "names the meeting"),
    ],
)
def test_a_malformed_push_is_refused_with_where_and_why(setup, body, status, words):
    key = _enrol(setup, setup["venues"][0])["key"]
    call = lambda: setup["client"].post("/api/v1/push", content=body, headers=_auth(key))  # noqa: E731
    _refused(setup, call, status, words)


def test_wrong_codes_are_heard_ten_a_minute_then_every_try_waits(league_db):
    """A guesser gets ten wrong codes a minute; the eleventh try waits, even with the right code,
    and is not even looked up; a minute later the right code enrols."""
    now = [1000.0]
    store = Store(league_db)
    world = league_with_schedule(store)
    start = dt.datetime(2026, 1, 6, 18, tzinfo=dt.UTC)
    kiosks = Kiosks(store, clock=lambda: start + dt.timedelta(seconds=now[0]))
    with TestClient(create_app(kiosks)) as client:
        right = kiosks.make_code(world["venues"][0], 1)
        for i in range(10):
            now[0] += 1
            assert client.post("/api/v1/enrol", json={"code": f"WRONG-{i:05d}"}).status_code == 403
        before = snapshot(store)
        r = client.post("/api/v1/enrol", json={"code": right})
        assert r.status_code == 429 and r.headers["retry-after"] == "51"
        assert r.json()["error"] == "too many wrong codes: try again in 51 s"
        assert snapshot(store) == before
        now[0] += 51
        assert client.post("/api/v1/enrol", json={"code": right}).status_code == 200
    store.close()
