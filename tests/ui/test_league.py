"""The kiosk in a league, through simulated touches on the real window: joining on the owner's screen
against a real league server on loopback, tonight's meeting in one tap, an unscheduled league game,
the sync mark and the owner's status in each state, the league's QR codes at game over, a ruling."""

from __future__ import annotations

import socket
from dataclasses import asdict

import pytest
import zxingcpp
from PIL import Image

from engine.rules import parse_rules
from kiosk import league_link, outbox
from kiosk.league_words import when
from league.ingest.kiosks import Kiosks
from league.store.core import Store as LeagueStore
from tests.league_kiosk_helpers import NIGHT, league_with_schedule
from tests.league_server import league_server
from tests.ui.flows import quick_hand, type_text
from tests.ui.league_flows import (
    ACES,
    HELD,
    JACKS,
    KINGS,
    KIOSK,
    QUEENS,
    UNREACHABLE,
    URL,
    in_a_league,
    iso,
    sync_state,
    tonight_with,
)

PIN = "246813"
MIDDAY = f"{NIGHT}T12:00:00.000+00:00"  # the league night, whatever the machine's time zone


@pytest.fixture
def league(tmp_path):
    """A real ``clabber league serve`` on loopback over a league with a schedule (SQLite)."""
    db = str(tmp_path / "league.db")
    store = LeagueStore(db)
    world = league_with_schedule(store)
    with league_server(db) as api:
        yield {**world, "kiosks": Kiosks(store), "api": api, "url": f"http://127.0.0.1:{api.port}"}
    store.close()


def type_pin(kiosk, pin=PIN):
    for d in pin:
        kiosk.tap_exact(d)
    kiosk.tap("unlock")


def type_keys(kiosk, text):
    """Types on the owner's address keys, one tap a key."""
    for ch in text.upper():
        kiosk.tap_exact(ch)


def until(kiosk, done, seconds=20.0):
    """Lets the window run until ``done()`` (bounded)."""
    for _ in range(int(seconds / 0.05)):
        if done():
            kiosk.frames(3)  # laid out, as a finger would find it
            return
        kiosk.wait(0.05)
    raise AssertionError("the screen never got there")


def started(kiosk, game):
    """The game's first event as the store keeps it."""
    return kiosk.table.store.events(game)[0].payload


def decode(kiosk, tmp_path, name):
    found = zxingcpp.read_barcodes(Image.open(kiosk.screenshot(tmp_path / name)))
    assert len(found) == 1
    return found[0].text


# ---- joining ---------------------------------------------------------------------------------------


def test_the_owner_joins_a_league_with_its_code_on_the_screen_and_leaves_it(kiosk, league):
    kiosk.table.set_pin(PIN)
    venue = league["venues"][1]
    code = league["kiosks"].make_code(venue, 2)
    kiosk.tap("start_owner")  # no game open: the owner's menu from the start screen
    type_pin(kiosk)
    kiosk.tap("league")
    assert kiosk.screen.step == "join"
    type_keys(kiosk, league["url"])
    kiosk.tap("field_code")
    type_keys(kiosk, code.lower())
    assert kiosk.text("field_address") == f"League: {league['url']}" and kiosk.text("field_code") == f"Code: {code}"
    kiosk.tap("join")
    until(kiosk, lambda: not kiosk.screen.joining)
    assert kiosk.screen.notes == ""  # nothing went wrong: the strip says what happened, in amber
    assert kiosk.screen.step == "league" and kiosk.text("notes") == "Joined the league: Bar 2, table 2."
    lines = kiosk.text("league_lines")
    assert f"League: {league['url']} (kiosk " in lines and "Venue: Bar 2, table 2" in lines
    assert kiosk.text("league_said") == "The sync has not reported yet: nothing waits."
    joined = outbox.link(kiosk.table.store)
    assert joined["venue"] == {"id": venue, "name": "Bar 2"} and joined["table"] == 2 and len(joined["key"]) == 43
    assert joined["key"] not in lines

    kiosk.tap("leave_league")
    assert kiosk.screen.step == "leave" and outbox.link(kiosk.table.store) is not None  # asked first
    kiosk.tap("leave_no")
    assert kiosk.screen.step == "league"
    kiosk.tap("leave_league")
    kiosk.tap("leave_yes")
    assert outbox.link(kiosk.table.store) is None and kiosk.screen.step == "menu"
    assert kiosk.text("notes") == "This kiosk has left the league; its league games stay on it."
    kiosk.tap("league")
    assert kiosk.screen.step == "join"


