"""The organiser's sign-in and forms through Starlette's TestClient, on SQLite and PostgreSQL: wrong
passwords, the growing lock-out, cookie flags, CSRF refusals with nothing written, and forms whose
events show on the public pages."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from league.organiser.actions import Organiser
from league.organiser.signin import FREE_TRIES, SignIn
from league.store.core import Store
from shared.cli import cli
from tests.league_pages_helpers import (
    PASSWORD,
    Clock,
    client_for,
    events,
    meeting_of,
    organiser_csrf,
    session_cookie,
    sign_in,
    small_season,
)


@pytest.fixture
def league(league_db):
    store = Store(league_db)
    org = Organiser(store)
    ids = small_season(org)
    clock = Clock()
    SignIn(store, clock).set_password(PASSWORD)
    yield store, org, ids, clock
    store.close()


def test_the_right_password_opens_a_session_and_a_wrong_one_does_not(league):
    store, _, _, clock = league
    client = client_for(store, clock)
    assert client.get("/organiser").headers["location"] == "/organiser/sign-in"
    r = sign_in(client, "correct horse battery!")
    assert r.status_code == 403 and "Wrong password." in r.text
    assert "clabber_organiser" not in client.cookies
    assert client.get("/organiser").status_code == 303
    r = sign_in(client)
    assert r.status_code == 303 and r.headers["location"] == "/organiser"
    assert client.get("/organiser").status_code == 200
    csrf = organiser_csrf(client)
    assert client.post("/organiser/sign-out", data={"csrf": csrf}).status_code == 303
    assert client.get("/organiser").status_code == 303


@pytest.mark.slow  # every wrong password hashed at full cost, and a restart
def test_a_brute_force_is_locked_out_longer_each_time_even_after_a_restart(league):
    store, _, _, clock = league
    client = client_for(store, clock)
    for _ in range(FREE_TRIES - 1):
        assert sign_in(client, "guess").status_code == 403
    waits = []
    for _ in range(4):
        r = sign_in(client, "guess")
        assert r.status_code == 403 and "Sign-in is locked" in r.text
        wait = int(r.headers["retry-after"])
        waits.append(wait)
        # Locked: even the right password is refused unchecked, from a new server on the same database.
        again = client_for(Store(store.url.render_as_string(hide_password=False)), clock)
        r = sign_in(again, PASSWORD)
        assert r.status_code == 429 and "Too many wrong passwords" in r.text
        assert "clabber_organiser" not in again.cookies
        clock.now += wait
    assert waits == [2, 4, 8, 16]
    assert sign_in(client).status_code == 303  # after the lock, the right password works and resets the count
    client.cookies.clear()
    assert sign_in(client, "guess").status_code == 403 and "retry-after" not in sign_in(client, "guess").headers


def test_the_session_cookie_is_httponly_strict_and_secure_behind_https(league):
    store, _, _, clock = league
    plain = session_cookie(sign_in(client_for(store, clock)))
    assert re.search(r"clabber_organiser=[\w-]{40,};", plain)
    flags = {f.strip().lower() for f in plain.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= flags and "secure" not in flags
    assert any(f.startswith("max-age=") for f in flags)
    secure = session_cookie(sign_in(client_for(store, clock, secure=True)))
    assert {"httponly", "samesite=strict", "secure"} <= {f.strip().lower() for f in secure.split(";")[1:]}


def test_posts_without_the_right_csrf_token_are_refused_with_nothing_written(league):
    store, _, ids, clock = league
    client = client_for(store, clock)
    before = events(store)
    # The sign-in form itself: without its token no password is tried (no lock-out counted either).
    for _ in range(FREE_TRIES + 2):
        r = client.post("/organiser/sign-in", data={"password": PASSWORD})
        assert r.status_code == 403 and "did not come from this site" in r.text
    assert sign_in(client).status_code == 303
    meeting = meeting_of(Organiser(store), ids["division"], ids["kings"], ids["queens"])
    with store.read() as r:
        game_id = r.games(meeting["id"])[0]["id"]
    posts = [
        ("/organiser/rule", {"game": game_id, "outcome": "a", "reason": "a forged ruling"}),
        ("/organiser/rule", {"game": game_id, "outcome": "a", "reason": "a forged ruling", "csrf": "x" * 43}),
        ("/organiser/forfeit", {"meeting": meeting["id"], "team": ids["kings"], "reason": "forged"}),
        ("/organiser/schedule", {"division": ids["division"], "start": "2026-02-01", "csrf": ""}),
    ]
    for path, data in posts:
        r = client.post(path, data=data)
        assert r.status_code == 403 and "did not come from this site" in r.text, path
    # The right token but no session: refused too.
    csrf = organiser_csrf(client)
    client.cookies.clear()
    r = client.post("/organiser/rule", data={"game": game_id, "outcome": "a", "reason": "r", "csrf": csrf})
    assert r.status_code == 403 and "Sign in first" in r.text
    assert events(store) == before
    assert "forged" not in client.get(f"/divisions/{ids['division']}/schedule").text


def test_the_forms_act_through_the_library_and_show_publicly(league):
    store, org, ids, clock = league
    _, division = org.create_season(ids["league"], "Spring 2026")
    for name in ("North", "South", "East", "West"):
        org.add_team(division, name, ["A", "B"])
    client = client_for(store, clock)
    sign_in(client)
    csrf = organiser_csrf(client)
    r = client.post("/organiser/schedule", data={"csrf": csrf, "division": division, "start": "2026-03-03"})
    assert r.status_code == 303
    page = client.get(f"/divisions/{division}/schedule").text
    assert "Round 3 · 2026-03-17" in page and "has the bye" not in page
    with store.read() as r:
        first = r.meetings(division)[0]
        names = {t["id"]: t["name"] for t in r.teams(division)}
    r = client.post(
        "/organiser/forfeit",
        data={"csrf": csrf, "meeting": first["id"], "team": first["team_b"], "reason": "no <b>players</b>"},
    )
    assert r.status_code == 303
    assert (
        f"Forfeited by {names[first['team_b']]}: no &lt;b&gt;players&lt;/b&gt;"
        in client.get(f"/divisions/{division}/schedule").text
    )
    # Ruling on the game the small season recorded: the hostile-named team's win stands after all.
    meeting = meeting_of(org, ids["division"], ids["kings"], ids["queens"])
    with store.read() as r:
        game_id = r.games(meeting["id"])[0]["id"]
    kings_side = "a" if meeting["team_a"] == ids["kings"] else "b"
    r = client.post(
        "/organiser/rule", data={"csrf": csrf, "game": game_id, "outcome": kings_side, "reason": "the deck was full"}
    )
    assert r.status_code == 303
    assert "(ruling: the deck was full)" in client.get(f"/divisions/{ids['division']}/schedule").text
    assert [e.kind for e in events(store)[-3:]] == ["schedule_made", "meeting_forfeited", "game_ruled"]
    standings = client.get(f"/seasons/{ids['season']}").text
    assert re.search(r"<td>1</td><td><a [^>]+>&lt;b&gt;Kings", standings) is None  # Aces still first
    assert "<td>2</td><td>1</td><td>1</td><td>0</td><td>1018</td>" in standings  # Kings: played 2, won 1, 1018 for


def test_a_refused_form_says_why_and_writes_nothing(league):
    store, _, ids, clock = league
    client = client_for(store, clock)
    sign_in(client)
    csrf = organiser_csrf(client)
    meeting = meeting_of(Organiser(store), ids["division"], ids["aces"], ids["queens"])
    before = events(store)
    for data, says in [
        ({"meeting": meeting["id"], "team": ids["aces"], "reason": "again"}, "is already forfeited"),
        ({"meeting": meeting["id"], "team": ids["aces"], "reason": " "}, "a reason is needed"),
        ({"meeting": "x", "team": ids["aces"], "reason": "r"}, "meeting: &#39;x&#39; is not a number"),
    ]:
        r = client.post("/organiser/forfeit", data={"csrf": csrf, **data})
        assert r.status_code == 400 and says in r.text, r.text
    r = client.post("/organiser/forfeit", content=b"{}", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "Send the form from its page." in r.text
    assert events(store) == before


def test_set_password_takes_it_from_the_environment_or_a_prompt_never_an_argument(league_db):
    runner = CliRunner()
    r = runner.invoke(cli, ["league", "--db", league_db, "organiser", "set-password", "hunter2hunter2"])
    assert r.exit_code == 2 and "unexpected extra argument" in r.stderr.lower()
    r = runner.invoke(cli, ["league", "--db", league_db, "organiser", "set-password"], input="short\nshort\n")
    assert r.exit_code == 2 and "password: from 10 to 1024 characters" in r.stderr
    r = runner.invoke(
        cli, ["league", "--db", league_db, "organiser", "set-password"], input="first password\nfirst password\n"
    )
    assert r.exit_code == 0 and "first password" not in r.stdout
    store = Store(league_db)
    assert SignIn(store).attempt("first password").token
    env = {"CLABBER_LEAGUE_PASSWORD": "second password"}
    r = runner.invoke(cli, ["league", "--db", league_db, "organiser", "set-password"], env=env)
    assert r.exit_code == 0
    assert SignIn(store).attempt("first password").refused == "Wrong password."
    assert SignIn(store).attempt("second password").token
    store.close()
