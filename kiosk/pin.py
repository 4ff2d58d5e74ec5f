"""The owner's PIN, stored only as a salted, slow hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets

ROUNDS = 200_000
PREFIX = "pbkdf2_sha256"


def valid_pin(pin: str) -> str | None:
    """Why a PIN cannot be used, or None."""
    if not isinstance(pin, str) or not pin.isdigit() or not 4 <= len(pin) <= 8:
        return "a PIN is 4 to 8 digits"
    return None


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """The stored form of a PIN."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, ROUNDS)
    return f"{PREFIX}${ROUNDS}${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str) -> bool:
    """Whether a PIN matches its stored hash (in constant time)."""
    try:
        prefix, rounds, salt, digest = stored.split("$")
        ok = prefix == PREFIX
        attempt = hashlib.pbkdf2_hmac("sha256", str(pin).encode(), bytes.fromhex(salt), int(rounds))
    except ValueError:
        return False
    return ok and hmac.compare_digest(attempt.hex(), digest)
