"""The league's outbox in the kiosk's store: a league game's events go in with them, a friendly game's
never; what the league acknowledges leaves; what it asks for again comes back."""

from __future__ import annotations

import sqlite3

import pytest

from kiosk import outbox
from kiosk.store import StoreError
from shared.game_state import ActionRefused
from tests.store_helpers import QUICK_HANDS, open_table

MEETING = {"meeting": 12, "NS": 1, "EW": 4}


def test_a_league_games_events_wait_in_the_outbox_and_a_friendly_games_do_not(tmp_path):
    table = open_table(tmp_path / "kiosk.db")
    league = table.new_game(["Aces", "Kings"], league=MEETING, first_dealer="N")
    friendly = table.new_game(["Us", "Them"], first_dealer="N")
    for h in QUICK_HANDS[:2]:
        table.add_hand(league.id, h)
        table.add_hand(friendly.id, h)
    assert outbox.queued(table.store) == 5  # started, then two hands entered and confirmed
    [waiting] = outbox.waiting(table.store, 100)
    assert (waiting.game, waiting.meeting, waiting.sides) == (league.id, 12, {"NS": 1, "EW": 4})
    assert [e.seq for e in waiting.events] == [1, 2, 3, 4, 5]
    assert table.game(league.id).league == MEETING and table.game(friendly.id).league is None
    outbox.acknowledge(table.store, league.id, 3)
    assert [e.seq for e in outbox.waiting(table.store, 100)[0].events] == [4, 5]
    outbox.resend_from(table.store, league.id, 2)
    assert [e.seq for e in outbox.waiting(table.store, 100)[0].events] == [2, 3, 4, 5]
    assert [e.seq for e in outbox.waiting(table.store, 3)[0].events] == [2, 3, 4]  # a bounded batch
    outbox.hold(table.store, league.id, "the league holds other events for this game")
    assert outbox.waiting(table.store, 100) == [] and outbox.queued(table.store) == 4  # kept, not sent
    table.close()


def test_an_event_and_its_outbox_entry_are_one_transaction(tmp_path):
    """When the outbox cannot be written, the hand is not saved either (and the table is told)."""
    table = open_table(tmp_path / "kiosk.db")
    g = table.new_game(["Aces", "Kings"], league=MEETING, first_dealer="N")
    side = sqlite3.connect(tmp_path / "kiosk.db")
    side.execute("CREATE TRIGGER no_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'outbox full'); END")
    side.commit()
    with pytest.raises((StoreError, ActionRefused)):
        table.add_hand(g.id, QUICK_HANDS[0])
    assert table.store.last_seq(g.id) == 1 and outbox.queued(table.store) == 1
    table.close()


@pytest.mark.parametrize(
    "league, words",
    [
        ({"meeting": 12, "NS": 1}, "names its meeting and sides"),
        ({"meeting": 12, "NS": 1, "EW": 1}, "two different teams"),
        ({"meeting": "12", "NS": 1, "EW": 4}, "league meeting: '12' is not an id"),
        ([12, 1, 4], "names its meeting and sides"),
    ],
)
def test_a_league_game_needs_its_meeting_and_two_sides(tmp_path, league, words):
    table = open_table(tmp_path / "kiosk.db")
    with pytest.raises(ActionRefused, match=words):
        table.new_game(["Aces", "Kings"], league=league, first_dealer="N")
    assert outbox.queued(table.store) == 0 and table.store.next_game_id() == 1
    table.close()
