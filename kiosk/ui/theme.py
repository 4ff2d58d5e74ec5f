"""Colours and sizes for a bar table: sizes in millimetres on the panel, contrast at least 4.5:1.

Sizes are worked out from the panel's pixels per millimetre (``set_panel``, before the screens
are built): the same text is the same height on the 7" display and on Touch Display 2.
"""

from __future__ import annotations

from engine.cards import SUIT_SYMBOLS, Card, card_symbol, suit_of

# Every text colour below is at least 4.5:1 against every background it is drawn on (WCAG AA);
# tests/ui/test_readability.py measures it on the drawn screens.
BG = (0.07, 0.08, 0.10, 1)
PANEL = (0.12, 0.14, 0.17, 1)
BUTTON = (0.17, 0.19, 0.23, 1)
EDGE = (0.55, 0.60, 0.66, 1)  # a button's outline: its edge stands out from the background
CHOSEN = (0.96, 0.73, 0.15, 1)  # amber: what is selected, whose deal it is
TEXT = (1, 1, 1, 1)
DARK_TEXT = (0.05, 0.05, 0.05, 1)
MUTED = (0.70, 0.74, 0.80, 1)
ERROR = (1.0, 0.52, 0.47, 1)
GOOD = (0.45, 0.85, 0.50, 1)
# Suits: red and black differ in lightness as well as in hue (2:1 or more), so they stay apart
# for colour-blind players; the shapes are always shown too.
RED_SUIT = (1.0, 0.47, 0.47, 1)  # hearts and diamonds on a dark background
BLACK_SUIT = (0.92, 0.94, 1.0, 1)  # clubs and spades, light on the dark background
RED_ON_CHOSEN = (0.60, 0.0, 0.0, 1)  # on the amber of a selected button
BLACK_ON_CHOSEN = (0.0, 0.0, 0.0, 1)
# A card still in a hand is drawn as a card's face: light, its suit dark red or black on it. Once
# played it is an empty slot on the background with its label dimmed: 15:1 apart from a face, so
# from trick 3 on a table still sees at a glance which cards are gone.
CARD_FACE = (0.93, 0.92, 0.88, 1)
RED_ON_FACE = (0.62, 0.0, 0.0, 1)
BLACK_ON_FACE = (0.05, 0.05, 0.05, 1)
PLAYED = (0.50, 0.53, 0.58, 1)  # a played card's label: readable (5:1), no longer standing out

CAP_PER_EM = 0.729  # DejaVu Sans: capitals are 1493 of the font's 2048 units
PANELS = {(800, 480): 5.2, (720, 1280): 8.2}  # px/mm: the 7" display, Touch Display 2
MIN_CAP_MM = 3.5  # the smallest capital letter anywhere
TOTAL_CAP_MM = 10.0  # the team totals
MIN_TARGET_MM = 9.0  # the smallest thing a finger must hit

px_per_mm = 5.2


def panel_px_per_mm(width: int, height: int) -> float:
    """Pixels per mm of a known panel (either way round), else the 7" display's."""
    return PANELS.get((width, height)) or PANELS.get((height, width)) or 5.2


def set_panel(ppmm: float) -> None:
    """The panel's pixels per millimetre; screens built afterwards are sized for it."""
    global px_per_mm
    px_per_mm = float(ppmm)


def mm(length: float) -> float:
    """``length`` millimetres in pixels on this panel."""
    return round(length * px_per_mm)


def cap(height: float) -> float:
    """The font size (px) whose capital letters are ``height`` millimetres tall on this panel."""
    return round(height * px_per_mm / CAP_PER_EM + 0.49)


# The sizes the screens use, as functions: they follow the panel set at start-up.
def small() -> float:
    """Notes, labels: the smallest text anywhere."""
    return cap(3.6)


def body() -> float:
    """Buttons and most text."""
    return cap(4.2)


def large() -> float:
    return cap(5.5)


def total() -> float:
    """The team totals in the header."""
    return cap(10.2)


def target() -> float:
    """A touch target's least width and height."""
    return mm(9.2)


def line(font: float, lines: int = 1) -> float:
    """The height a label of ``lines`` lines of ``font`` px needs."""
    return round(font * 1.2 * lines + 4)


def suit_colour(suit: int, chosen: bool = False, on: str = "") -> tuple[float, float, float, float]:
    """Red for hearts and diamonds, light (or black on a selected button) for clubs and spades;
    ``on="face"`` for a card's face, ``on="played"`` for a played card's slot (one dimmed colour)."""
    red = suit in (1, 2)
    if on == "played":
        return PLAYED
    if on == "face":
        return RED_ON_FACE if red else BLACK_ON_FACE
    if chosen:
        return RED_ON_CHOSEN if red else BLACK_ON_CHOSEN
    return RED_SUIT if red else BLACK_SUIT


def suit_markup(suit: int, chosen: bool = False) -> str:
    """A suit symbol in its colour, as Kivy markup."""
    return f"[color={hex_colour(suit_colour(suit, chosen))}]{SUIT_SYMBOLS[suit]}[/color]"


def card_markup(c: Card, chosen: bool = False, on: str = "") -> str:
    """A card for people, in its suit's colour: one piece of markup, so a line never breaks
    between its rank and its suit (``on``: as ``suit_colour``)."""
    return f"[color={hex_colour(suit_colour(suit_of(c), chosen, on))}]{card_symbol(c)}[/color]"


def hex_colour(colour: tuple[float, ...]) -> str:
    return "".join(f"{round(v * 255):02x}" for v in colour[:3])


def luminance(colour: tuple[float, ...]) -> float:
    """WCAG relative luminance of an sRGB colour (0..1 channels)."""

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
