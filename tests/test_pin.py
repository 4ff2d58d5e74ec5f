"""The owner's PIN: its hash, which PINs may be chosen, and the lock-out after wrong ones."""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime, timedelta

import pytest

from kiosk.pin import SCRYPT_N, SCRYPT_P, SCRYPT_R, hash_pin, pin_matches, valid_pin
from kiosk.store import Store
from kiosk.table import PIN_KEY
from shared.game_state import ActionRefused
from tests.store_helpers import open_table, reopen

PIN = "739146"
WRONG = "641937"


class Clock:
    """The table's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 21, 0, tzinfo=UTC)

    def __call__(self) -> str:
        return self.now.isoformat(timespec="milliseconds")

    def wait(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    t.clock = Clock()
    t.set_pin(PIN)
    yield t
    t.store.close()


def wrong(table, times=1):
    for _ in range(times):
        with pytest.raises(ActionRefused, match=r"^wrong PIN"):
            table.check_pin(WRONG)


# ---- the hash ------------------------------------------------------------------------------------


def test_a_new_pin_is_stored_as_scrypt_with_its_figures_never_as_pbkdf2(table):
    stored = table.store.setting(PIN_KEY)
    kind, n, r, p, salt, digest = stored.split("$")
    assert (kind, int(n), int(r), int(p)) == ("scrypt", 2**14, 8, 1) == ("scrypt", SCRYPT_N, SCRYPT_R, SCRYPT_P)
    assert len(bytes.fromhex(salt)) == 16 and "pbkdf2" not in stored and PIN not in stored
    expected = hashlib.scrypt(PIN.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1, maxmem=64 << 20, dklen=32)
    assert digest == expected.hex()  # really scrypt, with the figures it says
    assert hash_pin(PIN) != hash_pin(PIN)  # salted


def test_a_pbkdf2_hash_from_an_older_kiosk_still_opens_and_is_stored_anew_as_scrypt(table):
    salt = bytes(range(16))
    old = "pbkdf2_sha256$200000$" + salt.hex() + "$" + hashlib.pbkdf2_hmac("sha256", b"2468", salt, 200_000).hex()
    table.store.set_setting(PIN_KEY, old)
    wrong(table)
    assert table.store.setting(PIN_KEY) == old  # a wrong PIN upgrades nothing
    table.check_pin("2468")  # a 4-digit PIN set before the 6-digit rule keeps working
    upgraded = table.store.setting(PIN_KEY)
    assert upgraded.startswith("scrypt$16384$8$1$") and pin_matches("2468", upgraded)
    table.check_pin("2468")
    assert table.store.setting(PIN_KEY) == upgraded  # stored once, not on every entry


@pytest.mark.parametrize(
    "stored",
    [
        "scrypt$1073741824$8$1$00$00",
        "scrypt$16384$8$1$zz$00",
        "plain$2468",
        "",
        "pbkdf2_sha256$99999999999$00$00",
        "scrypt$16384$8$1$00",
    ],
)
def test_a_stored_hash_that_is_not_ours_matches_nothing_and_costs_nothing(stored):
    start = time.perf_counter()
    assert not pin_matches("2468", stored)
    assert time.perf_counter() - start < 0.5  # never runs a hash asking for a gigabyte


# ---- choosing a PIN ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pin", "why"),
    [
        ("2468", "6 to 12 digits"),
        ("1234567890123", "6 to 12 digits"),
        ("12345a", "digits"),
        ("１２３４５６", "digits"),
        ("000000", "repeated"),
        ("111111", "repeated"),
        ("121212", "repeated"),
        ("123123", "repeated"),
        ("123456", "run"),
        ("654321", "run"),
        ("345678", "run"),
        ("135791", "run"),
        ("901234", "run"),
        ("112233", "common"),
        ("159753", "common"),
    ],
)
def test_short_and_trivial_pins_are_refused_saying_why(table, pin, why):
    assert why in valid_pin(pin)
    with pytest.raises(ActionRefused, match=why):
        table.set_pin(pin, PIN)
    table.check_pin(PIN)  # still the PIN


@pytest.mark.parametrize("pin", ["739146", "271828", "50982113", "246813"])
def test_ordinary_pins_are_accepted(pin):
    assert valid_pin(pin) is None


def test_changing_the_pin_needs_the_old_one(table):
    with pytest.raises(ActionRefused, match="wrong PIN"):
        table.set_pin("271828", WRONG)
    table.set_pin("271828", PIN)
    table.check_pin("271828")


# ---- the lock-out --------------------------------------------------------------------------------


def test_wrong_pins_lock_entry_for_longer_and_longer(table):
    wrong(table, 2)
    assert table.pin_lock().seconds_left == 0  # two slips of the finger cost nothing
    with pytest.raises(ActionRefused, match="wrong PIN: PIN entry is locked for 30 s"):
        table.check_pin(WRONG)
    waits = []
    for _ in range(8):
        lock = table.pin_lock()
        with pytest.raises(ActionRefused, match=f"locked for .* after {lock.failures} wrong PINs"):
            table.check_pin(PIN)  # the right PIN is not even tried while locked
        waits.append(lock.seconds_left)
        table.clock.wait(lock.seconds_left)
        wrong(table)
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600]
    assert table.pin_lock() == type(table.pin_lock())(11, 3600)  # an hour at the most


def test_the_right_pin_after_the_lock_opens_and_starts_the_count_again(table):
    wrong(table, 3)
    table.clock.wait(29)
    with pytest.raises(ActionRefused, match="locked for 1 s"):
        table.check_pin(PIN)
    table.clock.wait(1)
    table.check_pin(PIN)
    assert table.pin_lock().failures == 0
    wrong(table, 2)
    assert table.pin_lock().seconds_left == 0


def test_the_lock_survives_a_restart(table):
    wrong(table, 3)
    table.clock.wait(30)
    wrong(table)  # locked for 60 s now
    clock = table.clock
    clock.wait(10)
    again = reopen(table)
    again.clock = clock
    try:
        assert again.pin_lock().seconds_left == 50 and again.pin_lock().failures == 4
        with pytest.raises(ActionRefused, match="locked for 50 s after 4 wrong PINs"):
            again.check_pin(PIN)
    finally:
        again.store.close()


def test_a_clock_set_back_does_not_stretch_the_lock(table):
    wrong(table, 3)
    table.clock.wait(-86400)  # the Pi booted with yesterday's time, before it reached the network
    assert table.pin_lock().seconds_left == 30


def test_an_empty_entry_is_not_counted_as_a_guess(table):
    for _ in range(5):
        with pytest.raises(ActionRefused, match="enter the owner's PIN"):
            table.check_pin("")
    assert table.pin_lock().failures == 0


def test_the_lock_holds_even_when_the_store_cannot_write_it(table, tmp_path):
    readonly = type(table)(Store(table.store.path, readonly=True))
    readonly.clock = table.clock
    for _ in range(3):
        with pytest.raises(ActionRefused, match=r"^wrong PIN"):
            readonly.check_pin(WRONG)
    with pytest.raises(ActionRefused, match="locked for 30 s"):
        readonly.check_pin(PIN)
    readonly.store.close()


def test_a_pin_change_counts_wrong_old_pins_too(table):
    for _ in range(3):
        with pytest.raises(ActionRefused, match=r"^wrong PIN"):
            table.set_pin("271828", WRONG)
    with pytest.raises(ActionRefused, match="locked"):
        table.set_pin("271828", PIN)
