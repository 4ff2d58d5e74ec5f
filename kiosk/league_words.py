"""What the screens say about the league, worked out from what the controller reads: the sync in
words (the header's mark, the owner's status), tonight's meetings as choices for the start screen,
the game a meeting starts, an organiser's ruling. Pure: no Kivy, no store; times come in as text."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from shared.night import NIGHT_ENDS, TIME_ZONE, league_night

MOST_SHOWN_HELD = 3  # held games listed on the owner's screen; the rest are counted
DOWN = ("unreachable", "revoked")  # the worker cannot deliver: the league is out of reach or refuses the key


def local(iso: str) -> datetime:
    """A stored time (UTC, ISO) in the kiosk's own time zone."""
    return datetime.fromisoformat(iso).astimezone()


def when(iso: Any, now: str) -> str:
    """A stored time as the bar reads it: "19:02" today, "6 Jan 19:02" another day, "" if none."""
    if not isinstance(iso, str) or not iso:
        return ""
    try:
        t = local(iso)
    except ValueError:
        return ""
    clock = t.strftime("%H:%M")
    return clock if t.date() == local(now).date() else f"{t.day} {t.strftime('%b')} {clock}"


def _night(text: Any) -> str:
    """A league night's date as words: "Tue 6 Jan"."""
    try:
        d = date.fromisoformat(str(text))
    except ValueError:
        return str(text)
    return f"{d.strftime('%a')} {d.day} {d.strftime('%b')}"


def _events(n: int) -> str:
    return f"{n} event{'' if n == 1 else 's'}"


def _games(n: int) -> str:
    return f"{n} game{'' if n == 1 else 's'}"


# ---- the sync ------------------------------------------------------------------------------------------


def sync_mark(status: dict[str, Any], short: bool = False) -> str:
    """The header's mark: nothing outside a league; else all sent, how many games wait to be sent,
    or offline. ``short`` fits beside a team's tag on the 7" panel ("☁ ✓", "☁ 2", "☁ ✕")."""
    if status.get("league") is None:
        return ""
    state = (status.get("sync") or {}).get("state")
    games = int(status.get("queued_games") or 0)
    if state == "revoked":
        return "☁ ✕" if short else "☁ key refused"
    if state == "unreachable":
        return "☁ ✕" if short else "☁ offline"
    if games == 0:
        return "☁ ✓" if short else "☁ all sent"
    if short:
        return f"☁ {games if games < 10 else '9+'}"
    return f"☁ {_games(games)} waiting"


def sync_words(status: dict[str, Any], now: str) -> tuple[str, list[str]]:
    """The owner's view of the league: the sync in a sentence, then a line each for where the kiosk
    sits, the last delivery, the last error and the games held back."""
    joined = status.get("league")
    if joined is None:
        return "This kiosk is not in a league: its games stay on it.", []
    sync = status.get("sync") or {}
    state = sync.get("state")
    queued = int(status.get("queued") or 0)
    games = int(status.get("queued_games") or 0)
    since = when(sync.get("since") or sync.get("at"), now)
    next_try = when(sync.get("next_try"), now)
    verb = "waits" if queued == 1 else "wait"
    waiting = f"{_events(queued)} of {_games(games)} {verb} on the kiosk" if queued else "nothing waits"
    retry = f"; next try at {next_try}" if next_try and queued else ""
    if state == "revoked":
        said = f"The league refused this kiosk's key: leave, then join with a new code. {waiting.capitalize()}."
    elif state == "unreachable":
        said = f"League unreachable{' since ' + since if since else ''}: {waiting}{retry}."
    elif state in ("connected", "waiting"):
        said = f"{state.capitalize()}: " + ("every game delivered." if not queued else f"{waiting}{retry}.")
    else:
        said = f"The sync has not reported yet: {waiting}."
    venue = joined.get("venue") or {}
    lines = [
        f"League: {joined.get('url', '')} (kiosk {joined.get('kiosk', '?')})",
        f"Venue: {venue.get('name') or '?'}, table {joined.get('table', '?')}",
        f"Last delivery: {when(sync.get('last_delivery'), now) or 'none yet'}",
    ]
    if sync.get("error"):
        lines.append(f"Last error: {sync['error']}")
    held = status.get("held") or []
    for h in held[:MOST_SHOWN_HELD]:
        lines.append(f"Held: game {h['game']} (meeting {h['meeting']}): {h['why']}")
    if len(held) > MOST_SHOWN_HELD:
        lines.append(f"… and {len(held) - MOST_SHOWN_HELD} more games held")
    return said, lines


