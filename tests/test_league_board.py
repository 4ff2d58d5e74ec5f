"""The venue board (``/board/VENUE``): what it shows of a night's tables, meetings and standings, drawn
by the server (without JavaScript), on SQLite and PostgreSQL; its server-sent events from a real
uvicorn server with the result server's guard: a push's change within a second, heartbeats, the
stream outliving the response deadline while other responses keep theirs, a shutdown that does not
wait for open boards; and the open boards' feed itself."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from league.board import feed
from league.board.feed import Boards, TooManyBoards
from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.organiser.signin import SignIn
from league.pages import board as board_pages
from league.pages import make_app
from league.serve import server
from league.store.core import Store
from shared.http import guard
from tests.board_helpers import TONIGHT, busy_night, push_body, table_game
from tests.league_kiosk_helpers import NIGHT, league_with_schedule, played_game, refused_event
from tests.league_pages_helpers import PASSWORD, Clock, organiser_csrf, sign_in
from tests.league_server import Api, LeagueServer, free_port
from tests.sse import Stream
from tests.store_helpers import open_table
from tests.test_league_organiser_pages import qr_text

HOSTILE = '<b>Kings</b> & "Co" <script>x()</script>'


@pytest.fixture
def night(league_db, tmp_path):
    store = Store(league_db)
    world = busy_night(store, tables=4)
    kiosks = Kiosks(store)
    games = []
    for i, (key, meeting, teams) in enumerate(zip(world["keys"], world["meetings"], world["teams"], strict=True)):
        events = table_game(tmp_path, teams, hands=i + 1)  # table 1 one hand, table 4 four
        kiosks.push(kiosks.kiosk_for_key(key), push_body(meeting, events))
        games.append(events)
    yield {**world, "store": store, "kiosks": kiosks, "games": games}
    store.close()


def cards(page: str) -> dict[int, str]:
    """Each table's card as text, by table number."""
    found = re.findall(r'<article class="[^"]*" data-table="(\d+)">(.*?)</article>', page, re.S)
    return {int(n): " ".join(re.sub(r"<[^>]+>", " ", body).split()) for n, body in found}


