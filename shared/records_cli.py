"""The record commands: ``clabber score|sheet|replay|solve`` read a hand or game record
(docs/HAND-RECORD.md) and need the engine alone, so they are ``clabber``'s own, whatever part is
installed: the base distribution, a kiosk, a league server. The helpers here say a refusal as the
parts' commands do: lines on standard error and exit status 2, never a traceback."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from engine.errors import EntryError
from engine.text import json_safe, terminal_safe

USAGE_ERROR = 2
MOST_PROBLEMS = 50  # a refusal lists this many problems, then says how many more


def fail(lines: list[str], code: int = USAGE_ERROR) -> NoReturn:
    for line in lines[:MOST_PROBLEMS]:
        click.echo(terminal_safe(line), err=True)  # a refused name is shown, never obeyed
    if len(lines) > MOST_PROBLEMS:
        click.echo(f"... and {len(lines) - MOST_PROBLEMS} more", err=True)
    sys.exit(code)


def read_json(path: str) -> Any:
    """The JSON in a file (``-`` for standard input)."""
    from engine.record import loads

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        fail([f"{path}: cannot read: {e.strerror or e}"])
    return loads(data)


def run_on(path: str, work: Callable[[Any], str]) -> None:
    """Reads a record and prints what ``work`` makes of it; refusals become error lines."""
    try:
        out = work(read_json(path))
    except EntryError as e:
        fail([str(p) for p in e.problems])
    except RecursionError:
        fail(["record: nested too deeply to be a record"])
    click.echo(out, nl=not out.endswith("\n"))


def dump(obj: Any) -> str:
    return json_safe(json.dumps(obj, ensure_ascii=False))


@click.command()
@click.argument("file")
def score(file: str) -> None:
    """Score one hand record (clabber-hand/1); FILE or - for standard input."""
    from engine.output import score_to_json
    from engine.record import read_hand
    from engine.scoring import score_hand

    def work(obj: Any) -> str:
        rec = read_hand(obj)
        return dump(score_to_json(rec.hand, score_hand(rec.hand, rec.rules)))

    run_on(file, work)


@click.command()
@click.argument("file")
def sheet(file: str) -> None:
    """The score sheet of a game record (clabber-game/1)."""
    from engine.output import sheet_to_json
    from engine.record import read_game

    run_on(file, lambda obj: dump(sheet_to_json(read_game(obj).sheet())))


@click.command()
@click.argument("file")
def replay(file: str) -> None:
    """Tell a hand trick by trick, with every renege and the cards that were legal."""
    from engine.record import read_hand
    from shared.replay import replay_text

    def work(obj: Any) -> str:
        rec = read_hand(obj)
        return terminal_safe(replay_text(rec.hand, rec.rules), keep="\n")

    run_on(file, work)


@click.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="The values as JSON: {'NS': …, 'EW': …, 'cards': …}.")
@click.option("--odds", is_flag=True, help="The bid's odds from what its maker knew: their cards and the up card.")
@click.option("--deals", type=click.IntRange(1, 100_000), default=400, show_default=True, help="Deals for --odds.")
@click.option("--seed", type=click.IntRange(0, 2**63), default=0, show_default=True, help="The seed for --odds.")
def solve(file: str, as_json: bool, odds: bool, deals: int, seed: int) -> None:
    """With every card open: the card points each team takes with best play by both sides from the
    record's position (its hands, trump, maker and any plays so far; a hand played out, from its
    first lead), and what each card the player to move may play leads to. With --odds: how often
    the bid makes over the deals its maker could have faced (their six cards and the up card known,
    the rest dealt at random, each deal solved and scored with its melds and bell)."""
    from engine.cards import card_name, card_symbol, cards_in
    from engine.record import read_hand
    from engine.seats import seat_name
    from engine.solve import position_of
    from engine.solve import solve as solve_position

    def work(obj: Any) -> str:
        hand = read_hand(obj, complete=False).hand
        if odds:
            return _odds(hand, deals, seed, as_json)
        try:
            position = position_of(hand, 0 if len(hand.plays) == 24 else None)
        except ValueError as e:
            raise EntryError(f"{e}: the solver needs every seat's six cards (hands), the trump and the maker") from None
        if hand.finished and len(hand.plays) < 24:
            raise EntryError("the hand is over (a renege ended it): clabber replay tells it")
        found = solve_position(position)
        to_play, trick = seat_name(position.turn), position.trick_number
        best = sorted(cards_in(found.best))
        cards = {card_name(c): {"NS": ns, "EW": ew} for c, (ns, ew) in sorted(found.cards.items())}
        if as_json:
            at = {"trick": trick, "to_play": to_play, "played_in_trick": [card_name(c) for c in position.trick]}
            out = {"NS": found.points[0], "EW": found.points[1], **at, "cards": cards}
            return dump({**out, "best": [card_name(c) for c in best]})
        lines = [
            f"With every card open, from trick {trick} with {to_play} to play: best play takes"
            f" NS {found.points[0]}, EW {found.points[1]} from here (the last trick's 10 included)."
        ]
        team = position.turn % 2
        for c, (ns, ew) in sorted(found.cards.items(), key=lambda cv: -cv[1][team]):
            cost = found.cost(c)
            note = "best" if not cost else f"costs {cost}"
            lines.append(f"  {to_play} plays {card_symbol(c):4} NS {ns:3}, EW {ew:3}  {note}")
        return terminal_safe("\n".join(lines), keep="\n")

    run_on(file, work)


def _odds(hand: Any, deals: int, seed: int, as_json: bool) -> str:
    """``clabber solve --odds``: the bid's odds, in words or as JSON."""
    from engine.cards import SUIT_SYMBOLS, suit_name
    from engine.odds import odds_of_bid
    from engine.seats import seat_name

    found = odds_of_bid(hand, deals, seed)
    if found is None or hand.maker is None or hand.trump is None:
        raise EntryError("--odds needs the bid (trump and maker) and the maker's six cards (hands)")
    maker, trump = seat_name(hand.maker), hand.trump
    if as_json:
        fields = {"maker": maker, "trump": suit_name(trump), "deals": found.deals, "made": found.made}
        exact = {"exhaustive": found.exhaustive, "seed": seed}
        return dump({**fields, "set": found.set, "chance": found.chance, "margin": found.margin, **exact})
    return terminal_safe(
        f"{maker}'s play on {SUIT_SYMBOLS[trump]}: {found.words(maker)}; set in the others"
        " (each deal played with best play by both sides, every card open)"
    )


COMMANDS = (score, sheet, replay, solve)
