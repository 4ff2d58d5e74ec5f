"""A hand told trick by trick for people settling a dispute (``clabber replay``), with hindsight
for a hand entered card by card once it is over: what best play with every card open gave, each
team's first card that cost it points, and the odds of its bid from what the maker could know."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.cards import SUIT_SYMBOLS, SUIT_WORDS, Suit, card_symbol, names
from engine.hand import Hand
from engine.hindsight import CardCost, Hindsight, hindsight
from engine.odds import DEALS, Odds, odds_of_bid
from engine.rules import Rules
from engine.scoring import HandScore, score_hand
from engine.seats import SEATS, TEAMS, other, seat_name, team_name, team_of

OPEN = "With every card open"  # how every hindsight line starts: it is not what the players saw

# What a line is, for the surfaces that mark it: a renege, a costly card and hindsight's verdict
# (what best play with every card open gave) are told apart from what happened at the table.
PLAIN, TRICK, WON, RENEGE, COSTLY, VERDICT = "", "trick", "won", "renege", "costly", "verdict"
ODDS = "odds"  # the bid's odds: what the maker could know, told apart from both


@dataclass(frozen=True)
class Line:
    """One line of a replay: its words, what kind of line it is, and how deep it sits (a card
    under its trick, a score under "Entered quickly:")."""

    text: str
    kind: str = PLAIN
    depth: int = 0

    def __str__(self) -> str:
        """The line for a terminal: indented, a renege or a costly card flagged ``**`` in capitals."""
        text = self.text
        if self.kind in (RENEGE, COSTLY):
            first, _, rest = text.partition(" ")
            text = f"** {first.upper()} {rest}"
        return "  " * self.depth + text


def points(n: int) -> str:
    """``1 point``, ``7 points``."""
    return f"{n} point" if n == 1 else f"{n} points"


def _who(seat: int | None) -> str:
    if seat is None:
        return "someone"
    return f"{seat_name(seat)} ({team_name(team_of(seat))})"


def _cards(mask: int, known: bool, trump: Suit | None) -> str:
    text = names(mask, trump) or "—"
    return text if known else f"{text} (+ cards not yet seen)"


def _bidding(hand: Hand) -> list[Line]:
    up = f", up card {card_symbol(hand.up)}" if hand.up is not None else ""
    lines = [Line(f"Dealer {seat_name(hand.dealer)}{up}")]
    if hand.bidding is not None:
        calls = [f"{seat_name((hand.dealer + 1 + i) % 4)} {c}" for i, c in enumerate(hand.bidding.calls)]
        lines.append(Line("Bidding: " + ", ".join(calls)))
    if hand.passed_out:
        lines.append(Line("All four passed twice: the hand was passed out."))
    elif hand.trump is not None and hand.maker is not None:
        rnd = f" in round {hand.round}" if hand.round else ""
        trump = f"{SUIT_SYMBOLS[hand.trump]} {SUIT_WORDS[hand.trump]}"
        lines.append(Line(f"Trump {trump}, named by {_who(hand.maker)}{rnd}."))
    if hand.misdeal is not None:
        lines.append(Line(f"Misdeal: {hand.misdeal}. The same dealer deals again."))
    return lines


def _melds(hand: Hand) -> list[Line]:
    lines = []
    for s in SEATS:
        for m in hand.melds[s]:
            lines.append(Line(f"{seat_name(s)} announced {m.describe()} ({m.points})", depth=1))
    bell = hand.bell_seat()
    if bell is not None and hand.trump is not None:
        lines.append(Line(f"{seat_name(bell)} holds the bell (K and Q of {SUIT_WORDS[hand.trump]}, 20)", depth=1))
    return [Line("Melds:"), *lines] if lines else []


def trick_lines(hand: Hand, number: int, rules: Rules | None = None) -> list[Line]:
    """Trick ``number`` (1 to 6): who led, each card with what its player had left, any renege
    with the cards that were legal, who won and the points so far; with ``rules``, each team's
    first costly card of a finished hand (hindsight)."""
    tricks = hand.tricks()
    trick = tricks[number - 1]
    reneges = {r.play: r for r in hand.reneges() if r.play is not None}
    so_far = [0, 0]
    for t in tricks[: number - 1]:
        if t.winner is not None:
            so_far[team_of(t.winner)] += t.points
    lines = [Line(f"Trick {number}: {seat_name(trick.leader)} leads", TRICK)]
    first = (number - 1) * 4
    seen = looked_back(hand, rules) if rules is not None else None
    firsts = [seen.first_costly(t) for t in TEAMS] if seen is not None else []
    costly = {c.play: c for c in firsts if c is not None}
    for k, c in enumerate(trick.cards):
        seat, i = trick.seat_of(k), first + k
        left = hand.holding(seat, before=i + 1)
        left_said = _cards(left, hand.knows_hand(seat), hand.trump)
        lines.append(Line(f"{seat_name(seat)} plays {card_symbol(c):4} left: {left_said}", depth=1))
        r = reneges.get(i)
        if r is not None:
            legal = names(r.legal or 0, hand.trump)
            said = f"Renege by {_who(seat)}: played {card_symbol(c)} — {r.reason}. Legal: {legal}"
            lines.append(Line(said, RENEGE, 1))
        if i in costly:
            lines.append(Line(f"Costly, {OPEN.lower()}: {_instead(costly[i])}", COSTLY, 1))
    if trick.winner is not None:
        so_far[team_of(trick.winner)] += trick.points
        last = " (last trick, 10 included)" if number == 6 else ""
        won = f"won by {_who(trick.winner)}: {points(trick.points)}{last}. So far NS {so_far[0]}, EW {so_far[1]}"
        lines.append(Line(won, WON, 1))
    return lines


def _tricks(hand: Hand, rules: Rules) -> list[Line]:
    return [line for n in range(1, len(hand.tricks()) + 1) for line in trick_lines(hand, n, rules)]


@lru_cache(maxsize=16)  # the replay screen asks again at every trick stepped to
def looked_back(hand: Hand, rules: Rules) -> Hindsight | None:
    """The hindsight of a finished hand entered card by card; None for any other (a quick entry,
    a hand still being played: hindsight never hints while cards are played)."""
    return hindsight(hand, rules) if hand.finished else None


def _instead(c: CardCost) -> str:
    """``trick 3, N's K♠ instead of 10♠ keeps 14 points``"""
    return (
        f"trick {c.trick}, {seat_name(c.seat)}'s {card_symbol(c.instead)} instead of {card_symbol(c.card)}"
        f" keeps {points(c.cost)}"
    )


