"""What an organiser can do to a league, checked and stored as events: the library that
``clabber league`` mirrors. Every method refuses bad input with ``LeagueRefused`` (where and why),
and writes nothing then."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any, TypeVar

from engine.text import MAX_NAME, looks_blank, text_problem
from league.organiser.night import NIGHT_ENDS, TIME_ZONE, check_clock
from league.organiser.playoffs import check_teams, make_bracket, match_label, meeting_winner, round_name
from league.organiser.ratings import NEW_PLAYER, ratings_in
from league.organiser.schedule import make_schedule, spread_venues
from league.organiser.scores import check_score, said_of_game
from league.organiser.season import LeagueRefused, SeasonSettings, read_settings
from league.organiser.standings import TIE, A, B, Line, Result, rank
from league.store import events as ev
from league.store import ratings as rs
from league.store import tables as tb
from league.store.core import Reader, Store, Writer
from shared.stats import same_name

R = TypeVar("R")  # a row of some table
MOST_NAME = 200
MOST_TABLES = 100
MOST_SUBSTITUTES = 10
OUTCOMES = (A, B, TIE)


def _name(text: str, what: str, most: int = MOST_NAME) -> str:
    name = " ".join(str(text).split())
    if not name:
        raise LeagueRefused(f"{what}: a name is needed")
    if len(name) > most:
        raise LeagueRefused(f"{what}: a name is at most {most} characters")
    _plain(name, what, "name")
    return name


def _plain(text: str, what: str, kind: str) -> None:
    """Refuses a name or reason that no page can show as typed: a control, formatting or bidirectional
    character, half of a surrogate pair, or nothing seen (no letter or digit)."""
    why = text_problem(text)
    if why is not None:
        raise LeagueRefused(f"{what}: the {kind} {why}")
    if looks_blank(text):
        raise LeagueRefused(f"{what}: the {kind} shows no letter or digit")


def _need(row: R | None, what: str, id_: int) -> R:
    if row is None:
        raise LeagueRefused(f"there is no {what} {id_}")
    return row


def _date(text: str, what: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise LeagueRefused(f"{what}: {text!r} is not a date like 2026-01-06") from None


def _reason(text: str | None, what: str) -> str:
    reason = " ".join(str(text or "").split())
    if not reason:
        raise LeagueRefused(f"{what}: a reason is needed")
    _plain(reason, what, "reason")
    return reason


class _NotCounted(Exception):
    """Undoes a game recorded only to say what it would do."""

    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


class Organiser:
    """Leagues, seasons, divisions, teams, venues, the schedule, results and rulings."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create_league(self, name: str, time_zone: str = TIME_ZONE, night_ends: int = NIGHT_ENDS) -> int:
        """A league, with the clock its nights are told by: a time zone, and the hour a night ends."""
        name = _name(name, "league")
        time_zone, night_ends = check_clock(time_zone, night_ends)
        with self.store.write() as w:
            if w.league_named(name):
                raise LeagueRefused(f"league: there is already a league named {name!r}")
            id_ = w.next_id(tb.leagues)
            w.append(ev.LEAGUE_CREATED, {"league": id_, "name": name, "time_zone": time_zone, "night_ends": night_ends})
        return id_

    def create_season(self, league: int, name: str, settings: dict[str, Any] | None = None) -> tuple[int, int]:
        """A season with its first division ("Division 1"); returns both ids."""
        name = _name(name, "season")
        checked = read_settings(settings)
        with self.store.write() as w:
            _need(w.league(league), "league", league)
            if any(s["name"] == name for s in w.seasons(league)):
                raise LeagueRefused(f"season: the league already has a season named {name!r}")
            id_ = w.next_id(tb.seasons)
            w.append(ev.SEASON_CREATED, {"season": id_, "league": league, "name": name, "settings": checked.to_json()})
            division = w.next_id(tb.divisions)
            w.append(ev.DIVISION_ADDED, {"division": division, "season": id_, "name": "Division 1"})
        return id_, division

    def add_division(self, season: int, name: str) -> int:
        name = _name(name, "division")
        with self.store.write() as w:
            _need(w.season(season), "season", season)
            if any(d["name"] == name for d in w.divisions(season)):
                raise LeagueRefused(f"division: the season already has a division named {name!r}")
            id_ = w.next_id(tb.divisions)
            w.append(ev.DIVISION_ADDED, {"division": id_, "season": season, "name": name})
        return id_

    def add_team(self, division: int, name: str, players: Sequence[str], substitutes: Sequence[str] = ()) -> int:
        # Team and player names go onto the kiosks' sheets, whose names are at most MAX_NAME long.
        name = _name(name, "team", MAX_NAME)
        if len(players) != 2:
            raise LeagueRefused(f"team {name!r}: a team is two players, not {len(players)}")
        two = [_name(p, f"team {name!r}: player", MAX_NAME) for p in players]
        subs = [_name(p, f"team {name!r}: substitute", MAX_NAME) for p in substitutes]
        if len(subs) > MOST_SUBSTITUTES:
            raise LeagueRefused(f"team {name!r}: at most {MOST_SUBSTITUTES} substitutes")
        with self.store.write() as w:
            _need(w.division(division), "division", division)
            if w.rounds(division):
                raise LeagueRefused(f"team {name!r}: the division's schedule is made; a team cannot join now")
            if any(t["name"] == name for t in w.teams(division)):
                raise LeagueRefused(f"team: the division already has a team named {name!r}")
            id_ = w.next_id(tb.teams)
            w.append(
                ev.TEAM_ADDED, {"team": id_, "division": division, "name": name, "players": two, "substitutes": subs}
            )
        return id_

    def add_venue(self, league: int, name: str, tables: int = 1) -> int:
        name = _name(name, "venue")
        if isinstance(tables, bool) or not isinstance(tables, int) or not 1 <= tables <= MOST_TABLES:
            raise LeagueRefused(f"venue {name!r}: the number of tables must be from 1 to {MOST_TABLES}")
        with self.store.write() as w:
            _need(w.league(league), "league", league)
            if any(v["name"] == name for v in w.venues(league)):
                raise LeagueRefused(f"venue: the league already has a venue named {name!r}")
            id_ = w.next_id(tb.venues)
            w.append(ev.VENUE_ADDED, {"venue": id_, "league": league, "name": name, "tables": tables})
        return id_

    def make_schedule(self, division: int, start: str, every_days: int = 7, double: bool = False) -> int:
        """Rounds and meetings for every team of the division; returns the number of rounds."""
        first = _date(start, "schedule start")
        with self.store.write() as w:
            d = _need(w.division(division), "division", division)
            if w.rounds(division):
                raise LeagueRefused(f"division {division} already has a schedule")
            season = _need(w.season(d["season_id"]), "season", d["season_id"])
            team_ids = [t["id"] for t in w.teams(division)]
            venue_tables = {v["id"]: v["tables"] for v in w.venues(season["league_id"])}
            plan = make_schedule(team_ids, venue_tables, first, every_days, double)
            round_id, meeting_id = w.next_id(tb.rounds), w.next_id(tb.meetings)
            out = []
            for r in plan:
                ms = []
                for m in r.meetings:
                    ms.append({"meeting": meeting_id, "a": m.a, "b": m.b, "venue": m.venue})
                    meeting_id += 1
                out.append({"round": round_id, "number": r.number, "date": r.date.isoformat(), "meetings": ms})
                round_id += 1
            w.append(ev.SCHEDULE_MADE, {"division": division, "double": double, "rounds": out})
        return len(plan)

    def move_meeting(
        self, meeting: int, *, date: str | None = None, venue: int | None = None, table: int | None = None, reason: str
    ) -> None:
        """Another night, venue or table for a meeting (what is not given stays)."""
        why = _reason(reason, f"meeting {meeting}")
        with self.store.write() as w:
            m = _need(w.meeting(meeting), "meeting", meeting)
            if m["team_b"] is None:
                raise LeagueRefused(f"meeting {meeting} is a bye: there is nothing to move")
            new_date = _date(date, f"meeting {meeting}").isoformat() if date is not None else m["date"]
            new_venue = m["venue_id"] if venue is None else venue
            new_table = m["table_number"] if table is None and venue is None else table
            league = self._league_of_division(w, m["division_id"])
            assert new_venue is not None  # every meeting with games is given a venue when it is made
            v = _need(w.venue(new_venue), "venue", new_venue)
            if v["league_id"] != league:
                raise LeagueRefused(f"venue {new_venue} is not one of this league's venues")
            if new_table is not None and not 1 <= new_table <= v["tables"]:
                raise LeagueRefused(f"venue {v['name']!r} has tables 1 to {v['tables']}, not {new_table}")
            night = new_date or m["round_date"]
            for other in w.meetings(m["division_id"]):
                if other["id"] == meeting or (other["date"] or other["round_date"]) != night:
                    continue
                if {other["team_a"], other["team_b"]} & {m["team_a"], m["team_b"]}:
                    raise LeagueRefused(
                        f"meeting {meeting}: a team of it already plays on {night} (meeting {other['id']})"
                    )
            w.append(
                ev.MEETING_MOVED,
                {"meeting": meeting, "date": new_date, "venue": new_venue, "table": new_table, "reason": why},
            )

    def forfeit(self, meeting: int, team: int, reason: str) -> None:
        """``team`` forfeits the meeting: every game of it counts as won by the other team, no points."""
        why = _reason(reason, f"meeting {meeting}: forfeit")
        with self.store.write() as w:
            m = _need(w.meeting(meeting), "meeting", meeting)
            if m["team_b"] is None or team not in (m["team_a"], m["team_b"]):
                raise LeagueRefused(f"meeting {meeting}: team {team} does not play in it")
            if m["forfeit_team"] is not None:
                raise LeagueRefused(f"meeting {meeting} is already forfeited")
            if w.games(meeting):
                raise LeagueRefused(f"meeting {meeting} has games recorded: rule on those games instead")
            w.append(ev.MEETING_FORFEITED, {"meeting": meeting, "team": team, "reason": why})
            advance_playoffs(w, meeting)

    def record_game(
        self, meeting: int, points_a: int, points_b: int, outcome: str | None, reason: str | None = None
    ) -> int:
        """The next game of a meeting as played (``outcome`` a, b or tie), checked by the season's
        rules; or abandoned (None), the organiser's ruling with its ``reason``."""
        return self._record_game(meeting, points_a, points_b, outcome, reason, count=True)[0]

    def preview_game(
        self, meeting: int, points_a: int, points_b: int, outcome: str | None, reason: str | None = None
    ) -> str:
        """What recording this game would do, in a sentence ("Aces beat Kings 506–312; Aces go
        up to 1st."), refused as ``record_game`` refuses; nothing is written."""
        return self._record_game(meeting, points_a, points_b, outcome, reason, count=False)[1]

    def game_said(
        self, meeting: int, points_a: int, points_b: int, outcome: str | None, reason: str | None = None
    ) -> tuple[int, str]:
        """Records the game as ``record_game`` does; its id and what it did, in a sentence."""
        return self._record_game(meeting, points_a, points_b, outcome, reason, count=True)

    def _record_game(
        self, meeting: int, points_a: int, points_b: int, outcome: str | None, reason: str | None, *, count: bool
    ) -> tuple[int, str]:
        where = f"meeting {meeting}: game"
        if outcome is not None and outcome not in OUTCOMES:
            raise LeagueRefused(f"{where}: the outcome is a, b or tie, not {outcome!r}")
        why = _reason(reason, f"{where}: abandoned") if outcome is None else None
        try:
            with self.store.write() as w:
                m = _need(w.meeting(meeting), "meeting", meeting)
                if m["team_b"] is None:
                    raise LeagueRefused(f"meeting {meeting} is a bye: no games are played")
                if m["forfeit_team"] is not None:
                    raise LeagueRefused(f"meeting {meeting} was forfeited: no games are played")
                settings = self._settings_of_division(w, m["division_id"])
                check_score(points_a, points_b, outcome, settings.rules, where)
                played = w.games(meeting)
                if sum(g["outcome"] is not None for g in played) >= settings.games_per_meeting:
                    raise LeagueRefused(f"meeting {meeting} already has its {settings.games_per_meeting} game(s)")
                before = self._standings(w, m["division_id"]) if m["stage"] != tb.PLAYOFFS else []
                id_ = w.next_id(tb.games)
                w.append(
                    ev.GAME_RECORDED,
                    {
                        "game": id_,
                        "meeting": meeting,
                        "number": len(played) + 1,
                        "points_a": points_a,
                        "points_b": points_b,
                        "outcome": outcome,
                    },
                )
                if why is not None:  # abandoned: the organiser's ruling, with why
                    w.append(
                        ev.GAME_RULED,
                        {"game": id_, "outcome": None, "points_a": points_a, "points_b": points_b, "reason": why},
                    )
                advance_playoffs(w, meeting)
                after = self._standings(w, m["division_id"]) if m["stage"] != tb.PLAYOFFS else []
                said = said_of_game(w, m, points_a, points_b, outcome, before, after)
                if not count:
                    raise _NotCounted(said)  # the whole transaction undone: nothing was written
        except _NotCounted as preview:
            return 0, preview.said
        return id_, said

    def merge_players(self, league: int, name: str, into: str) -> None:
        """The organiser's word that ``name`` is the same player as ``into`` in a league's ratings
        (names are labels: "Bob K." typed at a kiosk is Bob); a later word on the same name replaces it."""
        alias, player = _name(name, "merge", MAX_NAME), _name(into, "merge: into", MAX_NAME)
        with self.store.write() as w:
            _need(w.league(league), "league", league)
            merged = rs.merges(w.conn, league)
            key, target = same_name(alias), same_name(player)
            for _ in range(len(merged)):  # the player it ends at, as the ratings will follow it
                if target not in merged:
                    break
                target = merged[target][0]
            if target == key:
                raise LeagueRefused(f"merge: {alias!r} and {player!r} are one player already")
            w.append(ev.PLAYERS_MERGED, {"league": league, "name": key, "into": target, "into_name": player})

    def rule_game(self, game: int, outcome: str | None, reason: str, points: tuple[int, int] | None = None) -> None:
        """The organiser's ruling on a game: its result (or abandoned: counting for nobody), with a reason."""
        why = _reason(reason, f"game {game}: ruling")
        if outcome is not None and outcome not in OUTCOMES:
            raise LeagueRefused(f"game {game}: the outcome is a, b, tie or none (abandoned), not {outcome!r}")
        with self.store.write() as w:
            g = _need(w.game(game), "game", game)
            pa, pb = points if points is not None else (g["points_a"], g["points_b"])
            w.append(ev.GAME_RULED, {"game": game, "outcome": outcome, "points_a": pa, "points_b": pb, "reason": why})
            advance_playoffs(w, g["meeting_id"])

    def standings(self, division: int) -> list[Line]:
        """The round robin's standings (playoff games do not count in them): each team's totals as the
        store keeps them (one row a team, however many games), ranked here; the games between teams
        still level are read only when head-to-head must split them."""
        with self.store.read() as r:
            return self._standings(r, division)

    @classmethod
    def _standings(cls, r: Reader, division: int) -> list[Line]:
        settings = cls._settings_of_division(r, division)
        totals: dict[int, dict[str, Any]] = {x.pop("team_id"): x for x in r.standing_totals(division)}
        lines = {t["id"]: Line(t["id"], t["name"], **totals.get(t["id"], {})) for t in r.teams(division)}

        def among(group: Sequence[int]) -> list[Result]:
            played, forfeited = r.results_among(division, group)
            results = [Result(g["team_a"], g["team_b"], g["points_a"], g["points_b"], g["outcome"]) for g in played]
            for m in forfeited:
                won = B if m["forfeit_team"] == m["team_a"] else A
                results += [Result(m["team_a"], m["team_b"], 0, 0, won)] * settings.games_per_meeting
            return results

        return rank(lines, among, settings.ranking, settings.tie_breakers)

    def settings(self, season: int) -> SeasonSettings:
        with self.store.read() as r:
            s = _need(r.season(season), "season", season)
        return read_settings(json.loads(s["settings"]))

    def make_playoffs(self, division: int, teams: int, start: str, every_days: int = 7, *, anyway: bool = False) -> int:
        """A single-elimination bracket of the division's best ``teams`` by the standings (organiser/playoffs.py):
        its first round on ``start``, then a round every ``every_days``; returns the number of rounds.

        Refused while round-robin meetings are still to play (or there is no round robin), unless ``anyway``:
        then the seeds are the standings as they stand. Teams sharing a place are seeded in the order the
        standings list them.
        """
        check_teams(teams)
        first = _date(start, "playoffs start")
        if isinstance(every_days, bool) or not isinstance(every_days, int) or every_days < 1:
            raise LeagueRefused("playoffs: rounds must be at least one day apart")
        with self.store.write() as w:
            d = _need(w.division(division), "division", division)
            if w.playoffs(division) is not None:
                raise LeagueRefused(f"division {division} already has its playoffs")
            settings = self._settings_of_division(w, division)
            if not anyway:
                _check_round_robin_played(w, division, settings.games_per_meeting)
            ranked = [x.team for x in self._standings(w, division)]
            if settings.seeding == "ratings":  # the same teams qualify; the ratings seed them
                ranked = _by_ratings(w, d["season_id"], ranked[:teams]) + ranked[teams:]
            bracket = make_bracket(ranked, teams)
            season = _need(w.season(d["season_id"]), "season", d["season_id"])
            venue_tables = {v["id"]: v["tables"] for v in w.venues(season["league_id"])}
            per_round = [sum(1 for m in bracket.matches if m.round == r) for r in range(1, bracket.rounds + 1)]
            try:
                places = spread_venues(per_round, venue_tables)
            except LeagueRefused as e:
                raise LeagueRefused(f"playoffs: {e}") from None
            round_id, match_id, meeting_id = w.next_id(tb.rounds), w.next_id(tb.playoff_matches), w.next_id(tb.meetings)
            number = max((x["number"] for x in w.rounds(division)), default=0) + 1
            rounds = [
                {
                    "round": round_id + r,
                    "number": number + r,
                    "date": (first + dt.timedelta(days=every_days * r)).isoformat(),
                    "playoff_round": r + 1,
                }
                for r in range(bracket.rounds)
            ]
            matches = []
            for i, m in enumerate(bracket.matches):
                a, b = bracket.entrants(i, {})
                meeting = None
                if a is not None and b is not None:
                    meeting, meeting_id = meeting_id, meeting_id + 1
                matches.append(
                    {
                        "match": match_id + i,
                        "round": round_id + m.round - 1,
                        "playoff_round": m.round,
                        "slot": m.slot,
                        "seed_a": m.a.seed,
                        "seed_b": m.b.seed,
                        "from_a": None if m.a.winner_of is None else match_id + m.a.winner_of,
                        "from_b": None if m.b.winner_of is None else match_id + m.b.winner_of,
                        "next": None if m.next is None else match_id + m.next,
                        "next_side": m.next_side,
                        "venue": places[m.round - 1][m.slot],
                        "a": a,
                        "b": b,
                        "meeting": meeting,
                    }
                )
            w.append(
                ev.PLAYOFFS_MADE,
                {"division": division, "teams": list(bracket.teams), "rounds": rounds, "matches": matches},
            )
        return bracket.rounds

    def bracket(self, division: int) -> dict[str, Any]:
        """The division's playoffs as they stand: the seeds, each round's matches with their teams (or whose
        winner is still to come), games and winners, and the champion once the final is decided."""
        with self.store.read() as r:
            d = _need(r.division(division), "division", division)
            made = r.playoffs(division)
            if made is None:
                raise LeagueRefused(f"division {division} has no playoffs")
            names = {t["id"]: t["name"] for t in r.teams(division)}
            venues = {v["id"]: v["name"] for v in r.venues(self._league_of_division(r, division))}
            seeded: list[int] = json.loads(made["teams"])
            seeds = {t: i + 1 for i, t in enumerate(seeded)}
            rows = r.playoff_matches(division)
            meetings = {x["meeting_id"]: r.meeting(x["meeting_id"]) for x in rows if x["meeting_id"] is not None}
            games = {id_: r.games(id_) for id_ in meetings}
        total = max(x["playoff_round"] for x in rows)
        labels = {x["id"]: match_label(x["playoff_round"], total, x["slot"]) for x in rows}

        def team(id_: int | None) -> dict[str, Any] | None:
            return None if id_ is None else {"team": id_, "name": names.get(id_, "?"), "seed": seeds[id_]}

        def side(x: dict[str, Any], s: str) -> dict[str, Any]:
            """A side of a match: its team (name and seed), or whose winner it is still to be."""
            known = team(x[f"team_{s}"]) or {"team": None, "name": None, "seed": None}
            return known | {"winner_of": x[f"from_{s}"], "winner_of_label": labels.get(x[f"from_{s}"])}

        rounds: list[dict[str, Any]] = []
        for x in rows:
            if not rounds or rounds[-1]["round"] != x["playoff_round"]:
                rounds.append(
                    {
                        "round": x["playoff_round"],
                        "name": round_name(x["playoff_round"], total),
                        "date": x["round_date"],
                        "matches": [],
                    }
                )
            m = meetings.get(x["meeting_id"])
            rounds[-1]["matches"].append(
                {
                    "match": x["id"],
                    "label": labels[x["id"]],
                    "meeting": x["meeting_id"],
                    "date": (m["date"] or m["round_date"]) if m else x["round_date"],
                    "venue": venues.get(m["venue_id"] if m else x["venue_id"], ""),
                    "table": m["table_number"] if m else None,
                    "a": side(x, "a"),
                    "b": side(x, "b"),
                    "games": [
                        {k: g[k] for k in ("number", "points_a", "points_b", "outcome", "ruled_reason")}
                        for g in games.get(x["meeting_id"], [])
                    ],
                    "forfeited_by": team(m["forfeit_team"]) if m and m["forfeit_team"] is not None else None,
                    "winner": team(x["winner"]),
                }
            )
        second = [x for x in rows if x["playoff_round"] == 2]
        byes = sorted((x[f"seed_{s}"], team(x[f"team_{s}"])) for x in second for s in "ab" if x[f"seed_{s}"])
        final = rows[-1]
        return {
            "division": {"id": d["id"], "name": d["name"]},
            "teams": [team(t) for t in seeded],
            "byes": [t for _, t in byes],
            "rounds": rounds,
            "champion": team(final["winner"]),
        }

    @staticmethod
    def _league_of_division(r: Reader, division: int) -> int:
        d = _need(r.division(division), "division", division)
        return int(_need(r.season(d["season_id"]), "season", d["season_id"])["league_id"])

    @staticmethod
    def _settings_of_division(r: Reader, division: int) -> SeasonSettings:
        d = _need(r.division(division), "division", division)
        s = _need(r.season(d["season_id"]), "season", d["season_id"])
        return read_settings(json.loads(s["settings"]))