def test_a_wrong_code_is_refused_in_words_and_nothing_is_kept(kiosk, league):
    kiosk.table.set_pin(PIN)
    kiosk.tap("start_owner")
    type_pin(kiosk)
    kiosk.tap("league")
    type_keys(kiosk, league["url"])
    kiosk.tap("field_code")
    type_keys(kiosk, "AAAAA-AAAAA")
    kiosk.tap("join")
    until(kiosk, lambda: not kiosk.screen.joining)
    assert kiosk.text("notes").startswith("the league refused the code: this code is unknown, used or expired")
    assert kiosk.screen.step == "join" and outbox.link(kiosk.table.store) is None
    kiosk.tap("field_address")
    for _ in range(len(league["url"])):
        kiosk.tap_exact("⌫")
    type_keys(kiosk, "http://league.example.org")
    kiosk.tap("join")  # refused before anything is sent
    assert "must start with https://" in kiosk.text("notes") and not kiosk.screen.joining


def test_the_screen_keeps_working_while_a_silent_league_is_asked(kiosk):
    """A league that takes the connection and never answers: the screen says so, stays usable, and
    gives up in words when the time is up."""
    kiosk.table.set_pin(PIN)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # connections wait in the backlog, unanswered
    try:
        kiosk.tap("start_owner")
        type_pin(kiosk)
        kiosk.tap("league")
        kiosk.screen.join_timeout = 2.0
        type_keys(kiosk, f"http://127.0.0.1:{silent.getsockname()[1]}")
        kiosk.tap("field_code")
        type_keys(kiosk, "K7QMD-3XHPA")
        kiosk.tap("join")
        assert kiosk.screen.joining and kiosk.text("notes") == "Joining the league…"
        assert kiosk.widget("join").disabled and kiosk.text("join") == "Joining…"
        kiosk.wait(0.5)
        kiosk.tap("join_menu")  # the screen answers a tap while the league is asked
        assert kiosk.screen.step == "menu"
        until(kiosk, lambda: not kiosk.screen.joining)
        assert "cannot reach the league at" in kiosk.text("notes") and "timed out" in kiosk.text("notes")
        assert outbox.link(kiosk.table.store) is None
    finally:
        silent.close()


# ---- league night on the start screen --------------------------------------------------------------------


