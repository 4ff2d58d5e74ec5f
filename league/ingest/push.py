"""One game's part of a kiosk's push, in the push's transaction: bound to its meeting on its first
push, its new events stored once each (folded, or set aside with why: kept, shown to the organiser,
never applied, never dropped), a re-delivery told from another history of the game, and the game
counted (league/organiser/counting.py) when it ends or a later event changes it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from league.ingest.batch import Pushed
from league.ingest.folding import FoldCache, Folding
from league.ingest.keys import digest
from league.ingest.refused import KioskRefused
from league.organiser.counting import count_game
from league.store import kiosks as ks
from league.store.core import Writer, stamp
from league.store.rows import MeetingWithSettings
from shared.events import GAME_STARTED, event_text
from shared.game_state import OPEN

Row = dict[str, Any]
Where = tuple[int, int]  # a kiosk game: the kiosk's id and its own game number


def push_game(
    w: Writer,
    kiosk: Row,
    pushed: Pushed,
    held: tuple[Row | None, int],
    when: dt.datetime,
    folds: FoldCache,
    folded: list[tuple[Where, Folding]],
) -> dict[str, Any]:
    """Stores one game's part of a push and answers what became of it; ``held``: the game's binding
    (None before its first push) and the last seq the league holds of it; ``folded`` is given the game
    as folded now, for ``folds`` to keep once the push is stored."""
    bound, last = held
    game, now = pushed.game, stamp(when)
    if bound is None:
        bound = _bind(w, kiosk, pushed, now)
    elif pushed.meeting is not None and pushed.meeting != bound["meeting_id"]:
        raise KioskRefused(f"game {game} is played for meeting {bound['meeting_id']}, not {pushed.meeting}", 409)
    elif pushed.sides is not None and bound["ns_team"] is not None and pushed.sides["NS"] != bound["ns_team"]:
        raise KioskRefused(f"game {game}: team {bound['ns_team']} sits NS, as its first push said", 409)
    events = sorted(pushed.events, key=lambda x: x.seq)
    again = [e.seq for e in events if e.seq <= last]
    before = ks.events_at(w.conn, kiosk["id"], game, again) if again else {}
    expected = last + 1
    rows: list[Row] = []
    duplicates, quarantined, diverged, resend = 0, [], [], None
    folding: Folding | None = None
    for e in events:
        text = event_text(e)
        if e.seq < expected:
            if text == before.get(e.seq):
                duplicates += 1  # delivered before: stored once
            else:
                # Not what the league holds at this seq (a kiosk restored from an older backup):
                # kept aside for the organiser; neither version overwrites the other.
                ks.add_divergence(w.conn, kiosk["id"], game, e.seq, text, digest(text), now)
                diverged.append(e.seq)
            continue
        if diverged:
            break  # another history of this game number: nothing of it is added to the one held
        if e.seq > expected:
            resend = expected  # a gap: nothing after it is stored until the missing ones come
            break
        if folding is None:
            folding = folds.at(w.conn, kiosk["id"], game, last)
        why = folding.add(e)
        folding.last = e.seq
        if why is not None:
            quarantined.append({"seq": e.seq, "why": why})
        rows.append({"kiosk_id": kiosk["id"], "game": game, "seq": e.seq, "event": text, "quarantined": why})
        expected += 1
    ks.add_events(w.conn, rows, now)
    if folding is not None:
        folded.append(((kiosk["id"], game), folding))
        ended = folding.state is not None and folding.state.status != OPEN
        if ended or bound["league_game"] is not None:
            count_game(w, kiosk, bound, folding.state, when)
    return {
        "game": game,
        "meeting": bound["meeting_id"],
        "acked": expected - 1,
        "stored": len(rows),
        "duplicates": duplicates,
        "quarantined": quarantined,
        "diverged": diverged,
        "resend_from": resend,
    }


def _bind(w: Writer, kiosk: Row, pushed: Pushed, now: str) -> Row:
    """A game's first push: the meeting it is played for, at this kiosk's venue, and who sits NS."""
    game, meeting = pushed.game, pushed.meeting
    if meeting is None:
        raise KioskRefused(f"game {game}: its first push names the meeting it is played for", 422)
    m = w.meeting_with_settings(meeting)
    # The same answer whether the meeting is elsewhere or does not exist: nothing to learn.
    if m is None or m["venue_id"] != kiosk["venue_id"]:
        raise KioskRefused(f"game {game}: meeting {meeting} is not at this kiosk's venue", 403)
    if m["team_b"] is None or m["forfeit_team"] is not None:
        raise KioskRefused(f"game {game}: meeting {meeting} has no games to play (a bye or a forfeit)", 409)
    row = {
        "kiosk_id": kiosk["id"],
        "game": game,
        "meeting_id": meeting,
        "bound_at": now,
        "ns_team": _ns_team(m, pushed),
    }
    ks.bind_game(w.conn, row)  # before its events: an event names its game's binding
    return {**row, "league_game": None, "note": None}


def _ns_team(m: MeetingWithSettings, pushed: Pushed) -> int | None:
    """The meeting's team at NS: as the kiosk says, else by the names the game was started with;
    None when neither tells (the game is kept; its result then waits for the organiser's ruling)."""
    pair = (m["team_a"], m["team_b"])
    if pushed.sides is not None:
        if {pushed.sides["NS"], pushed.sides["EW"]} != set(pair):
            raise KioskRefused(f"game {pushed.game}: sides must be meeting {m['id']}'s teams {pair[0]} and {pair[1]}")
        return pushed.sides["NS"]
    names = {_tidy(m["team_a_name"]): m["team_a"], _tidy(m["team_b_name"]): m["team_b"]}
    first = next((e for e in pushed.events if e.seq == 1 and e.kind == GAME_STARTED), None)
    teams = first.payload.get("teams") if first is not None else None
    if isinstance(teams, dict) and isinstance(teams.get("NS"), str) and isinstance(teams.get("EW"), str):
        ns, ew = (names.get(_tidy(teams[k])) for k in ("NS", "EW"))
        if ns is not None and ew is not None and ns != ew:
            return int(ns)
    return None


def _tidy(name: str | None) -> str:
    """A team's name as a kiosk's typed one is compared with it: spaces tidied, any case."""
    return " ".join((name or "").split()).casefold()
