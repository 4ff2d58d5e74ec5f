"""The engine's refusals in the players' words, and the field of the entry screen each concerns.

The engine's own text stays where a precise account is wanted (the replay, the logs, the CLI); the
screen says what to do about it, in one message short enough for its strip at both panel sizes
(``tests/ui/test_words.py`` measures every saying here). A line no saying knows gets its field's
general words, never the engine's text.
"""

from __future__ import annotations

import re
from typing import Any

from engine.cards import card_symbol, parse_card

# (pattern on the engine's line, the players' words; groups fill the words' {0}, {1}, ...)
SAYINGS: tuple[tuple[str, str], ...] = (
    (r"^trump: missing", "Pick the trump suit"),
    (r"^maker: missing", "Tap who said play (or Passed out)"),
    (r"^points: the result is missing", "Type one team's points"),
    (
        r"^points\.(NS|EW): (\d+) cannot be: .*no team ends with (\d+) or (\d+)",
        "No hand ends {3} to {2}: check the points",
    ),
    (r"^points\.(NS|EW): (-?\d+) is not between 0 and 162", "{0} cannot have {1}: points go 0 to 162"),
    (r"^points: .*add up to 162", "NS and EW must add up to 162"),
    (r"^points: the plays give", "The cards played give other points"),
    (r"^bell: a bell is the King and Queen of trump, and no trump", "Pick trump before a bell"),
    (r"^bell: the hand was passed out", "A passed-out hand has no bell"),
    (r"^bell: ", "The bell is trump's K and Q: check it"),
    (r"^melds\.(\w)\[\d+\]: \w would hold (\d+) cards", "{0}'s melds need {1} cards: a hand is 6"),
    (r"^melds\.(\w)\[\d+\]: .* is not a meld", "{0}'s melds cannot be: check them"),
    (r"^melds\.(\w).*passed out", "A passed-out hand has no melds"),
    (r"^trump: \w+ was the up card's suit, turned down in round 1", "Round 2 cannot name the up card's suit"),
    (r"^trump: in round 1 trump is the up card's suit \((\w+)\)", "In round 1 trump is the up card's suit"),
    (r"^up: round 1's trump is the up card's suit", "Give the up card, or trump"),
    (r"^renege\.reason: ", "Say why it was a renege"),
    (r"^renege: the hand was passed out", "A passed-out hand has no renege"),
    # The controller's refusals a screen can meet.
    (r"^nothing to undo", "Nothing to undo"),
    (r"^(\w+) entered this hand: the other team confirms it", "{0} entered this hand: the other team confirms"),
    (r"^a hand is waiting to be confirmed", "A hand waits to be confirmed: confirm or undo it"),
    (r"^the game is over", "The game is over: start a new game"),
    (r"^no hand is being entered", "No hand is being entered"),
    (r"^(\w) already deals", "{0} already deals"),
)
# What a line no saying knows becomes: the field it is about, in general words.
GENERAL = {
    "melds": "These melds cannot be: check them",
    "points": "Check the points",
    "trump": "Check trump and who said play",
    "maker": "Check who said play",
    "bidding": "Check the round and the up card",
    "renege": "Check the renege",
    "plays": "Check the cards played",
    "general": "This cannot be done now",
}
_FIELDS = {
    "melds": "melds",
    "bell": "melds",
    "points": "points",
    "trump": "trump",
    "maker": "maker",
    "round": "bidding",
    "bids": "bidding",
    "up": "bidding",
    "passed_out": "bidding",
    "renege": "renege",
    "plays": "plays",
}
# "melds.S[0]: QH is also in bell" and the like: a card claimed twice.
_TWICE = re.compile(r"^(?:melds\.(\w)\[\d+\]|bell): (\w\w) is also in (melds\.(\w)\[\d+\]|bell)")
# Controller and store refusals are already in words (no "field:" before them).
_ENGINE_LINE = re.compile(r"^[a-z_]+(?:\.[A-Za-z_]+|\[\d+\])*: ")


def field_of(line: str) -> str:
    """Which part of an entry screen an engine line (``"points.NS: ..."``) belongs to."""
    if not _ENGINE_LINE.match(line):
        return "general"
    head = line.split(": ", 1)[0].split(".")[0].split("[")[0]
    return _FIELDS.get(head, "general")


def plain(line: str) -> tuple[str, str]:
    """(field, words for the players) for one line of a refusal."""
    for pattern, words in SAYINGS:
        m = re.match(pattern, line)
        if m:
            return field_of(line), words.format(*m.groups())
    field = field_of(line)
    if field == "general" and not _ENGINE_LINE.match(line):
        return field, line[:1].upper() + line[1:]  # the controller's own words
    return field, GENERAL[field]


