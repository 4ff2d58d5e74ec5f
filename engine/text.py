"""Names and reasons are plain text: what may be in them, and how to show them on a terminal.

A team name travels to the touchscreen, the result pages, the terminal and every backup. A
control character in it can move a terminal's cursor or change its colours; a bidirectional
override makes ``Ruminers`` read as something else on every screen; invisible characters make
two names that look alike differ. None of them belongs in a name, so they are refused where a
name comes in, with where in the text the first one is.
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 40  # longest team or player name: it has to fit the sheet's header
MAX_REASON = 200  # longest reason for a renege, a correction, an abandoned game

# Bidirectional controls: the explicit embeddings, overrides and isolates, and the marks.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Format characters a name may carry: the joiners inside emoji and some scripts' words.
_ALLOWED_FORMAT = frozenset("\u200c\u200d")


def _is_tag(ch: str) -> bool:
    return 0xE0020 <= ord(ch) <= 0xE007F  # inside a subdivision flag emoji


def unsafe_char(ch: str) -> str | None:
    """What kind of character ``ch`` is if it does not belong in a name, else None."""
    if ch in BIDI_CONTROLS:
        return "a bidirectional control character"
    category = unicodedata.category(ch)
    if category == "Cc":
        return "a control character"
    if category in ("Zl", "Zp"):
        return "a line break"
    if category == "Cs":
        return "half of a surrogate pair"
    if category == "Cf" and ch not in _ALLOWED_FORMAT and not _is_tag(ch):
        return "an invisible formatting character"
    return None


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a name or a reason (saying which character, where), or None."""
    for i, ch in enumerate(text):
        kind = unsafe_char(ch)
        if kind is not None:
            return f"has {kind} (U+{ord(ch):04X}) at character {i + 1}: names and reasons are plain text"
    return None


def plain_text(value: object, most: int) -> str:
    """``value`` as a name or reason, stripped; ValueError saying why it cannot be one.

    >>> plain_text("  Ruminers ", MAX_NAME)
    'Ruminers'
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty text")
    text = value.strip()
    if len(text) > most:
        raise ValueError(f"is longer than {most} characters")
    why = text_problem(text)
    if why is not None:
        raise ValueError(why)
    return text


def terminal_safe(text: str, keep: str = "") -> str:
    r"""``text`` with every character that could steer a terminal written out as an escape
    (``\x1b``, ``\u202e``), so printing it shows what is there rather than obeying it; the
    characters in ``keep`` (a newline, say) are left as they are."""
    if all(ch in keep or unsafe_char(ch) is None for ch in text):
        return text
    return "".join(ch if ch in keep or unsafe_char(ch) is None else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_LAYOUT = "\n\r\t"


def json_safe(text: str) -> str:
    r"""JSON text with the same characters escaped as JSON escapes (``\u202e``): the same
    value for a program reading it, nothing a terminal obeys for a person reading it. A raw
    newline, tab or return in JSON text is layout between values (``json.dumps`` escapes them
    inside strings), so those stay."""
    if all(ch in _LAYOUT or unsafe_char(ch) is None for ch in text):
        return text
    out = []
    for ch in text:
        if ch in _LAYOUT or unsafe_char(ch) is None:
            out.append(ch)
        elif ord(ch) > 0xFFFF:  # JSON escapes only 16 bits: a surrogate pair
            code = ord(ch) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)