def all_sent(status: dict[str, Any]) -> bool:
    """In a league, reachable, and nothing waits to be sent."""
    sync = status.get("sync") or {}
    return status.get("league") is not None and sync.get("state") not in DOWN and not status.get("queued")


# ---- tonight's meetings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Team:
    """A league team as tonight's meetings give it."""

    id: int
    name: str
    players: tuple[str, ...] = ()


@dataclass(frozen=True)
class Choice:
    """A meeting on the start screen: its words, whether a tap starts (or resumes) its game."""

    meeting: int
    text: str
    a: Team
    b: Team
    rules: dict[str, Any]
    playable: bool
    open_game: int | None = None  # a game of this meeting still open at this kiosk: a tap resumes it


@dataclass(frozen=True)
class Tonight:
    """The league's part of the start screen: a note (where, or why the list may be old), the
    meetings, and the teams an unscheduled league game can be picked from."""

    note: str = ""
    meetings: list[Choice] = field(default_factory=list)
    teams: list[Team] = field(default_factory=list)
    joined: bool = False


def _team(t: Any) -> Team:
    players = tuple(str(p) for p in (t.get("players") or []))
    return Team(int(t["id"]), str(t["name"]), players)


def tonight_view(
    tonight: dict[str, Any] | None, status: dict[str, Any], played_here: dict[int, list[dict[str, Any]]], now: str
) -> Tonight:
    """The start screen's league part, from the cached answer of /api/v1/tonight, the sync's status
    and this kiosk's own league games (a meeting counts the games played here since the answer)."""
    joined = status.get("league")
    if joined is None:
        return Tonight()
    sync = status.get("sync") or {}
    down = sync.get("state") in DOWN
    since = when(sync.get("since") or sync.get("at"), now)
    unreachable = "The league refused this kiosk's key" if sync.get("state") == "revoked" else "League unreachable"
    if down and since:
        unreachable += f" since {since}"
    if not tonight:
        said = f"{unreachable}: no meetings from the league yet." if down else "No meetings from the league yet."
        return Tonight(said, joined=True)
    fetched = when(tonight.get("fetched_at"), now)
    meetings = [m for m in tonight.get("meetings") or [] if (m.get("teams") or {}).get("b")]
    venue = (tonight.get("venue") or {}).get("name") or (joined.get("venue") or {}).get("name") or ""
    # Tonight by the league's clock, which the answer carries: a night past midnight is still tonight.
    zone, ends = str(tonight.get("time_zone") or TIME_ZONE), tonight.get("night_ends", NIGHT_ENDS)
    moment = datetime.fromisoformat(now)
    old = tonight.get("date") != league_night(moment, zone, ends if isinstance(ends, int) else NIGHT_ENDS).isoformat()
    if down:
        note = f"{unreachable}: the meetings as fetched at {fetched}."
    elif old:
        note = f"The meetings of {_night(tonight.get('date'))} (fetched {fetched}): tonight's are not in yet."
    elif not meetings:
        note = f"No league meetings at {venue} tonight."
    else:
        note = f"Tonight at {venue}: tap your meeting."
    table = joined.get("table")
    # Meetings still to play first, this table's before the others'.
    pairs = [(_choice(m, played_here.get(int(m["meeting"]), [])), m.get("table")) for m in meetings]
    pairs.sort(key=lambda p: (not p[0].playable, p[1] not in (None, table)))
    choices = [c for c, _ in pairs]
    teams = {t.id: t for m in meetings for t in (_team(m["teams"]["a"]), _team(m["teams"]["b"]))}
    return Tonight(note, choices, sorted(teams.values(), key=lambda t: t.name.lower()), joined=True)


