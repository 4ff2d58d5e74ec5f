"""The owner's PIN: which PINs may be chosen, and its stored form (a salted, memory-hard hash).

New PINs are stored as scrypt hashes; PINs stored by earlier versions (PBKDF2) still match and
are stored again as scrypt after their next right entry. Why these figures: docs/security.md.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from itertools import pairwise

# scrypt's cost: 2**14 blocks of 128 * 8 bytes, 16 MiB of memory for each guess. About 0.04 s on
# the machine this was tuned on, about a quarter of a second on a Pi 4 (docs/security.md).
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT = "scrypt"
LEGACY = "pbkdf2_sha256"  # kiosks before scrypt
MIN_DIGITS, MAX_DIGITS = 6, 12
# A stored hash asking for more than this is not ours: refused rather than run (it would take
# the kiosk's memory and time).
_MAX_N, _MAX_R, _MAX_P, _MAX_ROUNDS = 2**20, 32, 16, 10_000_000

# Wrong PINs in a row before entry locks; then each wrong PIN locks it twice as long as the last.
FREE_TRIES = 3
FIRST_LOCK = 30  # seconds
LONGEST_LOCK = 3600

# The 6-digit PINs people choose most often that are neither repeats nor runs (published PIN
# studies: birthdays aside, these keyboard and pairing patterns lead every list).
COMMON = frozenset(
    {
        "112233",
        "123321",
        "159753",
        "147258",
        "789456",
        "102030",
        "147852",
        "159357",
        "258456",
        "111222",
        "121314",
        "123654",
        "456123",
        "100200",
        "998877",
        "332211",
    }
)


def valid_pin(pin: str) -> str | None:
    """Why a new PIN cannot be used, or None."""
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit():
        return f"a PIN is {MIN_DIGITS} to {MAX_DIGITS} digits"
    if not MIN_DIGITS <= len(pin) <= MAX_DIGITS:
        return f"a PIN is {MIN_DIGITS} to {MAX_DIGITS} digits (this one has {len(pin)})"
    why = _trivial(pin)
    if why:
        return f"this PIN is too easy to guess ({why}): choose another"
    return None


def _trivial(pin: str) -> str | None:
    for size in range(1, len(pin) // 2 + 1):
        if len(pin) % size == 0 and pin == pin[:size] * (len(pin) // size):
            return "the same digits repeated"
    steps = {(int(b) - int(a)) % 10 for a, b in pairwise(pin)}
    if len(steps) == 1:
        return "digits in a run"
    if pin in COMMON:
        return "one of the most common PINs"
    return None


def lock_seconds(failures: int) -> int:
    """How long PIN entry locks after ``failures`` wrong PINs in a row: 0 for the first few
    (a slip of the finger), then 30 s, 60 s, 120 s ... up to an hour."""
    if failures < FREE_TRIES:
        return 0
    return int(min(FIRST_LOCK * 2 ** min(failures - FREE_TRIES, 16), LONGEST_LOCK))


def say_seconds(seconds: int) -> str:
    """A wait in the owner's words: ``30 s``, ``2 min``, ``1 min 05 s``."""
    minutes, rest = divmod(int(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest:02d} s" if rest else "")


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """The stored form of a PIN: ``scrypt$N$r$p$salt$digest``, the figures kept with it."""
    salt = salt or secrets.token_bytes(16)
    digest = _scrypt(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"{SCRYPT}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    memory = 128 * r * (n + p + 2)  # OpenSSL's own reckoning, with room to spare below
    return hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=memory + 2**20, dklen=32)


def pin_matches(pin: str, stored: str) -> bool:
    """Whether a PIN matches its stored hash, scrypt or the older PBKDF2 (in constant time)."""
    try:
        kind, *fields = stored.split("$")
        if kind == SCRYPT:
            n, r, p, salt, digest = fields
            if not (1 < int(n) <= _MAX_N and 0 < int(r) <= _MAX_R and 0 < int(p) <= _MAX_P):
                return False
            attempt = _scrypt(str(pin), bytes.fromhex(salt), int(n), int(r), int(p))
        elif kind == LEGACY:
            rounds, salt, digest = fields
            if not 0 < int(rounds) <= _MAX_ROUNDS:
                return False
            attempt = hashlib.pbkdf2_hmac("sha256", str(pin).encode(), bytes.fromhex(salt), int(rounds))
        else:
            return False
    except ValueError:  # not the stored form of a PIN at all
        return False
    return hmac.compare_digest(attempt.hex(), digest)


def needs_rehash(stored: str) -> bool:
    """Whether a stored hash is weaker than a new one would be (PBKDF2, or smaller figures)."""
    return not stored.startswith(f"{SCRYPT}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}$")


def hash_seconds() -> float:
    """How long checking one PIN takes on this machine (what each guess costs)."""
    start = time.perf_counter()
    hash_pin("0" * MIN_DIGITS)
    return time.perf_counter() - start
