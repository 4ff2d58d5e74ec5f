"""Text at every boundary of the league: what a kiosk pushes, what an organiser types (forms and
commands) is refused in words, naming the field, when no page could show it; and whatever text is
stored already, every page and export still answers. On SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from league.api.app import create_app
from league.ingest import batch as batch_module
from league.ingest.kiosks import Kiosks
from league.organiser.signin import SignIn
from league.store.core import Store
from shared.cli import cli
from tests.league_crawl import crawl
from tests.league_kiosk_helpers import kiosk_game, league_with_schedule, refused_event, snapshot
from tests.league_pages_helpers import PASSWORD, Clock, client_for, organiser_csrf, sign_in

HOSTILE_TEXTS = ["A\ud800B", "\udfff", "nul\x00here", "bell\x07", "\u3164\u3164\u3164", "\u2800", "\u202eevil"]


@pytest.fixture
def league(league_db, tmp_path):
    store = Store(league_db)
    world = league_with_schedule(store)
    kiosks = Kiosks(store)
    venue = world["venues"][0]
    key = kiosks.enrol(kiosks.make_code(venue, 1))["key"]
    game = kiosk_game(tmp_path, teams=world["teams_at"][venue])
    with TestClient(create_app(kiosks)) as api:
        yield {**world, "store": store, "api": api, "key": key, "venue": venue, "game": game, "db": league_db}
    store.close()


@pytest.fixture
def pages(league):
    """The league's pages, the organiser signed in."""
    SignIn(league["store"], Clock()).set_password(PASSWORD)
    with client_for(league["store"], Clock()) as client:
        assert sign_in(client).status_code == 303
        yield client


def _push(s, game: int, events: list[dict], meeting: int | None = None):
    body = {"games": [{"game": game, "meeting": meeting or s["meeting_at"][s["venue"]], "events": events}]}
    headers = {"Authorization": f"Bearer {s['key']}", "content-type": "application/json"}
    return s["api"].post("/api/v1/push", content=json.dumps(body), headers=headers)  # JSON escapes surrogates


def _started_with(s, field: str, value: object) -> list[dict]:
    """The kiosk game with ``value`` put at ``field`` of its first event (a dotted path)."""
    first = json.loads(json.dumps(s["game"][0]))
    *path, last = field.split(".")
    at = first
    for part in path:
        at = at[part]
    at[last] = value
    return [first, *s["game"][1:]]


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("payload.teams.NS", "A\ud800B", "payload.teams.NS: has half of a surrogate pair (U+D800) at character 2"),
        ("kind", "\udfff", ".kind: has half of a surrogate pair (U+DFFF) at character 1"),
        ("at", "not-a-time", ".at: a time like 2026-01-06T20:15:00.000+00:00 is needed"),
        ("payload.players.N", "Ann\x1b[2J", "payload.players.N: has a control character (U+001B) at character 4"),
        ("payload.teams.EW", "\u3164\u3164\u3164", "payload.teams.EW: the name shows no letter or digit"),
        ("payload.teams.NS", "\u2800", "payload.teams.NS: the name shows no letter or digit"),
        ("reason", "a\x00b", ".reason: has a NUL (U+0000) at character 2"),
    ],
)
def test_a_pushed_text_no_page_could_show_is_refused_naming_the_field(league, field, value, says):
    before = snapshot(league["store"])
    r = _push(league, 1, _started_with(league, field, value))
    assert r.status_code == 422 and says in r.json()["error"], r.text
    assert snapshot(league["store"]) == before


