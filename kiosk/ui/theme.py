"""Colours and sizes for a bar table: high contrast, big numbers, suits by shape and colour."""

from __future__ import annotations

from engine.cards import SUIT_SYMBOLS, Card, card_symbol, suit_of

BG = (0.07, 0.08, 0.10, 1)
PANEL = (0.14, 0.16, 0.19, 1)
BUTTON = (0.22, 0.25, 0.30, 1)
CHOSEN = (0.96, 0.73, 0.15, 1)  # amber: what is selected, whose deal it is
TEXT = (1, 1, 1, 1)
DARK_TEXT = (0.05, 0.05, 0.05, 1)
MUTED = (0.62, 0.66, 0.72, 1)
ERROR = (1.0, 0.45, 0.40, 1)
GOOD = (0.45, 0.85, 0.50, 1)
RED_SUIT = (1.0, 0.36, 0.36, 1)  # hearts and diamonds
BLACK_SUIT = (0.92, 0.94, 1.0, 1)  # clubs and spades, light on the dark background
TOUCH = 56  # px: at least 10 mm on the 7" panel


def suit_colour(suit: int) -> tuple[float, float, float, float]:
    """Red for hearts and diamonds, light for clubs and spades (the shape is always shown too)."""
    return RED_SUIT if suit in (1, 2) else BLACK_SUIT


def suit_markup(suit: int) -> str:
    """A suit symbol in its colour, as Kivy markup."""
    return f"[color={hex_colour(suit_colour(suit))}]{SUIT_SYMBOLS[suit]}[/color]"


def card_markup(c: Card) -> str:
    """A card for people, its suit in colour."""
    text = card_symbol(c)
    return text[:-1] + suit_markup(suit_of(c))


def hex_colour(colour: tuple[float, ...]) -> str:
    return "".join(f"{round(v * 255):02x}" for v in colour[:3])
