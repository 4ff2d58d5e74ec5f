"""The engine's refusals in the players' words, and the field of the entry screen each concerns.

The engine's own text stays where a precise account is wanted (the replay, the logs, the CLI);
the screen says what to do about it.
"""

from __future__ import annotations

import re

# (pattern on the engine's line, the players' words; groups fill the words' {0}, {1}, ...)
_SAYINGS: tuple[tuple[str, str], ...] = (
    (r"^trump: missing", "Pick the trump suit"),
    (r"^maker: missing", "Tap who said play"),
    (r"^points: the result is missing", "Type one team's points"),
    (
        r"^points\.(NS|EW): (\d+) cannot be: .*no team ends with (\d+) or (\d+)",
        "No team ends a hand with {2} or {3} points: check the points",
    ),
    (r"^points\.(NS|EW): (-?\d+) is not between 0 and 162", "{0} would have {1}: points go from 0 to 162"),
    (r"^points: .*add up to 162.*", "NS and EW must add up to 162"),
    (r"^bell: a bell is the King and Queen of trump, and no trump", "Pick trump before a bell"),
    (r"^bell: .*", "The bell is the King and Queen of trump: check the bell"),
    (r"^melds\.(\w)\[\d+\]: \w+ is also in melds\.(\w)", "{1}'s and {0}'s melds share cards: check them"),
    (r"^melds\.(\w).*", "{0}'s melds cannot be: check them"),
    (r"^renege.reason: .*", "Say why it was a renege"),
)
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
}


def field_of(line: str) -> str:
    """Which part of an entry screen an engine line (``"points.NS: ..."``) belongs to."""
    where = line.split(": ", 1)[0] if ": " in line else ""
    head = where.split(".")[0].split("[")[0]
    return _FIELDS.get(head, "general")


def plain(line: str) -> tuple[str, str]:
    """(field, words for the players) for one line of a refusal."""
    for pattern, words in _SAYINGS:
        m = re.match(pattern, line)
        if m:
            return field_of(line), words.format(*m.groups())
    text = line.split(": ", 1)[1] if field_of(line) != "general" and ": " in line else line
    return field_of(line), text[:1].upper() + text[1:]
