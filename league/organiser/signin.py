"""The organiser's sign-in: one password, hashed with argon2id; a lock-out that grows with each wrong
password in a row; sessions by an unguessable cookie whose hash alone is stored, each with its CSRF
token. The SQL is in league/store/signin.py."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from league.organiser.season import LeagueRefused
from league.store import signin as ss
from league.store.core import Store

FREE_TRIES = 3  # wrong passwords before the lock-out starts: typing slips cost nothing
LONGEST_LOCK = 3600.0  # seconds: the lock-out doubles with each wrong password up to this
SESSION_SECONDS = 12 * 3600  # one league night
SHORTEST_PASSWORD = 10
LONGEST_PASSWORD = 1024  # argon2 takes any length; a bound keeps a huge post from costing much
hasher = PasswordHasher()  # argon2id with the library's current recommended costs


def check_new_password(password: str) -> str:
    if not SHORTEST_PASSWORD <= len(password) <= LONGEST_PASSWORD:
        raise LeagueRefused(f"password: from {SHORTEST_PASSWORD} to {LONGEST_PASSWORD} characters, please")
    return password


def lock_seconds(failures: int) -> float:
    """How long sign-in stays refused after this many wrong passwords in a row."""
    if failures < FREE_TRIES:
        return 0.0
    return min(LONGEST_LOCK, 2.0 ** (failures - FREE_TRIES + 1))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Attempt:
    """What a sign-in attempt came to: a session (token and CSRF token), or why not."""

    token: str = ""
    csrf: str = ""
    refused: str = ""
    retry_after: int = 0
    locked: bool = False  # refused unchecked: the lock-out was on


class SignIn:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    def set_password(self, password: str) -> None:
        hashed = hasher.hash(check_new_password(password))
        with self.store.write() as w:
            ss.set_password_hash(w, hashed, self.clock())

    def has_password(self) -> bool:
        with self.store.read() as r:
            return ss.password_hash(r) is not None

    def attempt(self, password: str) -> Attempt:
        """Checks the password under the write lock, so guesses are counted one at a time."""
        with self.store.write() as w:
            now = self.clock()
            failures, locked_until = ss.lockout_state(w)
            if now < locked_until:
                wait = int(locked_until - now) + 1
                return Attempt(
                    refused=f"Too many wrong passwords: try again in {wait} s.", retry_after=wait, locked=True
                )
            stored = ss.password_hash(w)
            if stored is None:
                return Attempt(refused="No organiser password is set: run clabber league organiser set-password.")
            try:
                ok = len(password) <= LONGEST_PASSWORD and hasher.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                ok = False
            if not ok:
                failures += 1
                wait_s = lock_seconds(failures)
                ss.set_lockout(w, failures, now + wait_s)
                more = f" Sign-in is locked for {int(wait_s)} s." if wait_s else ""
                return Attempt(refused="Wrong password." + more, retry_after=int(wait_s))
            ss.set_lockout(w, 0, 0.0)
            token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
            ss.add_session(w, token_hash(token), csrf, now + SESSION_SECONDS)
        return Attempt(token=token, csrf=csrf)

    def session_csrf(self, token: str | None) -> str | None:
        """The CSRF token of a live session, or None when the cookie is missing, unknown or expired."""
        if not token or len(token) > 100:
            return None
        with self.store.read() as r:
            found = ss.session(r, token_hash(token), self.clock())
        return found["csrf"] if found else None

    def sign_out(self, token: str) -> None:
        with self.store.write() as w:
            ss.end_session(w, token_hash(token), self.clock())


def same(a: str | None, b: str | None) -> bool:
    """Constant-time equality of two tokens, both present."""
    return bool(a) and bool(b) and hmac.compare_digest(str(a).encode(), str(b).encode())