def test_tonights_meeting_starts_in_one_tap_and_its_qr_codes_open_the_league(kiosk, league, tmp_path):
    venue = league["venues"][0]
    table = kiosk.table
    league_link.join(table.store, league["url"], league["kiosks"].make_code(venue, 1))
    key = outbox.link(table.store)["key"]
    status, answer = league["api"].call("GET", f"/api/v1/tonight?date={NIGHT}", key=key)
    assert status == 200 and len(answer["meetings"]) == 1
    outbox.set_tonight(table.store, {**answer, "fetched_at": MIDDAY})  # as the sync worker caches it
    outbox.set_sync_state(table.store, {"state": "connected", "at": MIDDAY, "last_delivery": None})
    table.clock = lambda: MIDDAY  # the league night
    kiosk.root.show("start")  # the start screen reads the cache afresh
    kiosk.frames(3)

    [m] = answer["meetings"]
    a, b = m["teams"]["a"], m["teams"]["b"]
    assert kiosk.screen.step == "tonight"
    assert kiosk.text("league_note") == "Tonight at Bar 1: tap your meeting."
    assert kiosk.text("meeting_0") == f"{a['name']} v {b['name']}"
    kiosk.taps = 0
    kiosk.tap("meeting_0")
    assert kiosk.taps == 1 and kiosk.screen.step == "draw", kiosk.screen.message  # one tap: the game is stored
    game = kiosk.root.game_id
    payload = started(kiosk, game)
    assert payload["teams"] == {"NS": a["name"], "EW": b["name"]}
    assert payload["players"] == {
        "N": a["players"][0],
        "S": a["players"][1],
        "E": b["players"][0],
        "W": b["players"][1],
    }
    assert payload["rules"] == asdict(parse_rules(m["rules"])) == m["rules"]
    assert payload["league"] == {"meeting": m["meeting"], "NS": a["id"], "EW": b["id"]}
    assert "draw" in payload  # the Jack draw chose the first dealer
    assert "nobody changes seats" in kiosk.text("draw_text")
    assert outbox.league_game(kiosk.table.store, game)["meeting"] == m["meeting"]
    assert outbox.queued(kiosk.table.store) == 1
    kiosk.tap("draw_done")
    assert kiosk.root.manager.current == "sheet" and kiosk.text("sync_mark") == "☁ 1"

    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "N", "S", "162", team="NS")
    link = outbox.link(kiosk.table.store)
    scanned = decode(kiosk, tmp_path, "game.png")
    assert scanned == f"{league['url']}/k/{link['kiosk']}/{game}"
    # Under the code, what it opens and its link written in full, to type (a browser adds the scheme).
    what, *typed = kiosk.text("qr_text").split("\n")
    assert what == "this game:" and "".join(typed) == scanned.split("://", 1)[1]
    kiosk.tap("qr_switch")
    standings = decode(kiosk, tmp_path, "standings.png")
    what, *typed = kiosk.text("qr_text").split("\n")
    assert standings == f"{league['url']}/" and what == "standings:" and "".join(typed) == standings.split("://")[1]
    page_status, page = league["api"].page("/")
    assert page_status == 200 and "Evansville Clabber League" in page
    kiosk.tap("qr_switch")
    assert decode(kiosk, tmp_path, "again.png").endswith(f"/k/{link['kiosk']}/{game}")

    kiosk.tap("new_game")
    kiosk.tap_exact("◀ Back")
    assert kiosk.text("meeting_0").endswith("· played") and kiosk.widget("meeting_0").disabled


def test_a_friendly_games_qr_is_still_the_kiosks_own_result_page(kiosk, tmp_path):
    in_a_league(kiosk.table.store)
    tonight_with(kiosk.table.store)
    kiosk.restart()
    kiosk.tap("friendly")
    kiosk.tap("first_N")
    type_text(kiosk, "Us")
    kiosk.tap("field_EW")
    type_text(kiosk, "Them")
    kiosk.tap("start")
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "N", "S", "162", team="NS")
    g = kiosk.root.game
    assert g.league is None and outbox.queued(kiosk.table.store) == 0
    assert decode(kiosk, tmp_path, "over.png") == f"{kiosk.root.public_url}/g/{g.token}"
    assert kiosk.widget("qr_switch").disabled and kiosk.widget("qr_switch").opacity == 0


