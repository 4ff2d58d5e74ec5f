"""A bundle fetched from the league: resumed where it stopped (an HTTP range), only when the data
partition has room for it, and kept only when its SHA-256 is the one the league offered."""

from __future__ import annotations

import hashlib
import os
import shutil
import ssl
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHUNK = 256 * 1024
ROOM_AFTER = 64 * 1024 * 1024  # bytes left free beside the bundle: the games go on being written


class DownloadError(Exception):
    """The bundle could not be fetched now; the message says why. What was fetched is kept."""


@dataclass(frozen=True)
class Offer:
    """What the league offers: a version, its bundle's size and SHA-256, and where to fetch it."""

    version: str
    size: int
    sha256: str
    url: str


def part_of(folder: Path, offer: Offer) -> Path:
    return folder / f"clabber-{offer.version}.raucb.part"


def bundle_of(folder: Path, offer: Offer) -> Path:
    return folder / f"clabber-{offer.version}.raucb"


def fetch(
    offer: Offer,
    folder: Path,
    key: str | None = None,
    progress: Callable[[int], None] | None = None,
    timeout: float = 30,
) -> Path:
    """The offered bundle in ``folder``, fetched or resumed; ``progress(percent)`` as it comes."""
    done = bundle_of(folder, offer)
    if done.exists():
        return done
    folder.mkdir(parents=True, exist_ok=True)
    part = part_of(folder, offer)
    have = part.stat().st_size if part.exists() else 0
    if have > offer.size:
        part.unlink()
        have = 0
    _room_for(folder, offer.size - have)
    request = urllib.request.Request(offer.url)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer, open(part, "ab") as out:
            if have and answer.status != 206:  # the server sends it whole: start again
                out.truncate(0)
                have = 0
            while chunk := answer.read(CHUNK):
                out.write(chunk)
                have += len(chunk)
                if have > offer.size:
                    raise DownloadError(f"the league sent more than the {offer.size} bytes it offered")
                if progress is not None:
                    progress(have * 100 // max(offer.size, 1))
            out.flush()
            os.fsync(out.fileno())
    except urllib.error.HTTPError as e:
        raise DownloadError(f"the league answered {e.code} for the bundle") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError, ssl.SSLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise DownloadError(f"the download stopped at {have * 100 // max(offer.size, 1)} %: {reason}") from None
    if have < offer.size:
        raise DownloadError(f"the download stopped at {have * 100 // max(offer.size, 1)} %: the answer ended early")
    if _sha256(part) != offer.sha256.lower():
        part.unlink()
        raise DownloadError("the bundle fetched is not the one offered (its SHA-256 differs): fetched again next time")
    os.replace(part, done)
    return done


def from_stick(bundle: Path, folder: Path) -> Path:
    """The stick's bundle copied into ``folder`` (once while it is the same file): RAUC takes a
    bundle over as root, which a FAT stick's files (the kiosk user's, by the mount) do not allow,
    and a stick pulled out while the slot is written would spoil the write. OSError when the stick
    goes while it is read; DownloadError when the data partition has no room for it."""
    seen = bundle.stat()
    done = folder / "stick" / bundle.name
    try:
        kept = done.stat()
        if (kept.st_size, kept.st_mtime_ns) == (seen.st_size, seen.st_mtime_ns):
            return done
    except OSError:
        pass
    done.parent.mkdir(parents=True, exist_ok=True)
    _room_for(done.parent, seen.st_size)
    part = done.with_name(done.name + ".part")
    try:
        shutil.copyfile(bundle, part)
        os.utime(part, ns=(seen.st_atime_ns, seen.st_mtime_ns))  # the same file, told by its time
        os.replace(part, done)
    finally:
        part.unlink(missing_ok=True)
    return done


def _room_for(folder: Path, size: int) -> None:
    """DownloadError unless ``folder``'s partition has room for ``size`` bytes and the games after."""
    free = shutil.disk_usage(folder).free
    if size + ROOM_AFTER > free:
        need = (size + ROOM_AFTER) // 2**20
        raise DownloadError(f"not enough room on the data partition: {need} MB needed, {free // 2**20} MB free")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
