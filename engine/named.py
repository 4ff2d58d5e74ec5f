"""Seats, teams and suits are ints (indexes, bit positions) that print as the names players use."""

from __future__ import annotations

from enum import IntEnum


class Named(IntEnum):
    """An int that prints as its name: ``N``, ``EW``, ``H``."""

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__