def hindsight_lines(hand: Hand, rules: Rules) -> list[Line]:
    """What best play by both sides with every card open would have given, in words: whether the
    result was in the cards or which card changed it; for a renege, what play without it gave."""
    seen = looked_back(hand, rules)
    if seen is None:
        return []
    best, makers = seen.best_play, hand.makers
    assert makers is not None  # hindsight is given only once trump is named
    ours, theirs = team_name(makers), team_name(other(makers))
    played = score_hand(hand, rules)
    if seen.without_renege is not None:
        w = seen.without_renege
        verdict = f"{ours} set" if w.set else f"{ours} made it"
        said = (
            f"{OPEN}, without the renege: best play from there gives NS {w.tricks[0]}, EW {w.tricks[1]} in"
            f" tricks, {verdict}: NS {w.score[0]}, EW {w.score[1]} on the sheet, where the penalty gives"
            f" NS {played.score[0]}, EW {played.score[1]}."
        )
    elif best.set and played.set:
        said = f"{OPEN}: {ours} could take at most {seen.makers_most} — the set was in the cards."
    elif played.set:  # best play makes: the makers gave it away
        card = seen.first_costly(makers)
        said = f"{OPEN}: {ours} could have made it" + (f": {_instead(card)}." if card else ".")
    elif best.set:  # the makers made a hand best play sets: the defence gave it away
        card = seen.first_costly(other(makers))
        said = f"{OPEN}: {theirs} could have set {ours}" + (f": {_instead(card)}." if card else ".")
    else:
        said = f"{OPEN}: {ours} could take {seen.makers_most} — the make was in the cards."
    return [Line(said, VERDICT)]


