"""A small season for the statistics, its games played with the kiosk's table controller and pushed to
the league, and its figures worked out by hand (the comments show the arithmetic)."""

from __future__ import annotations

import contextlib
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

from engine.cards import cards_in
from engine.deal import deal
from engine.hand import Announce, Hand, Play
from engine.melds import best_melds
from engine.record import hand_to_json
from engine.seats import SEATS, Seat, seat_name
from engine.simulate import random_bids
from league.ingest.kiosks import Kiosks
from league.organiser.actions import Organiser
from league.store.core import Store
from shared.game_state import ActionRefused
from tests.league_kiosk_helpers import meeting_night
from tests.store_helpers import night_clock, open_table

PIN = "246813"

# Game 1, Aces NS (N Ann, S Bob) v Kings EW (E Cy, W Di), first dealer N. Running totals after each hand.
GAME_1 = [
    # N deals. E makes hearts. N: mules (200) beat E's dad; W holds the bell (20). NS 62 + 200 = 262,
    # EW 100 + 20 = 120: the makers are set. NS 262, EW XX. (262, 0)
    {
        "trump": "H",
        "maker": "E",
        "melds": {"N": [["JC", "JD", "JH", "JS"]], "E": [["AS", "KS", "QS"]]},
        "bell": "W",
        "points": {"NS": 62, "EW": 100},
    },
    # E deals. S makes spades. W's hundred beats S's fifty; S holds the bell. NS 92 + 20 = 112,
    # EW 70 + 100 = 170: NS set. NS XX, EW 170. (262, 170)
    {
        "trump": "S",
        "maker": "S",
        "melds": {"S": [["AD", "KD", "QD", "JD"]], "W": [["AC", "KC", "QC", "JC", "TC"]]},
        "bell": "S",
        "points": {"NS": 92, "EW": 70},
    },
    # S deals: passed out; S deals again. (262, 170)
    {"passed_out": True},
    # S deals. W makes diamonds and announces a dad; N reneges (called at the table): EW 162 + 20.
    # (262, 352)
    {
        "trump": "D",
        "maker": "W",
        "melds": {"W": [["9C", "TC", "JC"]]},
        "renege": {"by": "NS", "seat": "N", "reason": "table talk"},
        "points": {"NS": 80, "EW": 82},
    },
    # W deals. N makes clubs: NS 100, EW 62. (362, 414)
    {"trump": "C", "maker": "N", "points": {"NS": 100, "EW": 62}},
    # N deals. S makes spades; N's four Queens (100): NS 90 + 100 = 190, EW 72. (552, 486): Aces win.
    {"trump": "S", "maker": "S", "melds": {"N": [["QC", "QD", "QH", "QS"]]}, "points": {"NS": 90, "EW": 72}},
]
GAME_1_PLAYERS = ["Ann", "Cy", "Bob", "Di"]

# Game 2, Queens NS (N Gus, S Hal) v Aces EW (E typed "bob", W typed "ANN"), first dealer N.
GAME_2 = [
    # N deals. W makes spades; E's mules (200), W's bell: EW 122 + 200 + 20 = 342, NS 40. (40, 342)
    {
        "trump": "S",
        "maker": "W",
        "melds": {"E": [["JC", "JD", "JH", "JS"]]},
        "bell": "W",
        "points": {"NS": 40, "EW": 122},
    },
    # E deals. N makes diamonds: NS 30 against 132, set. (40, 474)
    {"trump": "D", "maker": "N", "points": {"NS": 30, "EW": 132}},
    # S deals. E makes clubs; N's fifty: NS 60 + 50 = 110 against EW 102: EW set. (150, 474)
    {"trump": "C", "maker": "E", "melds": {"N": [["AH", "KH", "QH", "JH"]]}, "points": {"NS": 60, "EW": 102}},
    # W deals. S makes hearts: NS 20 against 142, set. (150, 616): Aces win.
    {"trump": "H", "maker": "S", "points": {"NS": 20, "EW": 142}},
]
GAME_2_PLAYERS = ["Gus", "bob", "Hal", "ANN"]

FIGURES = [
    *("games", "won", "tied", "hands", "makers", "made", "sets_taken", "sets_given", "points", "biggest"),
    *("mules", "hundreds", "fifties", "dads", "bells", "reneges", "pass_outs"),
]