def test_an_unscheduled_league_game_is_counted_only_with_a_meeting(kiosk):
    kiosk.table.set_pin(PIN)
    in_a_league(kiosk.table.store, state="unreachable")
    cached = tonight_with(kiosk.table.store)
    kiosk.restart()
    assert kiosk.text("league_note").startswith("League unreachable since ")
    assert kiosk.text("league_note").endswith(f": the meetings as fetched at {when(cached['fetched_at'], iso())}.")
    assert kiosk.widget("meeting_0").text == "Aces v Kings · table 2" and not kiosk.widget("meeting_0").disabled
    assert kiosk.widget("meeting_1").disabled and kiosk.widget("meeting_2").disabled  # forfeited, played

    kiosk.tap("unscheduled")
    kiosk.tap(f"team_{JACKS}")
    kiosk.tap(f"team_{ACES}")
    assert "no meeting in the league's list" in kiosk.text("pick_text")
    assert kiosk.text("league_start") == "Friendly game ▶"
    kiosk.tap(f"team_{ACES}")  # taken back
    kiosk.tap(f"team_{QUEENS}")
    assert kiosk.text("pick_text") == "NS: Jacks    EW: Queens" and kiosk.text("league_start") == "Start ▶"
    kiosk.tap("league_start")
    payload = started(kiosk, kiosk.root.game_id)
    assert payload["teams"] == {"NS": "Jacks", "EW": "Queens"}
    assert payload["league"] == {"meeting": 12, "NS": JACKS, "EW": QUEENS}
    assert payload["players"] == {"N": "Gus Weber", "S": "Hal Stoll", "E": "Ida Roth", "W": "Jo Baum"}
    assert payload["rules"]["target"] == 300

    kiosk.tap("draw_done")
    kiosk.tap("owner")
    type_pin(kiosk)
    kiosk.tap("abandon")
    kiosk.tap_exact("started by mistake")
    kiosk.tap("new_game")
    kiosk.tap_exact("◀ Back")
    kiosk.tap("unscheduled")
    kiosk.tap(f"team_{KINGS}")  # Kings at NS though they are the meeting's team b
    kiosk.tap(f"team_{ACES}")
    kiosk.tap("league_start")
    payload = started(kiosk, kiosk.root.game_id)
    assert payload["league"] == {"meeting": 11, "NS": KINGS, "EW": ACES}
    assert payload["players"]["N"] == "Dee Kessler" and payload["players"]["E"] == "Ann Ruminer"

    kiosk.tap("draw_done")
    kiosk.tap("owner")
    type_pin(kiosk)
    kiosk.tap("abandon")
    kiosk.tap_exact("started by mistake")
    kiosk.tap("new_game")
    kiosk.tap_exact("◀ Back")
    kiosk.tap("unscheduled")
    kiosk.tap(f"team_{JACKS}")
    kiosk.tap(f"team_{ACES}")
    kiosk.tap("league_start")  # no meeting: a friendly game between the two teams
    g = kiosk.root.game
    assert g.league is None and g.teams == {"NS": "Jacks", "EW": "Aces"}
    assert outbox.league_game(kiosk.table.store, g.id) is None


def test_an_old_or_missing_list_is_said_and_a_friendly_game_still_starts(kiosk):
    in_a_league(kiosk.table.store, state="connected")
    kiosk.restart()
    assert kiosk.screen.step == "tonight" and kiosk.text("league_note") == "No meetings from the league yet."
    assert kiosk.widget("unscheduled").disabled and not kiosk.widget("meetings").children
    tonight_with(kiosk.table.store, date="2026-01-06")
    kiosk.restart()
    assert kiosk.text("league_note").startswith("The meetings of Tue 6 Jan (fetched ")
    assert kiosk.text("league_note").endswith("tonight's are not in yet.")
    assert kiosk.text("meeting_0").startswith("Aces")
    kiosk.tap("friendly")
    assert kiosk.screen.step == "deal"  # who deals first, then the names
    kiosk.tap("deal_back")
    assert kiosk.screen.step == "tonight"


def test_a_kiosk_in_no_league_starts_as_before(kiosk):
    assert kiosk.screen.step == "home" and kiosk.widget("new_game").text == "New game"
    tonight_with(kiosk.table.store)  # a list left from a league the kiosk has left
    kiosk.restart()
    assert kiosk.screen.step == "home"


# ---- the sync mark and the owner's status ----------------------------------------------------------------


def start_tonights_game(kiosk):
    tonight_with(kiosk.table.store)
    kiosk.restart()
    kiosk.tap("meeting_0")
    kiosk.tap("draw_done")
    assert kiosk.root.manager.current == "sheet"
    return kiosk.root.game_id