def _check_round_robin_played(r: Reader, division: int, games_per_meeting: int) -> None:
    """Refuses playoffs while the division's round robin is missing or has meetings still to play."""
    meetings = [m for m in r.meetings(division) if m["stage"] == tb.ROUND_ROBIN and m["team_b"] is not None]
    if not meetings:
        raise LeagueRefused(
            f"playoffs: division {division} has no round robin to seed from; make its schedule first, "
            "or seed from the standings as they stand (--anyway)"
        )
    played: dict[int, int] = {}
    for g in r.division_games(division, tb.ROUND_ROBIN):
        played[g["meeting_id"]] = played.get(g["meeting_id"], 0) + 1
    unplayed = [m for m in meetings if m["forfeit_team"] is None and played.get(m["id"], 0) < games_per_meeting]
    if unplayed:
        m = unplayed[0]
        raise LeagueRefused(
            f"playoffs: {len(unplayed)} round-robin meeting(s) still to play (the first: meeting {m['id']} on "
            f"{m['date'] or m['round_date']}); record them, or seed from the standings as they stand (--anyway)"
        )


def _by_ratings(w: Writer, season: int, teams: list[int]) -> list[int]:
    """Teams in the order of their two registered players' ratings summed (a pair is the sum of its
    players, as the ratings rate it; a player not yet rated counts as new), the standings' order
    between equals."""
    league = _need(w.season(season), "season", season)["league_id"]
    rated = ratings_in(w, league)

    def strength(team: int) -> float:
        players = json.loads(_need(w.team(team), "team", team)["players"])
        return sum(line.mu if (line := rated.player(n)) else NEW_PLAYER for n in players)

    return sorted(teams, key=strength, reverse=True)  # sorted() keeps the standings' order between equals


