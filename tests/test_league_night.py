"""A league night, end to end: one league server (on SQLite, and the same on PostgreSQL) and eight kiosks,
each a table controller over its own store file with its own sync worker process (``clabber league sync``,
as systemd runs it), play the first round of a 16-team season: eight meetings of four games, one at each
kiosk. The kiosks join with the organiser's enrolment codes, take their meeting from tonight's list as the
worker cached it and start each game as the start screen does; the tables enter hands as tables do (sets,
reneges, melds, pass-outs, refused entries, double taps, undo, the owner's corrections with the PIN, an
abandoned game). In the middle of play the league is killed (SIGKILL) and started again on its port, and
later the network between the kiosks and the league is cut for a while (tests/cable.py).

At the end: no event waits on any kiosk; the league holds each kiosk's events exactly (the same events,
in order, each once); and the league's standings are the ones the kiosks' own games make, counted again
here from the kiosks' stores by the standings' rules."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kiosk import outbox
from kiosk.league_words import Choice, meeting_between, new_game_for, tonight_view
from kiosk.projection import rows_of
from kiosk.store import Store as KioskStore
from kiosk.table import Table
from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.store.core import Store
from shared.events import new_action_id
from shared.game_state import ActionRefused, GameState
from tests.cable import Cable
from tests.league_kiosk_helpers import tonight_now
from tests.league_server import LeagueServer
from tests.store_helpers import open_table
from tests.sync_helpers import WorkerProcess, differences, divergences, league_game_count, wait_until

TEAMS = [
    ("Ruminers", "Al Rumin", "Bea Rumin"),
    ("Mackeys", "Cy Mackey", "Di Mackey"),
    ("Aces", "Ed Ace", "Flo Ace"),
    ("Kings", "Gus King", "Hal King"),
    ("Queens", "Ida Queen", "Jo Queen"),
    ("Jacks", "Kay Jack", "Lou Jack"),
    ("Tens", "Mo Tenn", "Ned Tenn"),
    ("Nines", "Ona Nye", "Pat Nye"),
    ("Bells", "Quin Bell", "Ray Bell"),
    ("Dads", "Sal Dadd", "Tom Dadd"),
    ("Fifties", "Uma Fife", "Vic Fife"),
    ("Hundreds", "Wes Hund", "Xia Hund"),
    ("Trumps", "Yul Trump", "Zoe Trump"),
    ("Reneges", "Abe Ren", "Bo Ren"),
    ("Sets", "Cal Sett", "Dot Sett"),
    ("Makers", "Eli Make", "Fay Make"),
]
VENUES = (("Germania", 4), ("Corner bar", 4))  # 8 tables: the round's 8 meetings, one at each
GAMES = 4  # games a meeting
SETTINGS = {
    "games_per_meeting": GAMES,
    "ranking": "games_won",
    "tie_breakers": ["game_points", "point_difference", "head_to_head"],
}
PIN = "246813"
PACE = 0.3  # seconds between two rounds of the tables' actions


# ---- what each table does differently ---------------------------------------------------------------------

SWAPS_SIDES = {1, 3, 5, 7}  # game 2 picked as an unscheduled game, the meeting's team b at NS
CORRECTS_IN_PLAY = {0, 2, 4, 6}  # the owner corrects an earlier hand of a game in play
CORRECTS_AFTER = {1}  # the owner corrects a hand of game 1 after it is over
WRONG_PIN_FIRST = {2}  # a wrong PIN, refused, before the right one
ABANDONS = {5}  # game 1 abandoned (the owner's PIN) after two hands: the meeting needs one more game


def a_hand(rng: random.Random) -> dict[str, Any]:
    """A hand as a table enters it on the quick entry: mostly trump, maker and one team's points (the makers
    set one hand in four), sometimes a meld, a renege, or a pass-out."""
    if rng.random() < 0.05:
        return {"passed_out": True}
    trump, maker = rng.choice("CDHS"), rng.choice("NESW")
    makers = rng.choice([p for p in range(82, 163) if p != 161]) if rng.random() < 0.75 else rng.randint(2, 81)
    ns = makers if maker in "NS" else 162 - makers  # made three times in four; set otherwise
    record: dict[str, Any] = {"trump": trump, "maker": maker, "points": {"NS": ns, "EW": 162 - ns}}
    extra = rng.random()
    if extra < 0.15:
        record["melds"] = {maker: [[f"K{trump}", f"Q{trump}", f"J{trump}"]]}
    elif extra < 0.25:
        record["melds"] = {rng.choice("NESW"): [["JC", "JD", "JH", "JS"]]}
    elif extra < 0.32:
        record["renege"] = {"by": rng.choice(["NS", "EW"]), "reason": "played off suit"}
    return record


@dataclass
class Tally:
    """What the tables did, for the figures."""

    hands: int = 0
    refused: int = 0
    double_taps: int = 0
    undos: int = 0
    corrections: int = 0
    wrong_pins: int = 0
    abandoned: int = 0
    games: int = 0
    swapped: int = 0


@dataclass
class TableKiosk:
    """The kiosk at one table: its controller over its own store, its worker process, its meeting."""

    number: int
    venue: tuple[int, str]
    table_number: int
    meeting: int
    path: Path
    tally: Tally
    rng: random.Random = field(init=False)
    playing: bool = True
    league_id: int = 0
    worker: WorkerProcess | None = None
    table: Table = field(init=False)
    corrected_after: bool = False
    hands: int = 0  # hands this table confirmed
    steps: int = 0  # actions this table took
    abandoned: bool = False
    wrong_pin: bool = False

    def __post_init__(self) -> None:
        self.rng = random.Random(1000 + self.number)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.table = open_table(self.path, seed=self.number)
        self.table.set_pin(PIN)

    @property
    def store(self) -> KioskStore:
        return self.table.store

    def join(self, url: str, code: str) -> None:
        """The owner joins the league on the owner screen: the address, the organiser's code, the PIN."""
        joined = self.table.finish_joining(self.table.start_joining(url, code, PIN).exchange())
        assert (joined["venue"]["id"], joined["table"]) == (self.venue[0], self.table_number)
        self.league_id = int(joined["kiosk"])

    def events(self) -> int:
        return sum(g["last_seq"] for g in self.store.games(limit=100))

    def finished(self) -> int:
        """Games of this table's meeting played to the target here."""
        return sum(g["status"] == "over" for g in self.table.league_games().get(self.meeting, []))

    def state(self) -> str | None:
        return outbox.sync_state(self.store).get("state")

    def hand_rows(self, game: int) -> list[dict[str, Any]]:
        """The game's sheet as the kiosk shows it: a row a hand (set, renege, passed out...)."""
        return list(rows_of(self.table.game(game))["hands"])

    def delivered(self) -> bool:
        """Nothing waits in the outbox and the worker says it is connected."""
        return outbox.queued(self.store) == 0 and self.state() == "connected"

    # ---- one action of the table ---------------------------------------------------------------------

    def step(self) -> bool:
        """One thing the table does; False once its meeting's games are all played."""
        game = self.table.open_game()
        if game is None:
            if self.finished() >= GAMES:
                return False
            self.tap_meeting()
        elif game.pending is not None:
            self.confirm(game)
        elif self.number in ABANDONS and not self.abandoned and len(game.hands) == 2:
            self.table.abandon(game.id, "a player was taken ill", PIN)
            self.abandoned = True
            self.tally.abandoned += 1
        elif self.number in CORRECTS_IN_PLAY and len(game.hands) >= 2 and self.rng.random() < 0.2:
            self.correct(game, self.rng.randint(1, len(game.hands) - 1), "points misread")
        else:
            self.enter(game)
        return True

    def tap_meeting(self) -> None:
        """The start screen: tonight's meetings as the worker cached them, this table's first; one tap."""
        view = tonight_view(
            self.table.tonight(), self.table.league_status(), self.table.league_games(), self.table.clock()
        )
        mine = view.meetings[0]
        played = self.finished()
        assert mine.meeting == self.meeting and mine.playable, [c.text for c in view.meetings]
        assert mine.text.endswith(f"· table {self.table_number} · game {played + 1} of {GAMES}"), mine.text
        if self.number in SWAPS_SIDES and played == 1:  # "Unscheduled league game": b tapped first, so at NS
            ns, ew = mine.b, mine.a
            found: Choice | None = meeting_between(view, ns, ew)
            assert found is not None and found.meeting == self.meeting
            self.tally.swapped += 1
        else:
            ns, ew = mine.a, mine.b
        game = new_game_for(ns, ew, mine.rules, mine.meeting)
        started = self.table.new_game(
            game["teams"], game["players"], game["rules"], None, league=game["league"], action_id=new_action_id()
        )
        assert started.draw  # the first dealer by the Jack draw, as the start screen deals it
        assert started.league == {"meeting": self.meeting, "NS": ns.id, "EW": ew.id}
        self.tally.games += 1

    def enter(self, game: GameState) -> None:
        """The quick entry: the hand kept as a draft, then Done (sometimes refused first, sometimes tapped
        twice, sometimes taken back with undo to be entered again)."""
        record = a_hand(self.rng)
        if self.rng.random() < 0.05 and "points" in record:
            before = self.events()
            with pytest.raises(ActionRefused):  # no team ends a hand with 161 points: the table fixes it
                self.table.enter_hand(game.id, {**record, "points": {"NS": 161, "EW": 1}}, action_id=new_action_id())
            assert self.events() == before
            self.tally.refused += 1
        self.table.save_draft(game.id, record)
        action = new_action_id()
        self.table.enter_hand(game.id, record, action_id=action)
        if self.rng.random() < 0.1:
            self.table.enter_hand(game.id, record, action_id=action)  # a double tap: stored once
            self.tally.double_taps += 1
        if self.rng.random() < 0.05:
            self.table.undo(game.id, action_id=new_action_id())  # "Change": the entry taken back
            self.tally.undos += 1

    def confirm(self, game: GameState) -> None:
        """The other team confirms on the summary (a double tap now and then)."""
        action = new_action_id()
        state = self.table.confirm(game.id, action_id=action)
        if self.rng.random() < 0.1:
            assert self.table.confirm(game.id, action_id=action).last_seq == state.last_seq
            self.tally.double_taps += 1
        self.tally.hands += 1
        self.hands += 1
        if state.status == "over" and self.number in CORRECTS_AFTER and not self.corrected_after:
            self.corrected_after = True
            self.correct(state, 1, "scores misread")  # the game may be back in play: the table plays it on

    def correct(self, game: GameState, hand: int, reason: str) -> None:
        """The owner's correction of an earlier hand, with the PIN and a reason; one the rules refuse (the
        game over before its last hand, say) is refused with nothing stored."""
        before = self.events()
        if self.number in WRONG_PIN_FIRST and not self.wrong_pin:
            self.wrong_pin = True
            with pytest.raises(ActionRefused, match="wrong PIN"):
                self.table.correct(game.id, hand, a_hand(self.rng), reason, "135790")
            assert self.events() == before
            self.tally.wrong_pins += 1
        try:
            self.table.correct(game.id, hand, a_hand(self.rng), reason, PIN)
            self.tally.corrections += 1
        except ActionRefused:
            assert self.events() == before
            self.tally.refused += 1

    def close(self) -> None:
        if self.worker is not None and self.worker.proc.poll() is None:
            self.worker.kill()
        self.table.close()