def _choice(m: dict[str, Any], here: list[dict[str, Any]]) -> Choice:
    a, b = _team(m["teams"]["a"]), _team(m["teams"]["b"])
    per = int(m.get("games_per_meeting") or 1)
    ended_here = sum(1 for g in here if g["status"] == "over")  # abandoned or cut short: counts for nobody
    played = max(int(m.get("games_played") or 0), ended_here)  # the answer may be older than the games here
    open_here = next((g["game"] for g in reversed(here) if g["status"] == "open"), None)
    text = f"{a.name} v {b.name}" + (f" · table {m['table']}" if m.get("table") else "")
    playable = True
    if open_here is not None:
        text += " · in play here"
    elif m.get("forfeited"):
        text, playable = text + " · forfeited", False
    elif played >= per:
        text, playable = text + (" · played" if per == 1 else f" · {played} of {per} played"), False
    elif per > 1:
        text += f" · game {played + 1} of {per}"
    return Choice(int(m["meeting"]), text, a, b, dict(m.get("rules") or {}), playable, open_here)


def meeting_between(view: Tonight, ns: Team, ew: Team) -> Choice | None:
    """The cached meeting between two teams (either way round), if there is one."""
    pair = {ns.id, ew.id}
    return next((c for c in view.meetings if {c.a.id, c.b.id} == pair), None)


def new_game_for(ns: Team, ew: Team, rules: dict[str, Any] | None, meeting: int | None) -> dict[str, Any]:
    """The controller's new_game arguments for two league teams: their names, each team's two players
    at its seats (NS: N and S; EW: E and W), the season's rules and the meeting with its sides."""
    players = {}
    for team, seats in ((ns, "NS"), (ew, "EW")):
        players.update(dict(zip(seats, team.players[:2], strict=False)))
    league = None if meeting is None else {"meeting": meeting, "NS": ns.id, "EW": ew.id}
    return {"teams": [ns.name, ew.name], "players": players or None, "rules": rules or None, "league": league}


# ---- an organiser's ruling -------------------------------------------------------------------------------


def ruling_line(ruling: dict[str, Any] | None, league: dict[str, int] | None, tonight: dict[str, Any] | None) -> str:
    """An organiser's ruling on a game in one line, or "": "Organiser's ruling: Aces win 500 – 320 (why)".
    Team a and b are the meeting's; their names come from tonight's meetings when they hold it."""
    if not ruling:
        return ""
    reason = f" ({ruling['reason']})" if ruling.get("reason") else ""
    outcome = ruling.get("outcome")
    pa, pb = ruling.get("points_a"), ruling.get("points_b")
    if outcome in (None, "none", "abandoned"):
        return f"Organiser's ruling: abandoned, counts for nobody{reason}"
    names: dict[str, str] = {}
    meeting = (league or {}).get("meeting")
    for m in (tonight or {}).get("meetings") or []:
        if m.get("meeting") == meeting and (m.get("teams") or {}).get("b"):
            names = {"a": m["teams"]["a"]["name"], "b": m["teams"]["b"]["name"]}
    score = f" {pa} – {pb}" if pa is not None and pb is not None else ""
    if outcome == "tie":
        return f"Organiser's ruling: a tie,{score}{reason}"
    if str(outcome) not in names:  # the list no longer holds the meeting: its teams by their letters
        return f"Organiser's ruling: won by the meeting's team {outcome},{score}{reason}"
    if outcome == "b" and score:
        score = f" {pb} – {pa}"
    return f"Organiser's ruling: {names[str(outcome)]} win{score}{reason}"