@lru_cache(maxsize=16)
def odds_after(hand: Hand, deals: int = DEALS) -> Odds | None:
    """The odds of a finished hand's bid (entered card by card, so the maker's six cards are known);
    None for any other. Seconds on a Pi: the kiosk works them out off its screen's thread."""
    return odds_of_bid(hand, deals) if hand.finished and len(hand.plays) > 0 else None


def odds_lines(hand: Hand, odds: Odds | None) -> list[Line]:
    """The bid's odds in words: "N's play on ♥: made in 71 % of the deals N could have faced (400
    deals, ± 4 %)"; nothing without odds."""
    if odds is None or hand.maker is None or hand.trump is None:
        return []
    maker = seat_name(hand.maker)
    return [Line(f"{maker}'s play on {SUIT_SYMBOLS[hand.trump]}: {odds.words(maker)}.", ODDS)]


def _result(hand: Hand, s: HandScore) -> list[str]:
    if s.passed_out or s.misdeal:
        return [f"Nothing scored. Next dealer: {seat_name(s.next_dealer)}."]
    lines = []
    for r in hand.reneges():
        if r.called:
            by = _who(r.seat) if r.seat is not None else team_name(r.team)
            lines.append(f"Renege called against {by}: {r.reason}.")
        elif r.play is None:
            lines.append(f"Renege by {_who(r.seat)} in the bidding: {r.reason}.")
    if s.void:
        lines.append("Both teams reneged: nothing scored; the same dealer deals again.")
    elif s.renege is not None:
        lines.append(f"{team_name(s.renege.team)} reneged and score 0; the other team scores 162 plus its melds.")
    else:
        lines.append(f"Trick points: NS {s.tricks[0]}, EW {s.tricks[1]}")
        if s.meld_winner is not None:
            lines.append(f"Melds scored by {team_name(s.meld_winner)}: {s.melds[s.meld_winner]}")
        elif any(hand.melds):  # melds were announced, yet nobody scored them: a push
            lines.append("Melds: equal best sequences, neither team scores them")
        if any(s.bell):
            lines.append(f"Bell: NS {s.bell[0]}, EW {s.bell[1]}")
        lines.append(f"Totals: NS {s.totals[0]}, EW {s.totals[1]}")
        makers = "" if s.makers is None else team_name(s.makers)
        if s.set:
            lines.append(f"{makers} named trump and did not take more: set (XX).")
        else:
            lines.append(f"{makers} named trump and made it.")
    lines.append(f"On the sheet: NS {s.score[0]}, EW {s.score[1]}. Next dealer: {seat_name(s.next_dealer)}.")
    return lines


def opening_lines(hand: Hand) -> list[Line]:
    """The deal, the bidding and the melds."""
    return _bidding(hand) + _melds(hand)


def result_lines(hand: Hand, rules: Rules) -> list[Line]:
    """How the hand scored, in words (a renege proven in the bidding marked as one)."""
    return [
        Line(line, RENEGE if line.startswith("Renege ") else PLAIN)
        for line in _result(hand, score_hand(hand, rules))
        if line
    ]


def replay_lines(hand: Hand, rules: Rules) -> list[Line]:
    """The whole hand, line by line: the deal, every trick, the score, hindsight."""
    return opening_lines(hand) + _tricks(hand, rules) + result_lines(hand, rules) + hindsight_lines(hand, rules)


def replay_text(hand: Hand, rules: Rules) -> str:
    """The whole hand as text for a terminal (``clabber replay``), with the bid's odds at the end."""
    lines = replay_lines(hand, rules) + odds_lines(hand, odds_after(hand))
    return "\n".join(str(line) for line in lines) + "\n"
