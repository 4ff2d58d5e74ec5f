"""A FUSE filesystem that forgets, when the power is cut, everything that was not fsynced.

The power-cut test runs the kiosk's writer on it (the way Jepsen's LazyFS and SQLite's crash-test
VFS simulate power loss). ``Disk`` mounts it in a process of its own and cuts the power from a
test; ``python -m tests.lossyfs STORE MOUNTPOINT`` serves it in the foreground, to look around.

The model:

- What programs read and write is held in this process's memory: the volatile state, the
  kernel's page cache and the disk's write cache of a real machine.
- ``fsync``/``fdatasync`` of a file writes its changed pages into STORE, in ascending order: the
  durable state. A cut in the middle of an fsync leaves some of them written (a torn sync),
  which is allowed: that fsync never returned, so nothing it covered was acknowledged.
- Names are strict, as POSIX has it: a created, renamed or removed name becomes durable only
  when its directory is fsynced (ext4 is often kinder). SQLite fsyncs the directory when it
  creates a WAL or a rollback journal; a file whose name was never made durable is gone after a
  cut, and a durable name whose file was never fsynced is an empty file.
- The power cut is SIGKILL of this process: the volatile state dies with it. The next mount
  reads STORE only.

The kernel must not keep what the program wrote out of our sight, so every file is opened with
direct I/O (each write() and read() reaches this process) except SQLite's ``-shm`` files, which
SQLite maps into memory (FUSE refuses shared mappings of direct-I/O files); their content is
never needed after a crash, and this filesystem forgets it all the same. Attributes and names
are not cached either. STORE/stats.json counts the writes and fsyncs that arrived, so a test
can show that the fsyncs really reach the filesystem.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import multiprocessing.context
import multiprocessing.process
import os
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PAGE = 4096  # the unit a sync writes; SQLite's pages are this size too
ROOT_INO = 1


@dataclass(eq=False)
class Node:
    """A file or a directory as programs see it now (the volatile state)."""

    ino: int
    mode: int
    data: bytearray = field(default_factory=bytearray)  # a file's contents
    dirty: set[int] = field(default_factory=set)  # pages changed since the file's last fsync
    entries: dict[str, Node] = field(default_factory=dict)  # a directory's names
    mtime: float = field(default_factory=time.time)

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


def _error(code: int) -> OSError:
    return OSError(code, os.strerror(code))


class LossyFS:
    """The operations mfusepy calls; STORE holds the durable state (see the module's docstring).

    STORE/files/INO is a file's contents as of its last fsync; STORE/dirs/INO.json a directory's
    names as of its last fsync, each ``[ino, mode]``."""

    use_ns = True  # times in nanoseconds (mfusepy's modern convention)

    def __init__(self, store: Path) -> None:
        self.store = store
        self.files = store / "files"
        self.dirs = store / "dirs"
        self.files.mkdir(parents=True, exist_ok=True)
        self.dirs.mkdir(parents=True, exist_ok=True)
        stats = store / "stats.json"
        self.stats = json.loads(stats.read_text()) if stats.exists() else {}
        for key in ("mounts", "writes", "fsyncs", "dirsyncs"):
            self.stats.setdefault(key, 0)
        self.stats["mounts"] += 1
        self.handles: dict[int, Node] = {}
        self.next_fh = 1
        existing = [int(p.stem) for p in (*self.files.iterdir(), *self.dirs.iterdir()) if p.stem.isdigit()]
        self.next_ino = max([ROOT_INO, *existing]) + 1
        self.loaded: dict[int, Node] = {}
        self.root = self._load(ROOT_INO, stat.S_IFDIR | 0o755)
        self._forget_unnamed()
        self._save_stats()

    # ---- the durable state -------------------------------------------------------------------------

    def _load(self, ino: int, mode: int) -> Node:
        """A node as the durable state has it, with everything below it."""
        if ino in self.loaded:  # named in two durable listings (a rename across directories)
            return self.loaded[ino]
        node = self.loaded[ino] = Node(ino, mode)
        if node.is_dir:
            listing = self.dirs / f"{ino}.json"
            names = json.loads(listing.read_text()) if listing.exists() else {}
            node.entries = {name: self._load(i, m) for name, (i, m) in names.items()}
        else:
            contents = self.files / str(ino)
            node.data = bytearray(contents.read_bytes()) if contents.exists() else bytearray()
        return node

    def _forget_unnamed(self) -> None:
        """Removes durable contents no durable name leads to (a file fsynced but never named)."""
        named: set[int] = set()
        stack = [self.root]
        while stack:
            node = stack.pop()
            named.add(node.ino)
            stack.extend(node.entries.values())
        for p in (*self.files.iterdir(), *self.dirs.iterdir()):
            if p.stem.isdigit() and int(p.stem) not in named:
                p.unlink()

    def _sync_file(self, node: Node) -> None:
        # In place, page by page in ascending order, size last: a cut in between tears the sync.
        fd = os.open(self.files / str(node.ino), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for page in sorted(node.dirty):
                chunk = node.data[page * PAGE : (page + 1) * PAGE]
                if chunk:
                    os.pwrite(fd, chunk, page * PAGE)
            os.ftruncate(fd, len(node.data))
        finally:
            os.close(fd)
        node.dirty.clear()
        self.stats["fsyncs"] += 1
        self._save_stats()

    def _sync_dir(self, node: Node) -> None:
        # Atomically (write and rename): a directory fsync makes all its names durable or none.
        listing = {name: [child.ino, child.mode] for name, child in node.entries.items()}
        target = self.dirs / f"{node.ino}.json"
        partial = target.with_suffix(".partial")
        partial.write_text(json.dumps(listing))
        os.replace(partial, target)
        self.stats["dirsyncs"] += 1
        self._save_stats()

    def _save_stats(self) -> None:
        partial = self.store / "stats.partial"
        partial.write_text(json.dumps(self.stats))
        os.replace(partial, self.store / "stats.json")

    # ---- names -------------------------------------------------------------------------------------

    def _lookup(self, path: str) -> Node:
        node = self.root
        for part in filter(None, path.split("/")):
            if not node.is_dir:
                raise _error(errno.ENOTDIR)
            if part not in node.entries:
                raise _error(errno.ENOENT)
            node = node.entries[part]
        return node

    def _parent(self, path: str) -> tuple[Node, str]:
        head, _, name = path.rstrip("/").rpartition("/")
        parent = self._lookup(head or "/")
        if not parent.is_dir:
            raise _error(errno.ENOTDIR)
        return parent, name

    def _node(self, path: str | None, fi: Any = None) -> Node:
        if fi is not None and fi.fh in self.handles:
            return self.handles[fi.fh]
        if path is None:
            raise _error(errno.EBADF)
        return self._lookup(path)

    def _new(self, path: str, mode: int) -> Node:
        parent, name = self._parent(path)
        if name in parent.entries:
            raise _error(errno.EEXIST)
        node = Node(self.next_ino, mode)
        self.next_ino += 1
        parent.entries[name] = node
        parent.mtime = time.time()
        return node

    def _open(self, path: str, node: Node, fi: Any) -> int:
        fi.fh = self.next_fh
        self.next_fh += 1
        self.handles[fi.fh] = node
        fi.direct_io = 0 if path.endswith("-shm") else 1  # see the module's docstring
        return 0

    # ---- the operations ----------------------------------------------------------------------------

    def init_with_config(self, conn: Any, config: Any) -> None:
        """No caching of names or attributes; unlinked files stay usable through open handles."""
        if config is not None:
            config.entry_timeout = config.attr_timeout = config.negative_timeout = 0.0
            config.hard_remove = 1  # unlink really unlinks (no .fuse_hidden files)
            config.nullpath_ok = 1  # so an open handle to an unlinked file still reaches us
            config.use_ino = 1

    def getattr(self, path: str | None, fh: Any = None) -> dict[str, Any]:
        node = self._node(path, fh)
        ns = int(node.mtime * 1e9)
        return {
            "st_ino": node.ino,
            "st_mode": node.mode,
            "st_nlink": 2 if node.is_dir else 1,
            "st_size": len(node.data),
            "st_blocks": (len(node.data) + 511) // 512,
            "st_atime": ns,
            "st_mtime": ns,
            "st_ctime": ns,
            "st_uid": os.getuid(),
            "st_gid": os.getgid(),
        }

    def access(self, path: str, amode: int) -> int:
        self._lookup(path)
        return 0

    def statfs(self, path: str) -> dict[str, int]:
        return {
            "f_bsize": PAGE,
            "f_frsize": PAGE,
            "f_blocks": 1 << 20,
            "f_bfree": 1 << 19,
            "f_bavail": 1 << 19,
            "f_files": 1 << 16,
            "f_ffree": 1 << 15,
            "f_favail": 1 << 15,
            "f_namemax": 255,
        }

    def mkdir(self, path: str, mode: int) -> int:
        self._new(path, stat.S_IFDIR | (mode & 0o7777))
        return 0

    def rmdir(self, path: str) -> int:
        parent, name = self._parent(path)
        node = self._lookup(path)
        if not node.is_dir:
            raise _error(errno.ENOTDIR)
        if node.entries:
            raise _error(errno.ENOTEMPTY)
        del parent.entries[name]
        return 0

    def unlink(self, path: str) -> int:
        parent, name = self._parent(path)
        if self._lookup(path).is_dir:
            raise _error(errno.EISDIR)
        del parent.entries[name]  # open handles keep the node, as on any POSIX filesystem
        return 0

    def rename(self, old: str, new: str) -> int:
        old_parent, old_name = self._parent(old)
        node = self._lookup(old)
        new_parent, new_name = self._parent(new)
        replaced = new_parent.entries.get(new_name)
        if replaced is not None and replaced.is_dir and replaced.entries:
            raise _error(errno.ENOTEMPTY)
        del old_parent.entries[old_name]
        new_parent.entries[new_name] = node
        return 0

    def chmod(self, path: str | None, mode: int) -> int:
        if path is not None:  # fchmod(2) arrives without a path or a handle: ignored
            node = self._lookup(path)
            node.mode = stat.S_IFMT(node.mode) | (mode & 0o7777)
        return 0

    def chown(self, path: str | None, uid: int, gid: int) -> int:
        return 0  # one owner: whoever mounted it

    def utimens(self, path: str | None, times: tuple[int, int] | None = None) -> int:
        if path is not None:  # futimens(3) arrives without a path or a handle: ignored
            self._lookup(path).mtime = times[1] / 1e9 if times else time.time()
        return 0

    def create(self, path: str, mode: int, fi: Any) -> int:
        return self._open(path, self._new(path, stat.S_IFREG | (mode & 0o7777)), fi)

    def open(self, path: str, fi: Any) -> int:
        node = self._lookup(path)
        if fi.flags & os.O_TRUNC:
            self.truncate(path, 0)
        return self._open(path, node, fi)

    def read(self, path: str | None, size: int, offset: int, fi: Any) -> bytes:
        return bytes(self._node(path, fi).data[offset : offset + size])

    def write(self, path: str | None, data: bytes, offset: int, fi: Any) -> int:
        node = self._node(path, fi)
        end = offset + len(data)
        # Pages between the old end and a write past it become zeros: they change too.
        first = min(offset, len(node.data)) // PAGE
        if end > len(node.data):
            node.data.extend(bytes(end - len(node.data)))
        node.data[offset:end] = data
        node.dirty.update(range(first, (end - 1) // PAGE + 1))
        node.mtime = time.time()
        self.stats["writes"] += 1
        return len(data)

    def truncate(self, path: str | None, length: int, fh: Any = None) -> int:
        node = self._node(path, fh)
        old = len(node.data)
        if length < old:
            del node.data[length:]
        else:
            node.data.extend(bytes(length - old))
        node.dirty.update(range(min(old, length) // PAGE, max(old, length) // PAGE + 1))
        node.mtime = time.time()
        return 0

    def fsync(self, path: str | None, datasync: int, fi: Any) -> int:
        self._sync_file(self._node(path, fi))
        return 0

    def flush(self, path: str | None, fi: Any) -> int:
        return 0  # close() makes nothing durable

    def release(self, path: str | None, fi: Any) -> int:
        self.handles.pop(fi.fh, None)
        return 0

    def opendir(self, path: str) -> int:
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = self._lookup(path)
        return fh

    def readdir(self, path: str | None, fh: int) -> list[tuple[str, dict[str, int], int]]:
        node = self.handles.get(fh) or self._node(path)
        # With an inode number: readdir(3) skips entries whose d_ino is 0.
        listing = [(".", node), ("..", node), *node.entries.items()]
        return [(name, {"st_ino": n.ino, "st_mode": n.mode}, 0) for name, n in listing]

    def fsyncdir(self, path: str | None, datasync: int, fh: int) -> int:
        self._sync_dir(self.handles.get(fh) or self._node(path))
        return 0

    def releasedir(self, path: str | None, fh: int) -> int:
        self.handles.pop(fh, None)
        return 0


# Everything the power-cut tests run in processes of their own: the filesystem and the writer.
PRELOAD = ["__main__", "mfusepy", "tests.lossyfs", "tests.crash_writer"]  # __main__: pytest, once


def processes() -> multiprocessing.context.ForkServerContext:
    """Processes forked from one server that has already imported PRELOAD.

    A new filesystem or writer then costs a fork (milliseconds) rather than a Python start and
    its imports (0.1 to 0.2 s of CPU each), which would be most of a cut's cost."""
    ctx = multiprocessing.get_context("forkserver")
    # Without libfuse, importing mfusepy raises OSError, which the fork server does not catch (only
    # ImportError): it would die, and every process asked of it fail with an EOFError. The tests
    # that need FUSE are skipped then (``fuse_usable``); the others still get their processes.
    ctx.set_forkserver_preload([m for m in PRELOAD if m != "mfusepy" or fuse_missing() is None])
    return ctx


def fuse_missing() -> str | None:
    """Why mfusepy does not import (it needs libfuse), or None when it does."""
    try:
        import mfusepy  # noqa: F401  (loads libfuse)
    except (ImportError, OSError) as e:
        return f"mfusepy or libfuse is missing ({e}); on Debian: apt install fuse3"
    return None


def serve(store: Path, mountpoint: Path) -> None:
    """The filesystem's process: serves MOUNTPOINT from STORE until it is killed (or unmounted)."""
    import mfusepy

    class FUSE(mfusepy.FUSE):
        def truncate_fuse_3(self, path: bytes | None, length: int, fip: Any) -> int:
            # mfusepy drops the handle of an ftruncate(2); with nullpath_ok it is all there is.
            name = None if path is None else path.decode(self.encoding, self.errors)
            return self.operations.truncate(name, length, fip.contents if fip else None)

    log = os.open(store / "lossyfs.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)  # mfusepy logs an operation that raised: kept for the test to read
    os.dup2(log, 2)
    FUSE(LossyFS(store), str(mountpoint), foreground=True, nothreads=True, raw_fi=True, fsname="lossyfs")


class Disk:
    """A LossyFS mounted in a process of its own, whose power a test can cut."""

    def __init__(self, store: Path, mountpoint: Path) -> None:
        self.store, self.mountpoint = store, mountpoint
        self.store.mkdir(parents=True, exist_ok=True)
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self.processes = processes()
        self.proc: multiprocessing.process.BaseProcess | None = None

    def mount(self, timeout: float = 10.0) -> None:
        """The power comes on: the filesystem starts from STORE; returns once the mount is there."""
        self.proc = self.processes.Process(target=serve, args=(self.store, self.mountpoint))
        self.proc.start()
        deadline = time.monotonic() + timeout
        while not os.path.ismount(self.mountpoint):
            if not self.proc.is_alive() or time.monotonic() > deadline:
                self.cut()
                raise RuntimeError(f"lossyfs did not mount on {self.mountpoint}: {self.log()}")
            time.sleep(0.002)

    def cut(self) -> None:
        """The power cut: the filesystem dies with its volatile state; the dead mount is detached."""
        if self.proc is not None:
            self.proc.kill()  # SIGKILL
            self.proc.join()
            self.proc = None
        if os.path.ismount(self.mountpoint) or _dead_mount(self.mountpoint):
            subprocess.run(["umount", "--lazy", str(self.mountpoint)], check=True, capture_output=True)

    close = cut  # the power off for good: no process left, nothing mounted

    def stats(self) -> dict[str, int]:
        """How many writes, fsyncs and directory fsyncs arrived, over all mounts so far (as of the last sync)."""
        path = self.store / "stats.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def log(self) -> str:
        """The end of what the filesystem printed (mfusepy logs an operation that raised)."""
        path = self.store / "lossyfs.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""


def _dead_mount(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as e:
        return e.errno == errno.ENOTCONN  # "transport endpoint is not connected": its server is gone
    return False


def fuse_usable() -> str | None:
    """Why FUSE cannot be used here, or None when it can."""
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if os.geteuid() != 0:
        return "mounting and detaching a FUSE filesystem here needs root"
    return fuse_missing()


if __name__ == "__main__":  # python -m tests.lossyfs STORE MOUNTPOINT, to look around by hand
    serve(Path(sys.argv[1]), Path(sys.argv[2]))