def figures(*values: int) -> dict[str, int]:
    return dict(zip(FIGURES, values, strict=True))


# The season worked by hand (game 3, Kings 660 Queens 580, was recorded by hand: games and wins only;
# Jacks forfeited to Aces: not a game played).
#                     G  W  T  hands mk made XX XX'd points best mules 100s 50s dads bells ren p/o
TEAMS = {
    "Aces": figures(2, 2, 0, 10, 5, 3, 2, 3, 1168, 342, 2, 1, 1, 0, 2, 1, 1),
    "Kings": figures(2, 1, 0, 6, 2, 1, 1, 1, 486, 182, 0, 1, 0, 2, 1, 0, 0),
    "Queens": figures(2, 0, 0, 4, 2, 0, 2, 1, 150, 110, 0, 0, 1, 0, 0, 0, 0),
    "Jacks": figures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
}
PLAYERS = {
    ("Ann", "Aces"): figures(2, 2, 0, 10, 2, 2, 0, 3, 1168, 342, 1, 1, 0, 0, 1, 1, 0),
    ("Bob", "Aces"): figures(2, 2, 0, 10, 3, 1, 2, 3, 1168, 342, 1, 0, 1, 0, 1, 0, 1),
    ("Cy", "Kings"): figures(1, 0, 0, 6, 1, 0, 1, 1, 486, 182, 0, 0, 0, 1, 0, 0, 0),
    ("Di", "Kings"): figures(1, 0, 0, 6, 1, 1, 0, 1, 486, 182, 0, 1, 0, 1, 1, 0, 0),
    ("Gus", "Queens"): figures(1, 0, 0, 4, 1, 0, 1, 1, 150, 110, 0, 0, 1, 0, 0, 0, 0),
    ("Hal", "Queens"): figures(1, 0, 0, 4, 1, 0, 1, 1, 150, 110, 0, 0, 0, 0, 0, 0, 0),
}


def play(
    folder: Path, teams: tuple[str, str], players: list[str], hands: list[dict[str, Any]], night: str
) -> list[dict]:
    """A game played hand by hand with the table controller on a league night, as the kiosk would push
    its events."""
    table = open_table(folder / f"kiosk-{len(list(folder.glob('kiosk-*.db')))}.db", night=night)
    table.set_pin(PIN)
    g = table.new_game(list(teams), players, first_dealer="N")
    for h in hands:
        g = table.add_hand(g.id, h)
    out = []
    for e in table.store.events(g.id):
        d = asdict(e)
        d.pop("game")
        out.append(d)
    table.close()
    return out


def meeting_of(store: Store, division: int, a: int, b: int) -> int:
    with store.read() as r:
        return next(m["id"] for m in r.meetings(division) if {m["team_a"], m["team_b"]} == {a, b})


def small_season(store: Store, folder: Path, season_name: str = "Winter 2026", league: int | None = None) -> dict:
    """Four teams at one venue: game 1 and game 2 played at a kiosk, game 3 recorded by hand, Jacks'
    forfeit to Aces; the other meetings unplayed."""
    org = Organiser(store)
    if league is None:
        league = org.create_league("Tuesday nights")
        org.add_venue(league, "Germania", tables=4)
    season, division = org.create_season(league, season_name)
    ids = {
        name: org.add_team(division, name, players, subs)
        for name, players, subs in (
            ("Aces", ["Ann", "Bob"], []),
            ("Kings", ["Cy", "Di"], ["Ed"]),
            ("Queens", ["Gus", "Hal"], []),
            ("Jacks", ["Ike", "Jo"], []),
        )
    }
    org.make_schedule(division, "2026-01-06")
    with store.read() as r:
        venue = r.venues(league)[0]["id"]
    kiosks = Kiosks(store)
    kiosk = kiosks.kiosk_for_key(kiosks.enrol(kiosks.make_code(venue, 1))["key"])
    for i, (ns, ew, players, hands) in enumerate(
        (("Aces", "Kings", GAME_1_PLAYERS, GAME_1), ("Queens", "Aces", GAME_2_PLAYERS, GAME_2))
    ):
        meeting = meeting_of(store, division, ids[ns], ids[ew])
        events = play(folder, (ns, ew), players, hands, meeting_night(store, meeting))
        sides = {"NS": ids[ns], "EW": ids[ew]}
        pushed = kiosks.push(kiosk, {"games": [{"game": i + 1, "meeting": meeting, "sides": sides, "events": events}]})
        assert pushed["games"][0]["quarantined"] == [], pushed
    m = meeting_of(store, division, ids["Kings"], ids["Queens"])
    with store.read() as r:
        kings_a = r.meeting(m)["team_a"] == ids["Kings"]
    game3 = org.record_game(m, *((660, 580, "a") if kings_a else (580, 660, "b")))
    org.forfeit(meeting_of(store, division, ids["Jacks"], ids["Aces"]), ids["Jacks"], "short of a player")
    return {"org": org, "league": league, "season": season, "division": division, "teams": ids, "game3": game3}


