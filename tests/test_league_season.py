"""A league season end to end, on SQLite and PostgreSQL: the organiser creates a season of six teams
from the command line and makes its schedule; two kiosks at two bars enrol with one-time codes over
HTTP; their tables play the first round with the kiosk's table controller (one game corrected by the
owner after it ended, one with a hand the rules refuse) and push the games to a real
``clabber league serve``; the public standings page shows the standings worked out by hand, each
game's page its sheet, and the refused hand waits in the quarantine."""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner

from shared.cli import cli
from tests.league_kiosk_helpers import NIGHT, SMALLER_WIN, played_game, refused_event
from tests.league_server import Api, league_server

TEAMS = ["Aces", "Kings", "Queens", "Jacks", "Tens", "Nines"]  # ids 1 to 6, in this order


def league(db: str, *args: str) -> str:
    r = CliRunner().invoke(cli, ["league", "--db", db, *args])
    assert r.exit_code == 0, r.stderr
    return r.stdout


@pytest.fixture
def season(league_db):
    league(league_db, "create", "Evansville Clabber League")
    league(league_db, "season", "1", "Winter 2026")
    for name in TEAMS:
        league(league_db, "team", "1", name, "--player", f"{name} one", "--player", f"{name} two")
    league(league_db, "venue", "1", "Germania", "--tables", "2")
    league(league_db, "venue", "1", "Hornet's Nest", "--tables", "2")
    league(league_db, "schedule", "1", "--start", NIGHT)
    with league_server(league_db) as api:
        yield {"db": league_db, "api": api}


def _enrol(s, venue: int) -> str:
    code = league(s["db"], "enrol-code", str(venue), "1").strip()
    status, got = s["api"].call("POST", "/api/v1/enrol", {"code": code})
    assert status == 200, got
    return str(got["key"])


def _push_in_batches(api: Api, key: str, game: int, meeting: int, events: list[dict], size: int = 4) -> dict:
    """As a kiosk's sync worker would: a few events a push, each game's first push naming its meeting."""
    got: dict = {}
    quarantined = []
    for i in range(0, len(events), size):
        status, answer = api.call(
            "POST", "/api/v1/push", {"games": [{"game": game, "meeting": meeting, "events": events[i : i + size]}]}, key
        )
        assert status == 200, answer
        got = answer["games"][0]
        quarantined += got["quarantined"]
    return {**got, "quarantined": quarantined}


def _standings(page: str) -> list[list[str]]:
    """Place, team, played, won, lost, tied, for, against, difference (signed as plain numbers); the
    form under each name and the head-to-head column left out."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = [re.sub(r'<br><span class="form".*?</span>', "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells][:9]
        rows.append([*cells[:8], cells[8].replace("−", "-").removeprefix("+")])
    return rows


@pytest.mark.slow
def test_a_round_played_at_two_bars_reaches_the_standings(season, tmp_path):
    api, db = season["api"], season["db"]
    schedule = json.loads(league(db, "schedule", "1", "--json"))
    pairs = {
        (m["team_a"], m["team_b"]): (m["id"], m["venue_id"])
        for m in schedule
        if m["round"] == 1 and m["team_b"] is not None
    }
    # The circle method's first round, worked by hand: 1 v 6, 2 v 5, 3 v 4; two meetings at the
    # first bar (two tables), one at the second.
    assert sorted(pairs) == [(1, 6), (2, 5), (3, 4)]
    assert sorted(v for _m, v in pairs.values()) == [1, 1, 2]
    germania, hornets = _enrol(season, 1), _enrol(season, 2)

    status, tonight = api.call("GET", f"/api/v1/tonight?date={NIGHT}", key=germania)
    assert status == 200 and sorted(m["meeting"] for m in tonight["meetings"]) == sorted(
        m for m, v in pairs.values() if v == 1
    )
    by_pair = {pair: meeting for pair, (meeting, _v) in pairs.items()}

    # Germania, table 1: Aces (NS) beat Nines 560-250, with a refused hand pushed after the third event.
    aces = played_game(tmp_path, ("Aces", "Nines"), winner="NS")
    aces = [*aces[:3], refused_event(4), *({**e, "seq": e["seq"] + 1} for e in aces[3:])]
    got = _push_in_batches(api, germania, 1, by_pair[(1, 6)], aces)
    assert [q["seq"] for q in got["quarantined"]] == [4] and got["acked"] == len(aces)
    # Then Jacks (NS) beat Queens 560-250 there; the owner corrects hand 2 after the end: 548-262.
    jacks = played_game(tmp_path, ("Jacks", "Queens"), winner="NS", correction=SMALLER_WIN)
    got = _push_in_batches(api, germania, 2, by_pair[(3, 4)], jacks)
    assert got["acked"] == len(jacks) and got["quarantined"] == []
    # The Hornet's Nest: Kings (NS) lose to Tens (EW) 250-560; the last batch is delivered twice.
    kings = played_game(tmp_path, ("Kings", "Tens"), winner="EW")
    _push_in_batches(api, hornets, 1, by_pair[(2, 5)], kings)
    again = _push_in_batches(api, hornets, 1, by_pair[(2, 5)], kings[-3:])
    assert again["duplicates"] == 3 and again["stored"] == 0

    status, page = api.page("/seasons/1")
    assert status == 200
    # Ranked by games won, then game points, point difference, head to head. Worked by hand: Aces
    # and Tens are level on everything (they have not met) and share first place, Kings and Nines
    # fifth; teams that share a place are listed by name.
    assert _standings(page) == [
        ["1", "Aces", "1", "1", "0", "0", "560", "250", "310"],
        ["1", "Tens", "1", "1", "0", "0", "560", "250", "310"],
        ["3", "Jacks", "1", "1", "0", "0", "548", "262", "286"],
        ["4", "Queens", "1", "0", "1", "0", "262", "548", "-286"],
        ["5", "Kings", "1", "0", "1", "0", "250", "560", "-310"],
        ["5", "Nines", "1", "0", "1", "0", "250", "560", "-310"],
    ]

    # The refused hand waits for the organiser, with the kiosk, game and why; nothing else needs them.
    held = json.loads(league(db, "quarantine"))
    assert [(q["game"], q["seq"], q["event"]["payload"]["record"]["trump"]) for q in held] == [(1, 4, "X")]
    assert json.loads(league(db, "flags")) == {"games": [], "divergences": []}

    # The corrected game's page: the sheet as corrected, the correction said, the teams by their seats.
    status, schedule_page = api.page("/divisions/1/schedule")
    schedule_page = html.unescape(schedule_page)
    assert status == 200 and "262–548, Jacks won" in schedule_page  # Queens are the meeting's team a
    game = int(re.search(r'href="/games/(\d+)">Game 1</a>: 262–548', schedule_page).group(1))
    status, page = api.page(f"/games/{game}")
    text = html.unescape(page)
    assert status == 200 and "Jacks (NS)" in text and "Queens (EW)" in text
    assert "Hand 2 corrected" in text and "misread" in text
    aces_game = int(re.search(r'href="/games/(\d+)">Game 1</a>: 560–250, Aces', schedule_page).group(1))
    assert "1 entry from the table did not fit the rules" in html.unescape(api.page(f"/games/{aces_game}")[1])
