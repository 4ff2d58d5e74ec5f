"""A hand told trick by trick for people settling a dispute (``clabber replay``)."""

from __future__ import annotations

from engine.cards import SUIT_SYMBOLS, SUIT_WORDS, Suit, card_symbol, names
from engine.hand import Hand
from engine.rules import Rules
from engine.scoring import HandScore, score_hand
from engine.seats import SEATS, seat_name, team_name, team_of


def _who(seat: int | None) -> str:
    if seat is None:
        return "someone"
    return f"{seat_name(seat)} ({team_name(team_of(seat))})"


def _cards(mask: int, known: bool, trump: Suit | None) -> str:
    text = names(mask, trump) or "—"
    return text if known else f"{text} (+ cards not yet seen)"


def _bidding(hand: Hand) -> list[str]:
    lines = [f"Dealer {seat_name(hand.dealer)}" + (f", up card {card_symbol(hand.up)}" if hand.up is not None else "")]
    if hand.bidding is not None:
        calls = [f"{seat_name((hand.dealer + 1 + i) % 4)} {c}" for i, c in enumerate(hand.bidding.calls)]
        lines.append("Bidding: " + ", ".join(calls))
    if hand.passed_out:
        lines.append("All four passed twice: the hand was passed out.")
    elif hand.trump is not None and hand.maker is not None:
        rnd = f" in round {hand.round}" if hand.round else ""
        lines.append(f"Trump {SUIT_SYMBOLS[hand.trump]} {SUIT_WORDS[hand.trump]}, named by {_who(hand.maker)}{rnd}.")
    if hand.misdeal is not None:
        lines.append(f"Misdeal: {hand.misdeal}. The same dealer deals again.")
    return lines


def _melds(hand: Hand) -> list[str]:
    lines = []
    for s in SEATS:
        for m in hand.melds[s]:
            lines.append(f"  {seat_name(s)} announced {m.describe()} ({m.points})")
    bell = hand.bell_seat()
    if bell is not None and hand.trump is not None:
        lines.append(f"  {seat_name(bell)} holds the bell (K and Q of {SUIT_WORDS[hand.trump]}, 20)")
    return ["Melds:", *lines] if lines else []


def trick_lines(hand: Hand, number: int) -> list[str]:
    """Trick ``number`` (1 to 6): who led, each card with what its player had left, any renege
    with the cards that were legal, who won and the points so far."""
    tricks = hand.tricks()
    trick = tricks[number - 1]
    reneges = {r.play: r for r in hand.reneges() if r.play is not None}
    so_far = [0, 0]
    for t in tricks[: number - 1]:
        if t.winner is not None:
            so_far[team_of(t.winner)] += t.points
    lines = [f"Trick {number}: {seat_name(trick.leader)} leads"]
    first = (number - 1) * 4
    for k, c in enumerate(trick.cards):
        seat, i = trick.seat_of(k), first + k
        left = hand.holding(seat, before=i + 1)
        lines.append(
            f"  {seat_name(seat)} plays {card_symbol(c):4} left: {_cards(left, hand.knows_hand(seat), hand.trump)}"
        )
        r = reneges.get(i)
        if r is not None:
            legal = names(r.legal or 0, hand.trump)
            lines.append(f"  ** RENEGE by {_who(seat)}: played {card_symbol(c)} — {r.reason}. Legal: {legal}")
    if trick.winner is not None:
        so_far[team_of(trick.winner)] += trick.points
        last = " (last trick, 10 included)" if number == 6 else ""
        lines.append(
            f"  won by {_who(trick.winner)}: {trick.points} points{last}. So far NS {so_far[0]}, EW {so_far[1]}"
        )
    return lines


def _tricks(hand: Hand) -> list[str]:
    return [line for n in range(1, len(hand.tricks()) + 1) for line in trick_lines(hand, n)]


def _result(hand: Hand, s: HandScore) -> list[str]:
    if s.passed_out or s.misdeal:
        return [f"Nothing scored. Next dealer: {seat_name(s.next_dealer)}."]
    lines = []
    for r in hand.reneges():
        if r.called:
            by = _who(r.seat) if r.seat is not None else team_name(r.team)
            lines.append(f"Renege called against {by}: {r.reason}.")
        elif r.play is None:
            lines.append(f"RENEGE by {_who(r.seat)} in the bidding: {r.reason}.")
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


def opening_lines(hand: Hand) -> list[str]:
    """The deal, the bidding and the melds."""
    return _bidding(hand) + _melds(hand)


def result_lines(hand: Hand, rules: Rules) -> list[str]:
    """How the hand scored, in words."""
    return [line for line in _result(hand, score_hand(hand, rules)) if line]


def replay_text(hand: Hand, rules: Rules) -> str:
    """The whole hand as lines of text."""
    parts = opening_lines(hand) + _tricks(hand) + result_lines(hand, rules)
    return "\n".join(p for p in parts if p) + "\n"