def advance_playoffs(w: Writer, meeting: int) -> None:
    """Sends the winner of a playoff meeting on to the next round, in the transaction that wrote its game.

    Call it after writing a game of ``meeting`` (recorded, ruled on, or a forfeit). It does nothing for a
    round-robin meeting, for a meeting with games still to play, or when the winner is the one already
    sent on. When a ruling changes who won, the new winner takes the place in the next match; refused
    (so the ruling is not written either) once that next meeting has games or a forfeit.
    """
    match = w.playoff_match_of_meeting(meeting)
    if match is None:
        return
    m = _need(w.meeting(meeting), "meeting", meeting)
    settings = Organiser._settings_of_division(w, m["division_id"])
    made = _need(w.playoffs(m["division_id"]), "playoffs of division", m["division_id"])
    seeds = {t: i + 1 for i, t in enumerate(json.loads(made["teams"]))}
    assert m["team_b"] is not None  # a playoff meeting is made once both its teams are known
    games = [Result(m["team_a"], m["team_b"], g["points_a"], g["points_b"], g["outcome"]) for g in w.games(meeting)]
    winner = meeting_winner(m["team_a"], m["team_b"], games, settings.games_per_meeting, seeds, m["forfeit_team"])
    if winner is None or winner == match["winner"]:
        return
    after: dict[str, Any] | None = None
    if match["next_match"] is not None:
        n = _need(w.playoff_match(match["next_match"]), "playoff match", match["next_match"])
        side = match["next_side"]
        later = w.meeting(n["meeting_id"]) if n["meeting_id"] is not None else None
        if later is not None and (later["forfeit_team"] is not None or w.games(later["id"])):
            raise LeagueRefused(
                f"meeting {meeting}: this would change who went through to meeting {later['id']}, "
                "which has been played already"
            )
        teams = {"a": n["team_a"], "b": n["team_b"], side: winner}
        new = None
        meeting_id = n["meeting_id"]
        if meeting_id is None and teams["a"] is not None and teams["b"] is not None:
            meeting_id = w.next_id(tb.meetings)
            new = {"round": n["round_id"], "a": teams["a"], "b": teams["b"], "venue": n["venue_id"]}
        after = {"match": n["id"], "side": side, "meeting": meeting_id, "new_meeting": new}
    w.append(
        ev.PLAYOFF_ADVANCED,
        {"division": m["division_id"], "match": match["id"], "winner": winner, "was": match["winner"], "next": after},
    )