# ---- the night --------------------------------------------------------------------------------------------


@dataclass
class Night:
    """The league (its store, the organiser), its server behind the cable, and the eight tables."""

    store: Store
    org: Organiser
    division: int
    season: int
    server: LeagueServer
    cable: Cable
    kiosks: list[TableKiosk]
    turns: int = 0

    def play(self, turns: int) -> None:
        """Every table still playing does one thing, ``turns`` times."""
        for _ in range(turns):
            self.turn()

    def turn(self) -> None:
        for s in self.kiosks:
            if s.playing:
                s.playing = s.step()
                s.steps += 1
        self.turns += 1
        time.sleep(PACE)

    def during_a_request(self, act: Callable[[], None]) -> bool:
        """Does ``act`` at the first moment a request is on its way through the cable (watched every
        millisecond on a thread of its own while the tables play on), or after 10 s; whether one was."""
        caught: list[bool] = []

        def watch() -> None:
            deadline = time.monotonic() + 10
            while not self.cable.busy() and time.monotonic() < deadline:
                time.sleep(0.001)
            caught.append(self.cable.busy() > 0)
            act()

        watcher = threading.Thread(target=watch)
        watcher.start()
        self.play_until(lambda: not watcher.is_alive(), 30, "the watcher's act")
        watcher.join()
        return caught[0]

    def play_until(self, done: Callable[[], bool], seconds: float, why: str) -> float:
        """The tables play on until ``done()``; its seconds."""
        start = time.monotonic()
        while not done():
            if time.monotonic() - start > seconds or not any(s.playing for s in self.kiosks):
                raise AssertionError(f"not within {seconds} s of play: {why}")
            self.turn()
        return time.monotonic() - start

    def felt(self) -> bool:
        """Every worker whose table is still playing says the league is out of reach."""
        return all(s.state() == "unreachable" for s in self.kiosks if s.playing)

    def progress(self) -> str:
        return f"turn {self.turns}; each table's actions, hands, games: " + ", ".join(
            f"{s.steps} {s.hands} {s.finished()}{'' if s.playing else ' done'}" for s in self.kiosks
        )

    def queued(self) -> int:
        return sum(outbox.queued(s.store) for s in self.kiosks)