def test_numbers_json_does_not_have_and_deep_nesting_are_refused_in_json(league):
    headers = {"Authorization": f"Bearer {league['key']}", "content-type": "application/json"}
    for body, says in [
        ('{"games": [{"game": 1, "events": [], "x": NaN}]}', "NaN is not a number JSON has"),
        ('{"games": [{"game": 1, "events": [], "x": -Infinity}]}', "-Infinity is not a number JSON has"),
        ('{"games": [{"game": 1e999, "events": []}]}', "1e999 is too big a number"),
        ("[" * 100_000, "nested more than 32 deep"),
        ("[" * 40 + "]" * 40, "nested more than 32 deep"),
    ]:
        r = league["api"].post("/api/v1/push", content=body, headers=headers)
        assert r.status_code == 400 and says in r.json()["error"], (body[:40], r.text)
    r = league["api"].post("/api/v1/enrol", content="[" * 100_000, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "error" in r.json()  # an enrolment's body is a code: 1 KiB at most
    r = league["api"].post("/api/v1/enrol", content="[" * 1000, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "nested more than 32 deep" in r.json()["error"]
    code = json.dumps({"code": "\udfff"})
    assert (
        league["api"].post("/api/v1/enrol", content=code, headers={"content-type": "application/json"}).status_code
        == 403
    )


def test_names_and_reasons_typed_by_the_organiser_are_checked_the_same_way(league, pages):
    org, db = league["org"], league["db"]
    csrf = organiser_csrf(pages)
    back = f"/organiser/divisions/{league['division']}"
    m = league["meeting_at"][league["venue"]]
    forms = [
        ("/organiser/venue", {"league": "1", "name": "\u3164\u3164\u3164", "tables": "2"}, "shows no letter or digit"),
        ("/organiser/league", {"name": "\u2800"}, "league: the name shows no letter or digit"),
        ("/organiser/forfeit", {"meeting": str(m), "team": "1", "reason": "ill\x00"}, "has a control character"),
        ("/organiser/move", {"meeting": str(m), "date": "2026-01-07", "reason": "\u202eshut"}, "bidirectional"),
    ]
    before = snapshot(league["store"])
    for path, data, says in forms:
        r = pages.post(path, data={"csrf": csrf, "back": back, **data})
        assert r.status_code == 400 and says in r.text, (path, r.text[-400:])
    for args, says in [
        (("team", str(league["division"]), "\u3164", "--player", "a", "--player", "b"), "team: the name shows no"),
        (("venue", "1", "Bar\x07"), "venue: the name has a control character (U+0007)"),
        (("create", "\udcff"), "league: the name has half of a surrogate pair (U+DCFF)"),  # not UTF-8 in argv
    ]:
        r = CliRunner().invoke(cli, ["league", "--db", db, *args])
        assert r.exit_code == 2 and says in r.stderr, (args, r.stderr)
    assert snapshot(league["store"]) == before
    del org


def test_text_stored_before_it_was_checked_never_breaks_a_page_or_an_export(league, pages, monkeypatch):
    """As a server that took any text would have stored it: a game pushed with every hostile text,
    one of its hands refused (the quarantine shows the event), then every page and export loaded."""
    with monkeypatch.context() as old_server:
        old_server.setattr(batch_module, "_check_texts", lambda e, at: None)
        old_server.setattr(batch_module, "is_timestamp", lambda at: True)
        events = _started_with(league, "payload.teams.NS", "A\ud800B\x00")
        assert _push(league, 1, events).status_code == 200  # no sides: the names typed are all there is
        refused = [*_started_with(league, "payload.teams.NS", "A\ud800B")[:3], {**refused_event(4), "reason": "\ud800"}]
        r = _push(league, 2, refused)
        assert r.status_code == 200 and r.json()["games"][0]["quarantined"], r.text
    assert league["store"].read  # the server runs on, as after an upgrade
    pages = crawl(pages)
    assert len(pages) > 15 and any(p.startswith("/organiser/quarantine") for p in pages)
    assert {p: status for p, status in pages.items() if status >= 500} == {}


_games = itertools.count(2)
TEXT = st.text(st.characters(codec=None, min_codepoint=0), max_size=12) | st.sampled_from(HOSTILE_TEXTS)
FIELDS = ["at", "kind", "action_id", "source", "authorised_by", "reason", "payload.teams.NS", "payload.players.E"]


@pytest.mark.slow  # each example loads every page
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.fixed_dictionaries({f: TEXT for f in FIELDS}))
def test_any_text_in_any_field_of_a_push_never_makes_a_5xx_anywhere(league, pages, texts):
    events = league["game"]
    for field, text in texts.items():
        events = _started_with({**league, "game": events}, field, text)
    r = _push(league, next(_games), events)
    assert r.status_code < 500 and "error" in r.json() if r.status_code >= 400 else True, r.text
    pages = crawl(pages)
    assert {p: status for p, status in pages.items() if status >= 500} == {}
