"""The two ways an entry can be wrong, each saying where and why.

Like python-chess's ``InvalidMoveError`` and ``IllegalMoveError``: a record that cannot be
read (bad notation, wrong type) is distinct from one that breaks the rules of the game.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an entry: where (a record path such as ``plays[5]``) and why."""

    where: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.why}" if self.where else self.why


class EntryError(ValueError):
    """An entry was refused; ``problems`` lists every reason found."""

    def __init__(self, why: str | list[Problem], where: str = "") -> None:
        self.problems = list(why) if isinstance(why, list) else [Problem(where, why)]
        super().__init__("; ".join(str(p) for p in self.problems))

    def at(self, where: str) -> EntryError:
        """The same error placed at a record path (prefixing any path it had)."""
        moved = [Problem(join(where, p.where), p.why) for p in self.problems]
        return type(self)(moved)


class InvalidRecordError(EntryError):
    """The entry cannot be read: bad notation, a wrong type, a missing or unknown field."""


class IllegalEntryError(EntryError):
    """The entry is readable but cannot have happened under the rules."""


def join(outer: str, inner: str) -> str:
    """Joins record paths: ``hands[2]`` + ``plays[5]`` -> ``hands[2].plays[5]``."""
    if not inner:
        return outer
    if not outer:
        return inner
    return outer + ("" if inner.startswith("[") else ".") + inner
