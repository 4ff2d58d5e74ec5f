"""The rule set of a game: the variants of RULES.md and their presets.

A game's rules are fixed when it starts; this value is what gets stored with it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.errors import InvalidRecordError, Problem, join


@dataclass(frozen=True)
class Rules:
    """The variants in force for a game."""

    pass_out_deal: str = "same"  # after a pass-out: "same" dealer again, or "next"
    target: int = 500  # points that end the game
    both_reach_target: str = "higher"  # "higher" total wins, or "makers_first"
    tie_at_target: str = "tie"  # equal totals at the target: "tie", or "play_on"

    def to_json(self) -> str | dict[str, Any]:
        """The preset name when these are exactly a preset's rules, else every variant."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        return asdict(self)


CHOICES: dict[str, tuple[str, ...]] = {
    "pass_out_deal": ("same", "next"),
    "both_reach_target": ("higher", "makers_first"),
    "tie_at_target": ("tie", "play_on"),
}
MAX_TARGET = 10_000

PRESETS: dict[str, Rules] = {
    "evansville": Rules(),
    "pagat": Rules(pass_out_deal="next"),
}


def parse_rules(value: object, where: str = "rules") -> Rules:
    """Reads a preset name or an object of variants (missing ones take the defaults)."""
    if value is None:
        return PRESETS["evansville"]
    if isinstance(value, str):
        preset = PRESETS.get(value.strip().lower())
        if preset is None:
            raise InvalidRecordError(f"unknown preset {value!r} (known: {', '.join(PRESETS)})", where)
        return preset
    if not isinstance(value, dict):
        raise InvalidRecordError("must be a preset name or an object of variants", where)
    problems: list[Problem] = []
    known = {f.name for f in fields(Rules)}
    values: dict[str, Any] = {}
    base = PRESETS["evansville"]
    for key, v in value.items():
        here = join(where, str(key))
        if key == "preset":
            try:
                base = parse_rules(v, here)
            except InvalidRecordError as e:
                problems.extend(e.problems)
        elif key not in known:
            problems.append(Problem(here, f"unknown variant (known: {', '.join(sorted(known))})"))
        elif key == "target":
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_TARGET:
                problems.append(Problem(here, f"must be a whole number of points from 1 to {MAX_TARGET}"))
            else:
                values[key] = v
        elif v not in CHOICES[key]:
            problems.append(Problem(here, f"{v!r} is not one of {', '.join(CHOICES[key])}"))
        else:
            values[key] = v
    if problems:
        raise InvalidRecordError(problems)
    return replace(base, **values)
