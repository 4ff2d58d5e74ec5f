"""A kiosk's key and enrolment code as the league keeps them (their SHA-256, never the text), and the
kiosk a request's key belongs to."""

from __future__ import annotations

import hashlib
from typing import Any

from league.ingest.refused import KioskRefused
from league.store import kiosks as ks
from league.store.core import Reader

Kiosk = dict[str, Any] | str | None  # an enrolled kiosk's row, or the key a request came with


def digest(secret: str) -> str:
    """What the server keeps of a code, a key or an event's text: its SHA-256."""
    return hashlib.sha256(secret.encode()).hexdigest()


def normal_code(text: str) -> str:
    """A code as typed: any case, spaces and dashes ignored."""
    return "".join(c for c in str(text).upper() if c not in " -")


def kiosk_for_key(r: Reader, key: Kiosk) -> dict[str, Any]:
    """The kiosk a key belongs to (a kiosk's row is taken as it is); 401 for no key, an unknown one or
    a revoked one."""
    if isinstance(key, dict):
        return key
    k = ks.kiosk_by_hash(r.conn, digest(key)) if isinstance(key, str) and key else None
    if k is not None:
        return k
    if not key or not isinstance(key, str):
        raise KioskRefused("send the kiosk's key as 'Authorization: Bearer <key>'", 401)
    raise KioskRefused("this kiosk key is unknown or revoked: enrol the kiosk again", 401)