def test_the_board_shows_each_table_live_the_standings_and_a_qr_code_without_javascript(night):
    client = TestClient(make_app(night["store"]), base_url="http://league.test")
    r = client.get(f"/board/{night['venue']}")
    assert r.status_code == 200
    shown = cards(r.text)
    # Worked from the hands: N makes 112-50; E is set (NS 90, EW XX); S is set (XX, EW 92); W makes
    # 40-122 with four jacks.
    (a1, b1), (a2, b2) = night["teams"][:2]
    assert shown[1] == f"Table 1 1 hand {a1} NS 112 {b1} EW 50 Deal E {b1} E Last: NS made, 112–50"
    assert shown[2].startswith(f"Table 2 2 hands {a2} NS 202 {b2} EW 50 Deal S {a2} S")
    assert shown[2].endswith("Last: EW set, 90–XX")
    assert "Last: NS set, XX–" in shown[3] and "Deal W" in shown[3]
    assert "Last: EW made," in shown[4] and "Deal N" in shown[4]
    # The standings of the division playing there (nobody has finished a game yet), and the QR code
    # that opens them on a phone.
    assert "Division 1" in r.text and r.text.count("<tr><td>1</td>") == 8
    assert qr_text(r.text) == f"http://league.test/seasons/{night['season']}"
    # The policy: this site's script and events, the board's own style, nothing else.
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp and "default-src 'none'" in csp
    assert "unsafe" not in csp and "img-src" not in csp
    assert '<script src="/board.js"></script>' in r.text and "<script>" not in r.text
    # Other pages keep the stricter policy.
    assert "script-src" not in client.get(f"/seasons/{night['season']}").headers["content-security-policy"]
    js = client.get("/board.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "EventSource" in js.text


def test_a_public_url_goes_in_the_qr_code(night):
    app = make_app(night["store"], public_url="https://league.example.org/")
    page = TestClient(app).get(f"/board/{night['venue']}").text
    assert qr_text(page) == f"https://league.example.org/seasons/{night['season']}"


def test_a_set_aside_event_changes_nothing_and_a_game_over_shows_its_winner(night, tmp_path):
    store, kiosks = night["store"], night["kiosks"]
    k1 = kiosks.kiosk_for_key(night["keys"][0])
    # Table 1 pushes a hand the rules refuse: set aside, the card unchanged.
    answer = kiosks.push(k1, push_body(night["meetings"][0], [refused_event(len(night["games"][0]) + 1)]))
    assert answer["games"][0]["quarantined"]
    client = TestClient(make_app(store))
    a1, b1 = night["teams"][0]
    assert cards(client.get(f"/board/{night['venue']}").text)[1].startswith(f"Table 1 1 hand {a1} NS 112 {b1}")
    # Table 2's kiosk plays the meeting's game again as its game 2, to the end (EW win): the card
    # shows the newer game and its winner, and the standings have it.
    teams = night["teams"][1]
    done = played_game(tmp_path, teams, winner="EW", night=TONIGHT)
    kiosks.push(kiosks.kiosk_for_key(night["keys"][1]), push_body(night["meetings"][1], done, game=2))
    page = client.get(f"/board/{night['venue']}").text
    assert f"Won: {teams[1]}" in cards(page)[2] and "5 hands" in cards(page)[2]
    assert f"<tr><td>1</td><td>{teams[1]}</td><td>1</td><td>1</td>" in page


def test_meetings_to_start_and_not_at_a_table_names_as_text_and_what_is_not_found(league_db, tmp_path):
    store = Store(league_db)
    world = busy_night(store, tables=3)
    kiosks = Kiosks(store)
    events = table_game(tmp_path, world["teams"][0], hands=1)
    events[0]["payload"]["players"]["E"] = HOSTILE  # the dealer after one hand, as a kiosk's sheet could hold it
    kiosks.push(kiosks.kiosk_for_key(world["keys"][0]), push_body(world["meetings"][0], events))
    Organiser(store).move_meeting(world["meetings"][2], venue=world["venue"], table=None, reason="a table broke")
    client = TestClient(make_app(store))
    page = client.get(f"/board/{world['venue']}").text
    shown = cards(page)
    assert "<b>Kings" not in page and "&lt;b&gt;Kings&lt;/b&gt;" in page
    assert shown[2] == f"Table 2 to start {world['teams'][1][0]} NS {world['teams'][1][1]} EW"
    assert set(shown) == {1, 2}
    a, b = world["teams"][2]
    assert f"<h2>Tonight, not at a table yet</h2><ul><li>{a} v {b}</li></ul>" in page
    assert client.get("/board/999").status_code == 404
    assert client.get(f"/board/{world['venue']}?date=2026-13-01").status_code == 404
    assert client.get("/board/x").status_code == 404
    assert client.get("/board/999/events").status_code == 404
    # Another night: the venue's board with nothing on it.
    other = client.get(f"/board/{world['venue']}?date=2030-01-01")
    assert other.status_code == 200 and "No games at this venue tonight." in other.text
    store.close()


def test_a_push_tells_its_venues_boards_and_a_result_tells_every_venues(league_db, tmp_path):
    store = Store(league_db)
    world = busy_night(store, tables=2)
    told: list[int | None] = []
    kiosks = Kiosks(store, published=told.append)
    k1, k2 = (kiosks.kiosk_for_key(k) for k in world["keys"])
    events = table_game(tmp_path, world["teams"][0], hands=1)
    kiosks.push(k1, push_body(world["meetings"][0], events))
    kiosks.push(k1, push_body(world["meetings"][0], events))  # again: nothing stored, nobody told
    assert told == [world["venue"]]
    done = played_game(tmp_path, world["teams"][1], winner="NS", night=TONIGHT)
    kiosks.push(k2, push_body(world["meetings"][1], done))  # ends the game: the standings change
    assert told == [world["venue"], None]
    store.close()


def test_an_organisers_form_tells_the_boards(league_db):
    store = Store(league_db)
    told: list[int | None] = []

    class Told(Boards):
        def changed(self, venue: int | None = None) -> None:
            told.append(venue)

    clock = Clock()
    SignIn(store, clock).set_password(PASSWORD)
    client = TestClient(make_app(store, clock=clock, boards=Told()), follow_redirects=False)
    assert sign_in(client).status_code == 303
    r = client.post(
        "/organiser/league", data={"csrf": organiser_csrf(client), "name": "Tuesdays", "back": "/organiser"}
    )
    assert r.status_code == 303 and told == [None]
    r = client.post("/organiser/league", data={"csrf": organiser_csrf(client), "name": "", "back": "/organiser"})
    assert r.status_code == 400 and told == [None]  # refused: nothing changed, nobody told
    store.close()


# ---- the feed, on its own -------------------------------------------------------------------------


@pytest.mark.slow
def test_the_feed_draws_once_for_many_boards_keeps_the_newest_and_forgets_closed_boards():
    drawn: list[tuple[int, str]] = []
    state = {"n": 0}

    def draw(venue: int, night: str) -> str:
        drawn.append((venue, night))
        time.sleep(0.05)
        return f"{venue}:{state['n']}"

    async def run() -> None:
        boards = Boards(draw, most=5, refresh=3600)
        watchers = [boards.watch((1, "n")) for _ in range(4)]
        other = boards.watch((2, "n"))
        with pytest.raises(TooManyBoards):
            boards.watch((1, "n"))
        assert [await asyncio.wait_for(w.queue.get(), 2) for w in watchers] == ["1:0"] * 4
        assert await asyncio.wait_for(other.queue.get(), 2) == "2:0"
        assert drawn.count((1, "n")) <= 2  # opened together: drawn once (twice at most, if one came mid-drawing)
        drawn.clear()
        # Ten changes announced from another thread while the first is drawn: drawn twice, not ten times.
        state["n"] = 1
        threads = [threading.Thread(target=boards.changed, args=(1,)) for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [await asyncio.wait_for(w.queue.get(), 2) for w in watchers] == ["1:1"] * 4
        await asyncio.sleep(0.3)
        assert 1 <= len(drawn) <= 2 and set(drawn) == {(1, "n")}  # venue 2 was not drawn again
        assert other.queue.empty()
        # A drawing that shows nothing new is not sent.
        boards.changed(1)
        await asyncio.sleep(0.3)
        assert all(w.queue.empty() for w in watchers)
        # A board that reads nothing is sent only the newest states.
        for n in range(2, 12):
            state["n"] = n
            boards.changed(2)
            await asyncio.sleep(0.1)
        held = [other.queue.get_nowait() for _ in range(other.queue.qsize())]
        assert held[-1] == "2:11" and len(held) <= 4
        # Closed boards are forgotten, and the last one's drawing with them.
        for w in watchers:
            boards.leave(w)
        assert (1, "n") not in boards.watchers and (1, "n") not in boards.sent and boards.open == 1

    asyncio.run(run())


# ---- a real server ------------------------------------------------------------------------------------


@contextlib.contextmanager
def in_thread(db: str) -> Iterator[int]:
    """``clabber league serve``'s server (the guard's deadlines and all) in a thread of this process,
    so the test can shorten its clocks; yields its port."""
    store = Store(db)
    port = free_port()
    srv, sock = server(store, "127.0.0.1", port)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield port
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()
        store.close()


@pytest.mark.slow
def test_a_push_reaches_an_open_board_within_a_second_and_quiet_streams_outlive_the_deadline(tmp_path, monkeypatch):
    db = str(tmp_path / "league.db")
    store = Store(db)
    world = busy_night(store, tables=2)
    store.close()
    monkeypatch.setattr(board_pages, "HEARTBEAT", 0.3)
    monkeypatch.setattr(board_pages, "STREAM_DEADLINE", 1.0)
    monkeypatch.setattr(guard, "RESPONSE_TIMEOUT", 1.0)  # every other response: 1 s to be written
    events = table_game(tmp_path, world["teams"][0], hands=3)

    async def run(port: int) -> None:
        loop = asyncio.get_running_loop()
        api = Api(port)

        def push(evs: list) -> tuple[int, dict]:
            return api.call("POST", "/api/v1/push", push_body(world["meetings"][0], evs), world["keys"][0])

        assert (await loop.run_in_executor(None, push, events[:3]))[0] == 200  # started, one hand
        stream = await Stream.open(port, f"/board/{world['venue']}/events")
        assert stream.status == 200 and stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["cache-control"] == "no-store"
        first = await stream.next()
        assert first.retry == board_pages.RETRY_MS
        board = json.loads((await stream.next_board(5)).data)
        assert cards(board["tables"])[1].startswith(f"Table 1 1 hand {world['teams'][0][0]} NS 112")
        # Quiet: heartbeats, and the stream lives on past the response deadline (1 s).
        opened = time.monotonic()
        comments = 0
        while time.monotonic() - opened < 2.5:
            comments += (await stream.next(2)).kind == "comment"
        assert comments >= 5
        # A push: its change reaches the board within a second of its acknowledgement.
        status, answer = await loop.run_in_executor(None, push, events[3:5])
        acked = time.monotonic()
        assert status == 200 and answer["games"][0]["stored"] == 2
        update = await stream.next_board(1.0)
        assert update.at - acked < 1.0
        assert cards(json.loads(update.data)["tables"])[1].startswith(f"Table 1 2 hands {world['teams'][0][0]} NS 202")
        stream.close()

    with in_thread(db) as port:
        asyncio.run(run(port))


@pytest.mark.slow
def test_a_stream_that_gets_nothing_out_is_closed_and_other_responses_keep_their_deadline(tmp_path, monkeypatch):
    """The guard on its own: a response that streams without asking for more time is cut at the
    response deadline; one that asks keeps going while it writes; when it stops writing, its own
    deadline closes it."""
    import uvicorn

    from shared.http.server import guarded_server

    monkeypatch.setattr(guard, "RESPONSE_TIMEOUT", 0.5)

    async def app(scope, receive, send):
        put_off = scope.get("extensions", {}).get(guard.LONG_RESPONSE)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        asks = scope["path"] != "/plain"
        for i in range(20):
            if asks and put_off is not None:
                put_off(0.5)
            await send({"type": "http.response.body", "body": f"{i}\n".encode(), "more_body": True})
            if scope["path"] == "/stuck" and i == 5:
                await asyncio.sleep(1.5)  # gets nothing out, and does not ask again
                return
            await asyncio.sleep(0.1)
        await send({"type": "http.response.body", "body": b""})

    port = free_port()
    srv, sock = guarded_server(app, "127.0.0.1", port, lifespan="off")
    assert isinstance(srv, uvicorn.Server)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.02)

    async def lines(path: str) -> tuple[int, float]:
        s = await Stream.open(port, path)
        start, got = time.monotonic(), 0
        with contextlib.suppress(EOFError, asyncio.IncompleteReadError, ConnectionError):
            while got < 20:
                piece = await asyncio.wait_for(s._chunk(), 10)
                if not piece:
                    break  # closed
                got += piece.count("\n")
        s.close()
        return got, time.monotonic() - start

    try:
        got, took = asyncio.run(lines("/plain"))
        assert got < 10 and took < 1.5  # cut at 0.5 s
        got, took = asyncio.run(lines("/stream"))
        assert got == 20 and took > 1.5  # 2 s of writing, asking each time
        got, took = asyncio.run(lines("/stuck"))
        assert got == 6 and took < 1.2  # asked, then wrote nothing: closed 0.5 s after its last ask
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()


def test_a_server_with_open_boards_stops_at_once(tmp_path):
    db = str(tmp_path / "league.db")
    store = Store(db)
    world = busy_night(store, tables=1)
    store.close()
    served = LeagueServer(db)
    served.start()

    async def open_boards() -> list[Stream]:
        streams = [await Stream.open(served.port, f"/board/{world['venue']}/events") for _ in range(3)]
        for s in streams:
            await s.next_board(5)
        return streams

    loop = asyncio.new_event_loop()
    try:
        streams = loop.run_until_complete(open_boards())
        proc = served.proc
        assert proc is not None
        started = time.monotonic()
        served.stop()  # SIGTERM; killed after 10 s if it has not stopped by then
        assert time.monotonic() - started < 5 and proc.returncode == -signal.SIGTERM  # not killed (-9)
        for s in streams:
            with pytest.raises((EOFError, ConnectionError, asyncio.IncompleteReadError)):
                loop.run_until_complete(s.next(5))
    finally:
        loop.close()


async def _raw_stream(port: int, path: str, address: str) -> tuple[asyncio.StreamWriter, int]:
    """A board's stream opened from ``address`` (as a TLS proxy on this machine says it) that is never
    read past its status line; the writer keeps it open."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {address}\r\n\r\n".encode())
    await writer.drain()
    status = int((await asyncio.wait_for(reader.readline(), 10)).split()[1])
    return writer, status


@pytest.mark.slow
def test_a_flood_of_streams_at_one_venue_leaves_another_venues_board_and_each_ends_by_its_lifetime(
    tmp_path, monkeypatch
):
    """300 streams that never read at venue 1, each from an address of its own: venue 1's share of the
    boards opens and the rest are turned away, while venue 2's TV opens and gets its board; one
    address gets its share only; every stream ends at its lifetime, and the browser comes back."""
    db = str(tmp_path / "league.db")
    store = Store(db)
    world = league_with_schedule(store)
    store.close()
    # Long enough that no stream of the flood ends (and frees its place) while the rest are opened on a
    # busy machine, short enough to wait for.
    lifetime = 10.0
    monkeypatch.setattr(board_pages, "STREAM_LIFETIME", lifetime)
    one, two = (f"/board/{v}/events?date={NIGHT}" for v in world["venues"])

    async def run(port: int) -> None:
        flood = [await _raw_stream(port, one, f"10.0.{i // 250}.{i % 250 + 1}") for i in range(300)]
        statuses = [status for _, status in flood]
        assert statuses.count(200) == feed.MOST_AT_VENUE and statuses.count(503) == 300 - feed.MOST_AT_VENUE
        tv = await Stream.open(port, two)
        opened = time.monotonic()  # its lifetime began just before, while the other address's streams open
        assert tv.status == 200
        assert json.loads((await tv.next_board(5)).data)["tables"]
        from_one = [await _raw_stream(port, two, "192.0.2.7") for _ in range(feed.MOST_FROM_ADDRESS + 1)]
        assert [s for _, s in from_one].count(200) == feed.MOST_FROM_ADDRESS and from_one[-1][1] == 503
        with pytest.raises(EOFError):
            while True:
                await tv.next(lifetime)
        assert lifetime - 0.5 < time.monotonic() - opened < lifetime + 2
        for writer, _ in flood + from_one:
            writer.close()
        await asyncio.sleep(0.5)
        again = await Stream.open(port, two)  # as the browser does after its retry
        assert again.status == 200
        again.close()
        tv.close()

    with in_thread(db) as port:
        asyncio.run(run(port))


def test_the_last_hand_in_words_a_makers_renege_and_a_zero(tmp_path):
    """The board's line for the last hand: a renege ends play (nobody made or was set), a zero is 0."""
    from league.board.tonight import last_hand
    from shared.game_state import GameState

    table = open_table(tmp_path / "kiosk.db")
    g = table.new_game(["A", "B"], first_dealer="E")
    renege = {"trump": "D", "maker": "N", "points": {"NS": 112, "EW": 50}, "renege": {"by": "NS", "reason": "no trump"}}
    table.add_hand(g.id, renege)
    assert last_hand(GameState.from_events(table.store.events(g.id))) == "renege by NS, 0–162"
    table.add_hand(g.id, {"trump": "H", "maker": "E", "points": {"NS": 162, "EW": 0}})
    assert last_hand(GameState.from_events(table.store.events(g.id))) == "EW set, 162–XX"
    table.close()


def test_an_empty_board_beside_meetings_still_to_start_says_none_has_started(league_db):
    """Tonight's meetings at no table yet and no game begun: the board says no game has started, not
    that there are none tonight; another night with no meetings says there are none."""
    store = Store(league_db)
    world = league_with_schedule(store)
    client = TestClient(make_app(store))
    page = client.get(f"/board/{world['venues'][0]}?date={NIGHT}").text
    assert "No game has started at a table yet." in page and "Tonight, not at a table yet" in page
    assert "No games at this venue tonight." not in page
    other = client.get(f"/board/{world['venues'][0]}?date=2030-01-01").text
    assert "No games at this venue tonight." in other and "No game has started" not in other
    store.close()
