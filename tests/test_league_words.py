"""What the screens say about the league, from what the controller reads (kiosk/league_words.py)."""

from __future__ import annotations

from datetime import datetime

from kiosk.league_words import (
    Team,
    meeting_between,
    new_game_for,
    ruling_line,
    sync_mark,
    sync_words,
    tonight_view,
    when,
)
from tests.ui.league_flows import ACES, JACKS, KINGS, QUEENS, iso, meeting, team

NOW = "2026-01-06T12:00:00.000+00:00"
LINK = {"url": "https://league.example.org", "kiosk": 4, "venue": {"id": 1, "name": "Germania"}, "table": 2}


def status(state=None, queued=0, games=0, held=()):
    return {
        "league": LINK,
        "queued": queued,
        "queued_games": games,
        "held": list(held),
        "sync": {} if state is None else {"state": state},
    }


def test_times_read_as_the_bar_reads_them():
    here = datetime.fromisoformat(NOW).astimezone()
    assert when(NOW, NOW) == here.strftime("%H:%M")
    assert when("2025-12-24T12:00:00+00:00", NOW).endswith("Dec " + here.strftime("%H:%M"))
    assert when(None, NOW) == when("not a time", NOW) == ""


def test_the_mark_is_short_and_plain():
    assert sync_mark({"league": None}) == ""
    assert sync_mark(status("connected"), short=True) == "☁ ✓"
    assert sync_mark(status("connected", 30, 2), short=True) == "☁ 2"
    assert sync_mark(status("connected", 300, 12), short=True) == "☁ 9+"
    assert sync_mark(status("unreachable", 30, 2), short=True) == sync_mark(status("revoked"), short=True) == "☁ ✕"
    assert sync_mark(status("waiting", 3, 1)) == "☁ 1 game waiting"
    assert sync_mark(status("unreachable", 3, 1)) == "☁ offline"


def test_the_owner_reads_at_most_three_held_games_and_how_many_more():
    held = [{"game": g, "meeting": 11, "why": "why"} for g in range(1, 6)]
    said, lines = sync_words(status("connected", 12, 5, held), NOW)
    assert said == "Connected: 12 events of 5 games wait on the kiosk."
    assert [line for line in lines if line.startswith("Held")] == [
        f"Held: game {g} (meeting 11): why" for g in (1, 2, 3)
    ]
    assert lines[-1] == "… and 2 more games held"
    assert sync_words({"league": None}, NOW)[0] == "This kiosk is not in a league: its games stay on it."


def cached(*meetings):
    return {"date": "2026-01-06", "venue": {"id": 1, "name": "Germania"}, "table": 2, "meetings": list(meetings)}


def test_meetings_to_play_come_first_this_tables_before_the_others():
    aces, kings, jacks, queens = team(ACES, "Aces"), team(KINGS, "Kings"), team(JACKS, "Jacks"), team(QUEENS, "Queens")
    view = tonight_view(
        cached(
            meeting(10, aces, queens, 2, games_played=1),
            meeting(12, jacks, queens, 1),
            meeting(11, aces, kings, 2),
            meeting(14, kings, jacks, None, games_per_meeting=3, games_played=1),
        ),
        status("connected"),
        {},
        NOW,
    )
    assert [c.meeting for c in view.meetings] == [11, 14, 12, 10]
    assert [c.text for c in view.meetings] == [
        "Aces v Kings · table 2",
        "Kings v Jacks · game 2 of 3",
        "Jacks v Queens · table 1",
        "Aces v Queens · table 2 · played",
    ]
    assert [t.name for t in view.teams] == ["Aces", "Jacks", "Kings", "Queens"]


def test_games_played_here_count_until_the_league_says_more():
    m = meeting(11, team(ACES, "Aces"), team(KINGS, "Kings"), 2, games_per_meeting=2)
    here = {11: [{"game": 1, "status": "over"}, {"game": 2, "status": "abandoned"}, {"game": 3, "status": "open"}]}
    [choice] = tonight_view(cached(m), status("connected"), here, NOW).meetings
    assert choice.open_game == 3 and choice.playable and choice.text.endswith("· in play here")
    here[11][2]["status"] = "over"
    [choice] = tonight_view(cached(m), status("connected"), here, NOW).meetings
    assert not choice.playable and choice.text.endswith("· 2 of 2 played")  # the abandoned one counts for nobody


def test_a_game_for_two_teams_seats_each_teams_players_and_names_the_meeting():
    view = tonight_view(cached(meeting(11, team(ACES, "Aces"), team(KINGS, "Kings"), 2)), status(), {}, NOW)
    kings, aces = Team(KINGS, "Kings", ("Dee", "Eve")), Team(ACES, "Aces", ("Ann", "Bob"))
    assert meeting_between(view, kings, aces).meeting == 11
    assert meeting_between(view, kings, Team(JACKS, "Jacks")) is None
    game = new_game_for(kings, aces, {"target": 300}, 11)
    assert game == {
        "teams": ["Kings", "Aces"],
        "players": {"N": "Dee", "S": "Eve", "E": "Ann", "W": "Bob"},
        "rules": {"target": 300},
        "league": {"meeting": 11, "NS": KINGS, "EW": ACES},
    }
    assert new_game_for(Team(1, "A"), Team(2, "B"), None, None)["players"] is None


def test_a_ruling_names_the_meetings_teams_when_the_list_holds_them():
    tonight = cached(meeting(11, team(ACES, "Aces"), team(KINGS, "Kings"), 2))
    league = {"meeting": 11, "NS": KINGS, "EW": ACES}
    ruled = {"outcome": "a", "points_a": 500, "points_b": 320, "reason": "misread"}
    assert ruling_line(ruled, league, tonight) == "Organiser's ruling: Aces win 500 – 320 (misread)"
    assert ruling_line({**ruled, "outcome": "tie", "points_b": 500}, league, tonight) == (
        "Organiser's ruling: a tie, 500 – 500 (misread)"
    )
    assert ruling_line(ruled, league, None) == "Organiser's ruling: won by the meeting's team a, 500 – 320 (misread)"
    assert ruling_line(None, league, tonight) == ""


def test_a_list_from_another_night_says_so():
    view = tonight_view({**cached(), "fetched_at": iso()}, status("connected"), {}, NOW.replace("06T", "07T"))
    assert view.note.startswith("The meetings of Tue 6 Jan (fetched ") and view.meetings == []
