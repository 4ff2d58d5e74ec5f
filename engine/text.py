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


# Other_Default_Ignorable_Code_Point (Unicode's PropList.txt): characters drawn as nothing, some of
# them letters by category (the Hangul fillers). Together with the format characters they make up
# Default_Ignorable_Code_Point, which Python's unicodedata does not expose.
_OTHER_DEFAULT_IGNORABLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000),
    (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF),
    (0xE01F0, 0xE0FFF),
)


def _ignorable(ch: str) -> bool:
    code = ord(ch)
    return unicodedata.category(ch) == "Cf" or any(lo <= code <= hi for lo, hi in _OTHER_DEFAULT_IGNORABLE)


def looks_blank(text: str) -> bool:
    r"""``text`` shows no letter or digit: only spaces, punctuation, symbols, marks or characters
    drawn as nothing (a Hangul filler, a blank braille pattern). A name must show one.

    >>> [looks_blank(t) for t in ("Ruminers", "7s", "\u3164\u3164\u3164", "\u2800", " - ", "Ñ")]
    [False, False, True, True, True, False]
    """
    return not any(unicodedata.category(ch)[0] in "LN" and not _ignorable(ch) for ch in text)


def stored_text_problem(text: str) -> str | None:
    """Why no text the league or a kiosk keeps may be ``text`` (half of a surrogate pair, which no
    page can encode; a NUL or other control character), saying which and where; or None."""
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category in ("Cs", "Cc"):
            kind = "half of a surrogate pair" if category == "Cs" else "a NUL" if ch == "\0" else "a control character"
            return f"has {kind} (U+{ord(ch):04X}) at character {i + 1}"
    return None


def shown(text: object) -> object:
    r"""A stored text as a page, a chart or a file shows it: each character no page can carry (half of
    a surrogate pair, a NUL or other control character but a line break or tab) as U+FFFD, the mark
    for a character that cannot be shown. Anything not a text is returned as it is.

    >>> shown("A\ud800B\x00C"), shown(7)
    ('A\ufffdB\ufffdC', 7)
    """
    if not isinstance(text, str) or stored_text_problem(text.replace("\n", "").replace("\t", "")) is None:
        return text
    return "".join("\ufffd" if unicodedata.category(ch) in ("Cs", "Cc") and ch not in "\n\t" else ch for ch in text)


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
    if looks_blank(text):
        raise ValueError("shows no letter or digit: a name or reason must be seen to be there")
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
