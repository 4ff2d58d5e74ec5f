"""Opening the kiosk's database whatever state the card left it in: a damaged file moved aside and
the newest good backup restored, with every event still readable from the damaged file applied
again; an owner's restore of a chosen backup. Trouble that is not damage (a full disk, a lock, a
permission) touches nothing."""

from __future__ import annotations

import errno
import logging
import os
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kiosk.backups import BACKUP_PREFIX, backups, check_file, copy_into, fsync
from kiosk.store import Store, StoreError, StoreTrouble, free_bytes, trouble
from shared.events import GameEvent

FULL_CHECK_AT_START = 64 * 1024 * 1024  # bytes: about 15,000 games
MIN_FREE_AT_START = 256 * 1024  # bytes: a few hundred saves; less and the kiosk waits for space


@dataclass(frozen=True)
class OpenReport:
    """What happened when the database was opened, for the screen to show (None when all was well)."""

    notice: str | None = None
    moved_to: Path | None = None
    restored_from: Path | None = None
    reapplied: int = 0  # events read back from the damaged file and applied again
    lost: tuple[str, ...] = ()  # the spans of events that could not be recovered, in words


def _parts(path: Path) -> list[Path]:
    """The database file and its write-ahead log and shared memory, as far as they exist."""
    return [p for p in (Path(str(path) + s) for s in ("", "-wal", "-shm")) if p.exists()]


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _aside_name(path: Path, folder: Path, why: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return folder / f"{path.stem}-{why}-{stamp}{path.suffix}"


def _move_aside(path: Path, folder: Path, why: str, target: Path | None = None) -> Path:
    """Moves the file set into ``folder``, never overwriting. The main file is linked there first,
    so that ``path`` is never missing until something replaces it."""
    folder.mkdir(parents=True, exist_ok=True)
    target = target or _aside_name(path, folder, why)
    if path.exists():
        try:
            os.link(path, target)
        except OSError:
            shutil.move(path, target)
    for suffix in ("-wal", "-shm"):
        part = Path(str(path) + suffix)
        if part.exists():
            shutil.move(part, Path(str(target) + suffix))
    return target


def _usable(backup: Path) -> bool:
    try:
        return check_file(backup) is None
    except StoreTrouble:
        return False


Replay = Callable[["Store", list[GameEvent]], int]


def open_store(
    path: Path,
    backup_dir: Path,
    damaged_dir: Path | None = None,
    *,
    replay: Replay | None = None,
    writable: bool = True,
) -> tuple[Store, OpenReport]:
    """Opens the kiosk's database.


    Only damage (SQLite says corrupt, ``integrity_check`` fails, the file is empty or gone while
    backups exist) leads to a restore: the newest good backup, with every event that can still
    be read from the damaged file applied again by ``replay``, and a notice kept in the database
    that says what was lost. The damaged file is moved aside, never overwritten. Anything else
    (full disk, lock, permissions, read-only) raises StoreTrouble and touches nothing.
    ``writable``: also make sure a save could be written now (the kiosk; not a listing)."""
    damaged_dir = damaged_dir or path.parent / "damaged"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        size = path.stat().st_size if path.exists() else None
        have_backups = bool(backups(backup_dir, of=path))
    except OSError as e:
        raise trouble(path, e) from None
    why = None
    if size is None and have_backups:
        why = "the database file is missing"
    elif size == 0 and have_backups:
        why = "the database file is empty (0 bytes)"
    elif size:
        # The whole file is checked at start while that is quick; a big one gets a probe at start
        # and its full check from the nightly backup and `clabber db check`.
        why = check_file(path, live=True, thorough=size <= FULL_CHECK_AT_START)
        if why is not None and "newer version" in why:
            raise StoreTrouble(f"{path}: {why}: install that version again; nothing was moved or changed")
    report = OpenReport()
    if why is not None:
        report = _recover(path, backup_dir, damaged_dir, why, replay)
        logging.getLogger("clabber.store").warning("%s", report.notice)
    store = Store(path)
    if writable:
        store.check_writable(MIN_FREE_AT_START)
    return store, report


def _recover(path: Path, backup_dir: Path, damaged_dir: Path, why: str, replay: Replay | None) -> OpenReport:
    """Builds the restored database beside the damaged one, then swaps it in; until the swap
    nothing is moved, so a failure on the way (a full disk) leaves everything as it was."""
    from kiosk.salvage import salvage

    good = next((b for b in backups(backup_dir, of=path) if _usable(b)), None)
    found = salvage(path) if path.exists() and path.stat().st_size > 0 else None
    temp = path.with_name(path.name + ".restoring")
    target = _aside_name(path, damaged_dir, "damaged")
    needed = (good.stat().st_size if good else 0) + (found.size if found else 0) + MIN_FREE_AT_START
    try:
        _remove(temp)
        if free_bytes(path.parent) < needed:
            raise OSError(errno.ENOSPC, f"{needed // 1024} KiB needed")
        if good is not None:
            copy_into(good, temp)
        restored = Store(temp)
        try:
            reapplied = replay(restored, found.events) if replay and found and found.events else 0
            lost = found.lost(restored.last_seq) if found else ()
            notice = _restore_notice(why, target if path.exists() else None, good, found, reapplied, lost)
            restored.add_notice(notice)
        finally:
            restored.close()
        _remove(Path(str(temp) + "-journal"))
        fsync(temp)
    except (OSError, sqlite3.Error, StoreError) as e:
        _remove(temp)
        doing = f"the database is damaged ({why}), but the backup could not be restored"
        raise trouble(path, e, doing) from None
    moved = _move_aside(path, damaged_dir, "damaged", target) if _parts(path) else None
    os.replace(temp, path)
    fsync(path.parent)
    return OpenReport(notice, moved, good, reapplied, lost)


def _restore_notice(
    why: str, moved: Path | None, good: Path | None, found: Any, reapplied: int, lost: tuple[str, ...]
) -> str:
    """What the owner is told: what happened, what came back, what must be entered again."""
    text = (
        f"{why[0].upper()}{why[1:]}." if why.startswith("the database file") else f"The database was damaged ({why})."
    )
    if moved is not None:
        text += f" It was moved to {moved}."
    if good is not None:
        text += f" The backup of {_backup_time(good)} ({good.name}) was restored."
    else:
        text += " As no backup was found that passes the check, the kiosk started with an empty database."
    if reapplied:
        text += f" {reapplied} later events read back from the damaged file were applied again."
    if lost:
        text += " Lost, and must be entered again: " + "; ".join(lost) + "."
    elif found is not None and found.complete:
        text += " Nothing that was saved is lost."
    if found is None or not found.complete:
        since = "after the backup " if good is not None else ""
        text += f" Hands saved {since}that could not be read back must be entered again."
    return text


def _backup_time(backup: Path) -> str:
    stamp = backup.stem.removeprefix(BACKUP_PREFIX)
    try:
        return datetime.strptime(stamp, "%Y%m%dT%H%M%S%fZ").strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return stamp


def restore(path: Path, source: Path, damaged_dir: Path) -> Path | None:
    """Puts a backup in place of the live database, after checking it; the replaced file is kept.


    The kiosk must not be running. The copy is made beside the database and renamed into place,
    so a full disk cannot leave half a file. Returns where the replaced database went."""
    if not source.is_file():
        raise StoreError(f"{source}: will not restore: no such file")
    try:
        why = check_file(source)
    except StoreError as e:
        why = str(e)
    if why is not None:
        raise StoreError(f"{source}: will not restore: {why}")
    temp = path.with_name(path.name + ".restoring")
    target = _aside_name(path, damaged_dir, "replaced")
    try:
        _remove(temp)
        if free_bytes(path.parent) < source.stat().st_size + MIN_FREE_AT_START:
            raise OSError(errno.ENOSPC, "no space left")
        copy_into(source, temp)
        restored = Store(temp)
        try:
            taken = f"{source}" + (f"; the replaced database is kept at {target}" if _parts(path) else "")
            restored.add_notice(f"The backup {taken} was restored by clabber db restore.")
        finally:
            restored.close()
        fsync(temp)
    except (OSError, sqlite3.Error, StoreError) as e:
        _remove(temp)
        raise trouble(path, e, "will not restore") from None
    moved = _move_aside(path, damaged_dir, "replaced", target) if _parts(path) else None
    os.replace(temp, path)
    fsync(path.parent)
    return moved
