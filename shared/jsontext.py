"""JSON as it comes over the network, read with bounds: no deeper than a game's events need, no
number JSON does not have (NaN, Infinity, or one too big to be finite), every refusal a sentence."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterator
from typing import Any

MOST_DEPTH = 32  # a pushed event's record is about six levels deep


class BadJSON(ValueError):
    """The text is not JSON that is read here; ``str()`` says where and why."""


def _constant(name: str) -> Any:
    raise BadJSON(f"{name} is not a number JSON has")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadJSON(f"{text[:20]} is too big a number")
    return value


def loads(body: bytes | str) -> Any:
    """The value of a JSON text, or BadJSON: not UTF-8, not JSON, NaN or Infinity, nested deeper
    than ``MOST_DEPTH``."""
    try:
        value = json.loads(body, parse_constant=_constant, parse_float=_finite)
    except BadJSON:
        raise
    except RecursionError:
        raise BadJSON(f"nested more than {MOST_DEPTH} deep") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise BadJSON(f"not JSON: {e}") from None
    if _depth(value) > MOST_DEPTH:
        raise BadJSON(f"nested more than {MOST_DEPTH} deep")
    return value


def _depth(value: Any) -> int:
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            deepest = max(deepest, depth)
            todo.extend((x, depth + 1) for x in v)
    return deepest


def texts(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every text in a JSON value, keys included, with where it is (``games[0].events[2].reason``).

    >>> list(texts({"a": ["x", {"b": 1}]}, "e"))
    [('e', 'a'), ('e.a[0]', 'x'), ('e.a[1]', 'b')]
    """
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield where, str(k)
            yield from texts(v, f"{where}.{_segment(str(k))}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from texts(v, f"{where}[{i}]")


def _segment(key: str) -> str:
    """A key as a part of a place: as it is when it is a plain short name, else escaped and quoted
    (a refusal never carries the text it refuses)."""
    if key.isascii() and key.replace("_", "a").isalnum() and len(key) <= 32:
        return key
    return json.dumps(key[:32])


def is_timestamp(text: str) -> bool:
    """``text`` is a moment as ISO 8601 writes it, with its offset from UTC.

    >>> [is_timestamp(t) for t in ("2026-01-06T20:15:00.000+00:00", "2026-01-06T20:15Z", "not-a-time", "2026-01-06")]
    [True, True, False, False]
    """
    try:
        return dt.datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        return False