def say(lines: list[str], record: dict[str, Any] | None = None) -> tuple[set[str], str]:
    """A whole refusal as one message for the strip, and the fields to outline. Cards claimed
    twice are named together ("K♥ Q♥ are in N's bell: check S's melds")."""
    fields = {field_of(line) for line in lines}
    if any("up card's suit" in line for line in lines):
        fields.add("bidding")  # trump against the up card: either may be what was tapped wrong
    twice: dict[tuple[str, str], list[str]] = {}
    for line in lines:
        m = _TWICE.match(line)
        if m:
            seat, card, _source, other = m.groups()
            owner = other if other else f"bell:{(record or {}).get('bell') or ''}"
            twice.setdefault((seat or "", owner), []).append(card)
    if twice:
        (seat, owner), cards = next(iter(twice.items()))
        return fields, _claimed_twice(seat, owner, cards)
    said = [plain(line)[1] for line in lines]
    return fields, said[0] if said else ""


def _claimed_twice(seat: str, owner: str, cards: list[str]) -> str:
    shown = " ".join(card_symbol(c) for c in sorted((parse_card(c) for c in set(cards)), key=_natural))
    if owner.startswith("bell:"):
        holder = owner[5:]
        verb = "is" if len(cards) == 1 else "are"
        return f"{shown} {verb} in {holder + chr(39) + 's' if holder else 'the'} bell: check {seat}'s melds"
    if owner == seat:
        return f"{seat}'s melds use {shown} twice: check them"
    first, second = sorted((seat, owner), key="NESW".index)
    return f"{first}'s and {second}'s melds share {shown}"


def _natural(c: int) -> tuple[int, int]:
    """A K Q J 10 9, suit by suit: the order players read a sequence in."""
    return (-(c // 6), -(c % 6))


def card_words(cards: list[str]) -> str:
    """Cards as players list them: in their natural order (A K Q J 10 9), suit symbols shown."""
    return " ".join(card_symbol(c) for c in sorted((parse_card(c) for c in cards), key=_natural))


# ---- what the screens say in their strips themselves ----------------------------------------------

TAP_MAKER = "Tap who said play (or Passed out)"
PICK_TRUMP = "Pick the trump suit"
TYPE_POINTS = "Type one team's points"
MELDS_BEFORE_PLAY = "Melds come before trick 1: undo to change them"
MAKER_AND_TRUMP_FIRST = "First tap who said play and the trump"
NOT_ALL_PLAYED = "Done once all 24 cards are in, or a renege"
WHO_AND_TRUMP = "Who said play, and trump?"
ALL_PLAYED = "All 24 cards played."
PICK_BOTH_TEAMS = "Tap the team at NS, then the team at EW."


def too_many(points: str) -> str:
    return f"At most 162 points: {points} is too many"


def to_play(seat: str, team: str) -> str:
    return f"{seat} ({team}) to play"


def play_ends(team: str) -> str:
    return f"Renege by {team}: play ends."


def name_the_team(team: str) -> str:
    return f"Give team {team} a name."


def deals_first(seat: str) -> str:
    return f"{seat} deals first. Type the names where you sit."


_IN_MELD = re.compile(r"(?:is also in|it is in) melds\.(\w)")
_IN_BELL = re.compile(r"(?:is also in|it is in) bell")


def played_already(name: str, seat: str, trick: int) -> str:
    """A tap on a card that is gone: when it went, and who played it."""
    return f"{card_symbol(parse_card(name))} is gone: {seat} played it in trick {trick}"


def card_refusal(name: str, problems: list[str], seat: str = "", left: int | None = None) -> str:
    """Why ``seat`` cannot play card ``name`` in card by card, in the table's words (never the
    engine's): the card is in another player's meld, or ``seat``'s last cards are all known
    (``left``, from its melds) and this is not one of them."""
    from engine.cards import card_name, cards_in

    shown = card_symbol(parse_card(name))
    for line in problems:
        if "already played" in line:
            return f"{shown} was played already: tap the right card"
        if m := _IN_MELD.search(line):
            owner = m.group(1)
            if owner == seat:
                return f"{shown} is in {seat}'s melds, not {seat}'s to play now"
            return f"{shown} is in {owner}'s melds: {seat or 'this player'} cannot hold it"
        if _IN_BELL.search(line):
            return f"{shown} is in the bell: {seat or 'this player'} cannot hold it"
        if "would hold" in line and left is not None:  # its melds and plays show all six
            return f"{seat} has only {card_words([card_name(c) for c in cards_in(left)])} left: not {shown}"
        if "all 24 cards" in line:
            return "All 24 cards are in: tap Done"
    return f"{shown} cannot be played now: check the cards"  # no refusal the engine gives today