def _kiosk_env(folder: Path) -> dict[str, str]:
    """The worker's environment: its database from --kiosk-db, no config of this machine's user."""
    (folder / "empty.toml").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLABBER_")}
    return {
        **env,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "CLABBER_CONFIG": str(folder / "empty.toml"),
    }


@pytest.fixture
def night(league_db: str, tmp_path: Path) -> Iterator[Night]:
    store = Store(league_db)
    org = Organiser(store)
    league = org.create_league("Evansville Clabber League")
    season, division = org.create_season(league, "Winter 2026", SETTINGS)
    for name, *players in TEAMS:
        org.add_team(division, name, players)
    venues = [(org.add_venue(league, name, tables=n), name) for name, n in VENUES]
    org.make_schedule(division, tonight_now())  # the first round is tonight
    with store.read() as r:
        tonight = [m for m in r.meetings(division) if m["round"] == 1]
    assert len(tonight) == 8 and all(m["team_b"] is not None for m in tonight)
    # The organiser puts each meeting at a table of its venue; the kiosk at that table lists it first.
    at: list[tuple[tuple[int, str], int, int]] = []
    for venue in venues:
        here = sorted(m["id"] for m in tonight if m["venue_id"] == venue[0])
        for table, meeting in enumerate(here, 1):
            org.move_meeting(meeting, table=table, reason="tables for the night")
            at.append((venue, table, meeting))
    assert len(at) == 8
    server = LeagueServer(league_db)
    server.start()
    cable = Cable(server.port)  # the kiosks reach the league through it
    tally = Tally()
    kiosks = [
        TableKiosk(i, venue, table, meeting, tmp_path / f"kiosk-{i}" / "clabber.db", tally)
        for i, (venue, table, meeting) in enumerate(at)
    ]
    night = Night(store, org, division, season, server, cable, kiosks)
    try:
        yield night
    finally:
        for s in kiosks:
            s.close()
        cable.close()
        server.stop()
        store.close()