# ---- a large season, generated -------------------------------------------------------------------------

QUICK_MELDS = [
    ["JC", "JD", "JH", "JS"],
    ["AC", "AD", "AH", "AS"],
    ["A", "K", "Q"],
    ["A", "K", "Q", "J"],
    ["A", "K", "Q", "J", "T"],
]


def lawless_hand(rng: random.Random, dealer: Seat) -> Hand:
    """A whole hand dealt and bid lawfully, every seat announcing its best melds, played at random;
    now and then a player plays a card they should not have (a renege the cards prove), which ends it."""
    hand = random_bids(rng, Hand(dealer).apply(deal(rng, dealer)))
    if hand.passed_out:
        return hand
    for s in SEATS:
        for m in best_melds(hand.located[s], hand.trump):
            hand = hand.apply(Announce(s, m.cards))
    while not hand.finished:
        seat = hand.next_player
        assert seat is not None
        legal = hand.legal()
        wrong = hand.holding(seat) & ~legal
        pool = wrong if wrong and rng.random() < 0.03 else legal
        hand = hand.apply(Play(rng.choice(list(cards_in(pool)))))
    return hand


def quick_record(rng: random.Random, dealer: str) -> dict[str, Any]:
    """A quick entry: trump, maker, points, and now and then a bell, a meld, a renege called, a pass-out
    or a misdeal."""
    roll = rng.random()
    if roll < 0.06:
        return {"dealer": dealer, "passed_out": True}
    if roll < 0.08:
        return {"dealer": dealer, "misdeal": "a card exposed"}
    trump = rng.choice("CDHS")
    ns = rng.choice([p for p in range(0, 163, 2) if p not in (1, 161)])
    record: dict[str, Any] = {
        "dealer": dealer,
        "trump": trump,
        "maker": rng.choice("NESW"),
        "points": {"NS": ns, "EW": 162 - ns},
    }
    if rng.random() < 0.3:
        record["bell"] = rng.choice("NESW")
    if rng.random() < 0.4:
        cards = rng.choice(QUICK_MELDS)
        suit = rng.choice([s for s in "CDHS" if s != trump])
        meld = cards if len(cards[0]) == 2 else [c + suit for c in "".join(cards)]
        record["melds"] = {rng.choice("NESW"): [meld]}
    if rng.random() < 0.08:
        renege: dict[str, Any] = {"by": rng.choice(["NS", "EW"]), "reason": "table talk"}
        if rng.random() < 0.5:
            renege["seat"] = rng.choice(renege["by"])
        record["renege"] = renege
    return record


