"""systemd's notify protocol, without a library: READY=1 once drawing, WATCHDOG=1 while alive."""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Sends one message to systemd, if this process runs under it with Type=notify."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # an abstract socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.sendto(message.encode(), address)
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """How often to ping the watchdog (half its timeout, in seconds), or None without one."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2_000_000