@pytest.mark.slow
def test_a_league_night_with_the_league_restarted_and_the_network_cut(night: Night, tmp_path: Path) -> None:
    enrolled = Kiosks(night.store)
    kiosks, server, cable = night.kiosks, night.server, night.cable
    begun = time.monotonic()
    for s in kiosks:
        s.join(cable.url, enrolled.make_code(s.venue[0], s.table_number))
        s.worker = WorkerProcess(s.path, env=_kiosk_env(s.path.parent))
    # Each worker fetches tonight's meetings when it starts; the start screen reads them from the store.
    wait_until(lambda: all(s.table.tonight() for s in kiosks), 30, "tonight's meetings cached on every kiosk")
    for s in kiosks:
        first = tonight_view(s.table.tonight(), s.table.league_status(), s.table.league_games(), s.table.clock())
        assert first.note == f"Tonight at {s.venue[1]}: tap your meeting."
        assert first.meetings[0].meeting == s.meeting and len(first.meetings) == 4

    # The league killed once every table has hands on its sheet (while a request is on its way, when one
    # comes within 10 s), then started again on its port.
    night.play_until(lambda: all(s.hands >= 3 for s in kiosks), 60, "three hands at every table")
    killed_in_flight = night.during_a_request(server.kill)
    night.play_until(night.felt, 30, "every worker finds the league gone")
    night.play(5)
    queued_at_restart = night.queued()
    server.start()
    # The network cut a little later: the league runs on, nothing reaches it.
    night.play(4)
    cut_at = time.monotonic()
    night.during_a_request(cable.cut)
    night.play_until(night.felt, 30, "every worker finds the network cut")
    night.play(8)
    queued_at_mend, cut_for = night.queued(), time.monotonic() - cut_at
    assert queued_at_restart > 0 and queued_at_mend > 0  # the tables played on; their hands waited
    assert all(s.playing for s in kiosks), f"a table done before the network came back: {night.progress()}"
    cable.mend()
    mended, mended_turn = time.monotonic(), night.turns
    night.play_until(lambda: not any(s.playing for s in kiosks), 120, "every meeting's games played")
    played = time.monotonic()
    wait_until(lambda: all(s.delivered() for s in kiosks), 90, "every kiosk's events delivered")
    settled = time.monotonic()

    for s in kiosks:
        assert s.worker is not None and s.worker.stop() == 0
        assert "Traceback" not in s.worker.words()
    # No event waits on any kiosk, none is held back.
    for s in kiosks:
        assert outbox.queued(s.store) == 0 and outbox.held(s.store) == []
    # The league holds each kiosk's events exactly: the same, in order, each once; each game counted once.
    for s in kiosks:
        assert differences(night.store, s.league_id, s.store) == [], s.number
        mine = {g for games in s.table.league_games().values() for g in (x["game"] for x in games)}
        assert league_game_count(night.store, s.league_id) == dict.fromkeys(mine, 1)
    assert enrolled.quarantine() == [] and divergences(night.store) == 0
    noted = enrolled.flags()["games"]
    assert [n["note"].split(" (")[0] for n in noted] == ["abandoned at the table"]
    # Every meeting has its four games that count, and the league's standings are the kiosks' own.
    with night.store.read() as r:
        for s in kiosks:
            assert sum(g["outcome"] is not None for g in r.games(s.meeting)) == GAMES
    season_rules = asdict(night.org.settings(night.season).rules)
    ours = recount(kiosks, season_rules)
    theirs = [
        (x.name, x.played, x.won, x.lost, x.tied, x.points_for, x.points_against, x.position)
        for x in night.org.standings(night.division)
    ]
    assert theirs == ours
    # The abandoned game does not count among the meeting's games played (tonight's list, from the league).
    abandoner = next(s for s in kiosks if s.number in ABANDONS)
    key = outbox.link(abandoner.store)["key"]  # type: ignore[index]
    status, answer = server.api.call("GET", "/api/v1/tonight", key=key)
    assert status == 200
    assert {m["meeting"]: m["games_played"] for m in answer["meetings"]}[abandoner.meeting] == GAMES

    events = sum(s.events() for s in kiosks)
    tally = kiosks[0].tally
    rows = [h for s in kiosks for g in s.table.league_games().values() for x in g for h in s.hand_rows(x["game"])]
    sets, reneges, passed = (sum(bool(h[k]) for h in rows) for k in ("set", "renege", "passed_out"))
    print(
        f"\nleague night on {night.store.dialect}: 8 kiosks, {tally.games} games"
        f" ({tally.swapped} with team b at NS, {tally.abandoned} abandoned), {tally.hands} hands confirmed"
        f" ({len(rows)} on the sheets: {sets} sets, {reneges} reneges, {passed} passed out),"
        f" {tally.corrections} corrections (and {tally.wrong_pins} wrong PIN), {tally.refused} entries refused,"
        f" {tally.double_taps} double taps, {tally.undos} undos"
        f"\n{events} events delivered, each once; {queued_at_restart} were waiting when the league restarted,"
        f" {queued_at_mend} when the network came back after {cut_for:.1f} s"
        f" ({cable.cut_off} connections cut in the middle, {cable.refused} refused); the league killed"
        f" {'with' if killed_in_flight else 'without'} a request on its way"
        f"\nthe network came back at turn {mended_turn} of {night.turns} (each table's actions:"
        f" {', '.join(str(s.steps) for s in kiosks)})"
        f"\nplayed in {played - begun:.1f} s; all delivered {settled - played:.1f} s after the last hand"
        f" ({settled - mended:.1f} s after the network came back); the night took {settled - begun:.1f} s"
    )