def _seat_names(rng: random.Random, ns: dict[str, Any], ew: dict[str, Any]) -> list[str | None]:
    """Who sat where, as typed: usually the team's players, sometimes a substitute or a visitor, in any
    case, or nobody typed."""
    out: list[str | None] = []
    for seat in range(4):
        team = ns if seat % 2 == 0 else ew
        roll = rng.random()
        if roll < 0.05:
            out.append(None)
            continue
        if roll < 0.12 and team["substitutes"]:
            name = team["substitutes"][0]
        elif roll < 0.15:
            name = "Visitor"
        else:
            name = team["players"][seat // 2]
        out.append(name.upper() if rng.random() < 0.1 else name)
    return out


def generated_season(store: Store, folder: Path, seed: int = 17) -> dict[str, Any]:
    """Six teams, a double round robin of 3 games a meeting, at one venue: most games played at a
    kiosk (whole hands card by card and quick entries, pass-outs, misdeals, melds and bells, reneges
    proven and called, undos, corrections after the end, a game abandoned at the table), two meetings'
    games recorded by hand, a forfeit, two rulings. Returns the sides each kiosk game was played with."""
    rng = random.Random(seed)
    org = Organiser(store)
    league = org.create_league("City league")
    venue = org.add_venue(league, "Germania", tables=3)
    season, division = org.create_season(league, "Winter", {"games_per_meeting": 3})
    teams = {}
    for i, name in enumerate(["Aces", "Kings", "Queens", "Jacks", "Tens", "Nines"]):
        subs = [f"Sub{i}"] if i % 2 else []
        teams[org.add_team(division, name, [f"{name[:3]}A", f"{name[:3]}B"], subs)] = {
            "players": [f"{name[:3]}A", f"{name[:3]}B"],
            "substitutes": subs,
        }
    org.make_schedule(division, "2026-01-06", double=True)
    with store.read() as r:
        meetings = [m for m in r.meetings(division) if m["team_b"] is not None]
    kiosks = Kiosks(store)
    kiosk = kiosks.kiosk_for_key(kiosks.enrol(kiosks.make_code(venue, 1))["key"])
    table = open_table(folder / "generated.db", seed=seed)
    table.set_pin(PIN)
    sides: dict[int, dict[str, int]] = {}
    forfeited, by_hand = meetings[3]["id"], {meetings[5]["id"], meetings[11]["id"]}
    org.forfeit(forfeited, meetings[3]["team_a"], "a player is ill")
    for m in meetings:
        if m["id"] == forfeited:
            continue
        for _ in range(3):
            if m["id"] in by_hand:
                pa, pb = (
                    500 + (rng.randint(100, 600) - 100) * 481 // 500 for _ in range(2)
                )  # 500 to 980: as games end
                org.record_game(m["id"], pa, pb, "a" if pa > pb else "b" if pb > pa else "tie")
                continue
            ns, ew = (m["team_a"], m["team_b"]) if rng.random() < 0.5 else (m["team_b"], m["team_a"])
            names = _seat_names(rng, teams[ns], teams[ew])
            table.clock = night_clock(m["round_date"])  # the table plays each meeting on its night
            g = _play_generated(table, rng, [f"T{ns}", f"T{ew}"], names)
            sides[g] = {"NS": ns, "EW": ew}
            events = [_plain(e) for e in table.store.events(g)]
            cut = rng.randint(1, len(events))
            for part in (events[:cut], events[cut:]):
                if part:
                    body = {"games": [{"game": g, "meeting": m["id"], "sides": sides[g], "events": part}]}
                    kiosks.push(kiosk, body)
    table.close()
    with store.read() as r:
        played = [g for g in r.division_games(division) if g["kiosk_id"] is not None and g["outcome"] is not None]
    org.rule_game(played[0]["id"], None, "played with a short deck")
    flip = "b" if played[1]["outcome"] == "a" else "a"
    org.rule_game(played[1]["id"], flip, "a renege proven afterwards")
    return {"org": org, "league": league, "season": season, "division": division, "kiosk": kiosk, "sides": sides}


def _plain(e: Any) -> dict[str, Any]:
    d = asdict(e)
    d.pop("game")
    return d


def _play_generated(table: Any, rng: random.Random, teams: list[str], names: list[str | None]) -> int:
    g = table.new_game(teams, names, first_dealer=rng.choice("NESW"))
    abandon_at = rng.randint(2, 6) if rng.random() < 0.04 else None
    while g.status == "open":
        if abandon_at is not None and len(g.hands) == abandon_at:
            table.abandon(g.id, "players left", PIN)
            return int(g.id)
        dealer = seat_name(g.dealer)
        whole = rng.random() < 0.6
        record = hand_to_json(lawless_hand(rng, g.dealer)) if whole else quick_record(rng, dealer)
        try:
            if rng.random() < 0.05:
                table.enter_hand(g.id, record)
                table.undo(g.id)
                continue
            g = table.add_hand(g.id, record)
        except ActionRefused:
            continue  # a quick entry nobody could hold (seven cards at a seat): the table refuses it
    if rng.random() < 0.15 and g.hands:
        n = rng.randint(1, len(g.hands))
        dealer = seat_name(g.hands[n - 1].hand.dealer)
        with contextlib.suppress(ActionRefused):  # one that cannot stand (a hand after the end) is refused
            table.correct(g.id, n, quick_record(rng, dealer), "points misread", PIN)
    return int(g.id)