def owners_league(kiosk):
    kiosk.tap("owner")
    type_pin(kiosk)
    kiosk.tap("league")
    return kiosk.text("league_said"), kiosk.text("league_lines")


def test_no_mark_outside_a_league(kiosk):
    from tests.ui.flows import start_game

    start_game(kiosk)
    assert kiosk.text("sync_mark") == "" and kiosk.widget("sync_mark").width == 0


@pytest.mark.parametrize(
    "state, acked, mark, said",
    [
        ("connected", True, "☁ ✓", "Connected: every game delivered."),
        ("connected", False, "☁ 1", "Connected: 1 event of 1 game waits on the kiosk."),
        ("waiting", False, "☁ 1", "Waiting: 1 event of 1 game waits on the kiosk; next try at {next_try}."),
        (
            "unreachable",
            False,
            "☁ ✕",
            "League unreachable since {since}: 1 event of 1 game waits on the kiosk; next try at {next_try}.",
        ),
        (
            "revoked",
            False,
            "☁ ✕",
            "The league refused this kiosk's key: leave, then join with a new code."
            " 1 event of 1 game waits on the kiosk.",
        ),
        (None, False, "☁ 1", "The sync has not reported yet: 1 event of 1 game waits on the kiosk."),
    ],
)
def test_the_sync_mark_and_the_owners_status_in_each_state(kiosk, state, acked, mark, said):
    kiosk.table.set_pin(PIN)
    in_a_league(kiosk.table.store, state=None)
    game = start_tonights_game(kiosk)  # the kiosk restarts: a new controller on the same file
    store = kiosk.table.store
    if acked:
        outbox.acknowledge(store, game, 1)
    if state is not None:
        worker = sync_state(state)
        outbox.set_sync_state(store, worker)  # as the sync worker writes it, from its own process
        said = said.format(since=when(worker["since"], iso()), next_try=when(worker.get("next_try"), iso()))
    kiosk.wait(2.3)  # the header reads the worker's word every 2 s
    assert kiosk.text("sync_mark") == mark
    shown_said, lines = owners_league(kiosk)
    assert shown_said == said
    assert f"League: {URL} (kiosk {KIOSK})" in lines and "Venue: Germania, table 2" in lines
    if state == "unreachable":
        assert f"Last error: {UNREACHABLE}" in lines
    assert ("Last delivery: none yet" in lines) == (state is None)


def test_a_held_game_is_on_the_owners_screen_with_why(kiosk):
    kiosk.table.set_pin(PIN)
    in_a_league(kiosk.table.store, state="connected")
    game = start_tonights_game(kiosk)
    outbox.hold(kiosk.table.store, game, HELD)
    _, lines = owners_league(kiosk)
    assert f"Held: game {game} (meeting 11): {HELD}" in lines
    outbox.set_sync_state(kiosk.table.store, sync_state("unreachable"))
    kiosk.wait(2.3)  # the status follows the worker while it is shown
    assert kiosk.text("league_said").startswith("League unreachable since ")


# ---- a ruling ----------------------------------------------------------------------------------------------


def test_an_organisers_ruling_is_shown_on_the_games_sheet(kiosk):
    in_a_league(kiosk.table.store)
    game = start_tonights_game(kiosk)
    assert kiosk.text("ruling") == ""
    ruling = {"outcome": "b", "points_a": 320, "points_b": 500, "reason": "scores misread"}
    outbox.set_rulings(kiosk.table.store, {str(game): ruling})
    quick_hand(kiosk, "E", "H", "70", team="NS")
    assert kiosk.text("ruling") == "Organiser's ruling: Kings win 500 – 320 (scores misread)"
    outbox.set_rulings(kiosk.table.store, {str(game): {**ruling, "outcome": None, "reason": "short deck"}})
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "W", "S", "0", team="NS")
    assert kiosk.text("ruling") == "Organiser's ruling: abandoned, counts for nobody (short deck)"