def recount(
    kiosks: list[TableKiosk], season_rules: dict[str, Any]
) -> list[tuple[str, int, int, int, int, int, int, int]]:
    """The standings counted again from the kiosks' own stores, by the season's rules: a game counts when it
    was played to the target with the season's rules (an abandoned game counts for nobody), at most the
    meeting's number of games; a tie is half a win to each; ranked by games won, then game points, point
    difference, and games won among the teams still level; teams level on all of it share a place. The
    teams' names are the ones tonight's meetings gave the kiosks."""
    names = {
        int(t["id"]): str(t["name"])
        for s in kiosks
        for m in (s.table.tonight() or {}).get("meetings", [])
        for t in m["teams"].values()
    }
    assert len(names) == len(TEAMS)
    line = {t: {"played": 0, "won": 0, "lost": 0, "tied": 0, "for": 0, "against": 0} for t in names}
    results: list[tuple[int, int, str]] = []  # (NS team, EW team, winner NS, EW or tie)
    for s in kiosks:
        counted = 0
        for row in sorted(s.store.games(limit=100), key=lambda g: g["id"]):
            sides = (outbox.league_game(s.store, row["id"]) or {}).get("sides")
            if sides is None or row["status"] != "over" or json.loads(row["rules"]) != season_rules:
                continue
            if counted == GAMES:
                continue
            counted += 1
            ns, ew = sides["NS"], sides["EW"]
            results.append((ns, ew, row["winner"]))
            for team, own, other, seat in (
                (ns, row["total_ns"], row["total_ew"], "NS"),
                (ew, row["total_ew"], row["total_ns"], "EW"),
            ):
                counts = line[team]
                counts["played"] += 1
                counts["for"] += own
                counts["against"] += other
                counts["tied" if row["winner"] == "tie" else "won" if row["winner"] == seat else "lost"] += 1

    def wins(t: int) -> Fraction:
        return line[t]["won"] + Fraction(line[t]["tied"], 2)

    def among(group: list[int]) -> dict[int, Fraction]:
        got = dict.fromkeys(group, Fraction(0))
        for ns, ew, winner in results:
            if ns in got and ew in got:
                if winner == "tie":
                    got[ns] += Fraction(1, 2)
                    got[ew] += Fraction(1, 2)
                else:
                    got[ns if winner == "NS" else ew] += 1
        return got

    def key(t: int) -> tuple[Fraction, int, int]:
        return wins(t), line[t]["for"], line[t]["for"] - line[t]["against"]

    out: list[tuple[str, int, int, int, int, int, int, int]] = []
    for k in sorted({key(t) for t in names}, reverse=True):
        level = [t for t in names if key(t) == k]
        h2h = among(level)
        for h in sorted(set(h2h.values()), reverse=True):
            place = len(out) + 1
            for t in sorted((t for t in level if h2h[t] == h), key=lambda t: (names[t].casefold(), t)):
                x = line[t]
                out.append((names[t], x["played"], x["won"], x["lost"], x["tied"], x["for"], x["against"], place))
    return out
