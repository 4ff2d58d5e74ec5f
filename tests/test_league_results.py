"""Kiosk games reaching the standings, on SQLite and PostgreSQL: a game that ends at a table becomes its
meeting's game, corrections after the end change it, a ruling stands, games that cannot count by
themselves say why, and a re-delivery that differs from what the league holds is kept aside."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import asdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.projection import rows_of
from league.ingest.kiosks import KioskRefused, Kiosks
from league.store.core import Store
from shared.events import GameEvent
from shared.events import event_of as _event
from shared.game_state import ActionRefused, GameState
from tests.league_kiosk_helpers import (
    NIGHT,
    NS_SET,
    SMALLER_WIN,
    kiosk_game,
    league_with_schedule,
    played_game,
    refused_event,
    snapshot,
)


@pytest.fixture
def world(league_db, tmp_path):
    store = Store(league_db)
    w = league_with_schedule(store)
    kiosks = Kiosks(store)
    venue = w["venues"][0]
    enrolled = kiosks.enrol(kiosks.make_code(venue, 1))
    kiosk = kiosks.kiosk_for_key(enrolled["key"])
    yield {**w, "store": store, "kiosks": kiosks, "kiosk": kiosk, "venue": venue, "tmp": tmp_path}
    store.close()


def _push(w, game: int, events: list[dict], **extra) -> dict:
    body = {"games": [{"game": game, "meeting": w["meeting_at"][w["venue"]], "events": events, **extra}]}
    return w["kiosks"].push(w["kiosk"], body)["games"][0]


def _line(w, name: str) -> dict:
    return next(line.to_json() for line in w["org"].standings(w["division"]) if line.name == name)


def test_a_game_won_at_the_table_counts_for_the_team_that_won_it(world):
    a, b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], (a, b), winner="NS")  # team a sat NS
    got = _push(world, 1, game)
    assert got["acked"] == len(game) and got["quarantined"] == []
    assert _line(world, a) | {"position": 0} == _line(world, a) | {
        "played": 1,
        "won": 1,
        "lost": 0,
        "points_for": 560,
        "points_against": 250,
        "position": 0,
    }
    assert (_line(world, b)["lost"], _line(world, b)["points_for"]) == (1, 250)


def test_which_team_sat_ns_decides_who_won(world):
    a, b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], (b, a), winner="NS")  # team b sat NS and won
    _push(world, 1, game)
    assert (_line(world, b)["won"], _line(world, b)["points_for"]) == (1, 560)
    assert _line(world, a)["lost"] == 1


def test_sides_sent_with_the_push_beat_the_names(world):
    a, b = world["teams_at"][world["venue"]]
    with world["store"].read() as r:
        m = r.meeting(world["meeting_at"][world["venue"]])
    game = played_game(world["tmp"], ("Them", "Us"), winner="EW")  # names the league does not know
    _push(world, 1, game, sides={"NS": m["team_a"], "EW": m["team_b"]})
    assert _line(world, b)["won"] == 1 and _line(world, a)["lost"] == 1


def test_a_game_whose_teams_cannot_be_told_is_kept_and_waits_for_a_ruling(world):
    a, _b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], ("Them", "Us"))  # names the league does not know, and no sides
    got = _push(world, 1, game)
    assert got["acked"] == len(game) and got["quarantined"] == []
    with world["store"].read() as r:
        [g] = r.games(world["meeting_at"][world["venue"]])
    assert (g["outcome"], g["points_a"], g["points_b"]) == (None, 0, 0)
    assert g["note"] == "the kiosk did not say which team sat NS (the table's score: NS 560, EW 250): rule on it"
    assert _line(world, a)["played"] == 0
    world["org"].rule_game(g["id"], "a", "the captains say Aces sat NS", points=(560, 250))
    assert (_line(world, a)["won"], _line(world, a)["points_for"]) == (1, 560)


def test_sides_that_are_not_the_meetings_teams_are_refused_with_nothing_written(world):
    game = played_game(world["tmp"], ("Them", "Us"))
    before = snapshot(world["store"])
    with pytest.raises(KioskRefused, match="sides must be meeting"):
        _push(world, 1, game, sides={"NS": 1, "EW": 999})
    assert snapshot(world["store"]) == before


def test_a_correction_after_the_end_changes_the_standings_and_a_ruling_stands(world):
    a, b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], (a, b), correction=SMALLER_WIN)
    correction = len(game) - 1  # the last event: the owner's correction after game over
    _push(world, 1, game[:correction])
    assert (_line(world, a)["points_for"], _line(world, b)["points_for"]) == (560, 250)
    _push(world, 1, game[correction:])
    assert (_line(world, a)["points_for"], _line(world, b)["points_for"]) == (548, 262)
    with world["store"].read() as r:
        [g] = r.games(world["meeting_at"][world["venue"]])
    world["org"].rule_game(g["id"], "b", "the renege was proved on appeal", points=(0, 500))
    again = played_game(world["tmp"], (a, b))  # another kiosk game on the same meeting
    got = _push(world, 2, again)
    assert got["acked"] == len(again)
    assert _line(world, b)["won"] == 1 and _line(world, b)["points_for"] == 500  # the ruling stands
    flags = world["kiosks"].flags()["games"]
    assert [(f["game"], f["note"]) for f in flags] == [
        (2, f"meeting {g['meeting_id']} already has its 1 game(s): this one is not counted")
    ]


def test_a_correction_that_puts_the_game_back_in_play_takes_it_out_of_the_standings(world):
    a, b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], (a, b), correction=NS_SET)  # NS set on hand 2: 448 to 331, in play
    _push(world, 1, game[:-1])
    assert _line(world, a)["won"] == 1
    _push(world, 1, game[-1:])
    assert _line(world, a)["played"] == 0 and _line(world, b)["played"] == 0
    with world["store"].read() as r:
        [g] = r.games(world["meeting_at"][world["venue"]])
    assert g["outcome"] is None and g["note"] == "in play again after a correction at the table"


def test_an_unfinished_game_counts_for_nobody_until_the_organiser_rules(world):
    a, b = world["teams_at"][world["venue"]]
    _push(world, 1, kiosk_game(world["tmp"], teams=(a, b)))  # finished at closing time, short of 500
    assert _line(world, a)["played"] == 0 and _line(world, b)["played"] == 0
    with world["store"].read() as r:
        [g] = r.games(world["meeting_at"][world["venue"]])
    assert g["outcome"] is None and "before the target (closing time)" in g["note"]
    world["org"].rule_game(g["id"], "a", "agreed by both captains")
    assert _line(world, a)["won"] == 1


def test_a_game_played_with_other_rules_counts_for_nobody_and_says_which(world):
    a, b = world["teams_at"][world["venue"]]
    _push(world, 1, played_game(world["tmp"], (a, b), rules={"target": 300}))
    with world["store"].read() as r:
        [g] = r.games(world["meeting_at"][world["venue"]])
    assert g["outcome"] is None and "target 300, not 500" in g["note"]
    assert _line(world, a)["played"] == 0


def test_a_redelivery_that_differs_is_kept_aside_and_changes_nothing(world):
    a, b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], (a, b))
    _push(world, 1, game)
    before_line = _line(world, a)
    other = played_game(world["tmp"], (a, b), winner="EW")  # a restored kiosk reusing game 1's numbers
    got = _push(world, 1, other[:3])
    assert got["diverged"] == [1, 2, 3] and got["stored"] == 0 and got["acked"] == len(game)
    held = snapshot(world["store"])
    assert _push(world, 1, other[:3])["diverged"] == [1, 2, 3]
    assert snapshot(world["store"]) == held  # the same differing version is kept once
    assert _line(world, a) == before_line
    kept = world["kiosks"].flags()["divergences"]
    assert [(d["game"], d["seq"]) for d in kept] == [(1, 1), (1, 2), (1, 3)]
    assert kept[0]["event"]["payload"]["token"] == other[0]["payload"]["token"]


def test_rebuild_gives_the_same_standings(world):
    a, b = world["teams_at"][world["venue"]]
    game = played_game(world["tmp"], (a, b), correction=SMALLER_WIN)
    _push(world, 1, game)
    lines = [x.to_json() for x in world["org"].standings(world["division"])]
    world["store"].rebuild()
    assert [x.to_json() for x in world["org"].standings(world["division"])] == lines


# ---- the fold one event at a time is the fold of the whole log ----------------------------------------


def _whole_fold_refusals(events: list[GameEvent]) -> list[int]:
    """The seqs a fold of the whole log each time would set aside: the reference."""
    applied: list[GameEvent] = []
    out = []
    for e in events:
        try:
            GameState.from_events([*applied, e])
            applied.append(e)
        except ActionRefused:
            out.append(e.seq)
    return out


@pytest.fixture(scope="module")
def a_long_game(tmp_path_factory) -> list[dict]:
    """A game with undos, a correction, a moved deal and a draft, played with the table controller."""
    from tests.store_helpers import QUICK_HANDS, open_table

    table = open_table(tmp_path_factory.mktemp("long") / "kiosk.db")
    table.set_pin("246813")
    g = table.new_game(["Team 1", "Team 4"], rules={"target": 1000}, first_dealer="N")
    for i, h in enumerate(QUICK_HANDS * 2):
        table.add_hand(g.id, h)
        if i % 3 == 1:
            table.undo(g.id)
            table.undo(g.id)
            table.add_hand(g.id, h)
    table.correct(g.id, 1, {"trump": "S", "maker": "S", "points": {"NS": 91, "EW": 71}}, "misread", "246813")
    out = [{k: v for k, v in asdict(e).items() if k != "game"} for e in table.store.events(g.id)]
    table.close()
    return out


FRESH = itertools.count(1000)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_pushes_in_any_batches_set_aside_exactly_what_the_whole_fold_refuses(world, a_long_game, data):
    """Refused hands and stray undos are mixed in; each batch boundary is random. The quarantine must be
    what folding the whole log at every event would give, and the folded game the kiosk's own."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    events = [dict(e) for e in a_long_game]
    for _ in range(rng.randint(1, 4)):  # refused hands and undos of nothing, at random places after the start
        at = rng.randint(1, len(events))
        junk = refused_event(0) if rng.random() < 0.5 else {**events[0], "kind": "undone", "payload": {"undoes": 999}}
        events.insert(at, junk)
    events = [{**e, "seq": i + 1} for i, e in enumerate(events)]
    game = next(FRESH)  # the fixture lives across examples: each example its own game
    i = 0
    quarantined = []
    while i < len(events):
        n = rng.randint(1, 7)
        got = _push(world, game, events[i : i + n])
        quarantined += [q["seq"] for q in got["quarantined"]]
        i += n
    as_events = [_event(game, e) for e in events]
    assert quarantined == _whole_fold_refusals(as_events)
    with world["store"].read() as r:
        from league.store import kiosks as ks

        stored = [
            _event(game, json.loads(s["event"]))
            for s in ks.game_events(r.conn, world["kiosk"]["id"], game)
            if s["quarantined"] is None
        ]
    assert rows_of(GameState.from_events(stored)) == rows_of(
        GameState.from_events([e for e in as_events if e.seq not in quarantined])
    )


def test_night_is_the_first_round(world):
    """The helpers' league plays its first round on NIGHT (what the pushes above are for)."""
    tonight = world["kiosks"].tonight(world["kiosk"], NIGHT)
    assert [m["meeting"] for m in tonight["meetings"]] == [world["meeting_at"][world["venue"]]]


def test_two_server_processes_taking_turns_on_one_game_fold_it_as_one(world, a_long_game):
    """Each process keeps the games it folded; a game the other process added to since is folded
    again from the database, never from the stale copy."""
    other = Kiosks(world["store"])  # a second server process on the same database
    n = len(a_long_game)
    events = [*a_long_game, refused_event(n + 1), {**a_long_game[-1], "seq": n + 2, "kind": "undone"}]
    quarantined = []
    for i in range(0, len(events), 3):
        side = world["kiosks"] if (i // 3) % 2 == 0 else other
        body = {"games": [{"game": 77, "meeting": world["meeting_at"][world["venue"]], "events": events[i : i + 3]}]}
        got = side.push(world["kiosk"], body)["games"][0]
        quarantined += [q["seq"] for q in got["quarantined"]]
    assert quarantined == _whole_fold_refusals([_event(77, e) for e in events])
    assert n + 1 in quarantined
