"""The SQL of the organiser's sign-in: the password's hash, the lock-out, the sessions.

The tables are declared in league/store/core.py with the others (one schema, one metadata); the
statements are here, run in the store's transactions, so a sign-in attempt takes the same write
lock as any organiser action.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from league.store.core import Reader, Writer
from league.store.tables import organiser_password as passwords
from league.store.tables import organiser_sessions as sessions
from league.store.tables import signin_lockout as lockout

ONE = 1  # the single organiser's row


def password_hash(r: Reader) -> str | None:
    return r.conn.execute(sa.select(passwords.c.hash).where(passwords.c.id == ONE)).scalar_one_or_none()


def set_password_hash(w: Writer, hashed: str, now: float) -> None:
    """The new password; every session and the lock-out end with the old one."""
    w.conn.execute(sa.delete(passwords))
    w.conn.execute(sa.insert(passwords).values(id=ONE, hash=hashed, set_at=now))
    w.conn.execute(sa.delete(sessions))
    w.conn.execute(sa.delete(lockout))


def lockout_state(r: Reader) -> tuple[int, float]:
    """Wrong passwords in a row, and until when (epoch seconds) sign-in is refused."""
    row = r.conn.execute(sa.select(lockout.c.failures, lockout.c.locked_until).where(lockout.c.id == ONE)).first()
    return (int(row.failures), float(row.locked_until)) if row else (0, 0.0)


def set_lockout(w: Writer, failures: int, locked_until: float) -> None:
    w.conn.execute(sa.delete(lockout))
    w.conn.execute(sa.insert(lockout).values(id=ONE, failures=failures, locked_until=locked_until))


def add_session(w: Writer, token_hash: str, csrf: str, expires: float) -> None:
    w.conn.execute(sa.insert(sessions).values(token_hash=token_hash, csrf=csrf, expires=expires))


def session(r: Reader, token_hash: str, now: float) -> dict[str, Any] | None:
    row = r.conn.execute(
        sa.select(sessions).where(sessions.c.token_hash == token_hash, sessions.c.expires > now)
    ).first()
    return dict(row._mapping) if row else None


def end_session(w: Writer, token_hash: str, now: float) -> None:
    """Ends this session, and clears out any that have expired."""
    w.conn.execute(sa.delete(sessions).where(sa.or_(sessions.c.token_hash == token_hash, sessions.c.expires <= now)))
