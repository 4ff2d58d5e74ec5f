"""A booted container: an installed root run by systemd-nspawn with systemd as its PID 1.

The host needs only root and systemd-container; where the host itself is not run by systemd (a
CI machine's container), nspawn is told to keep to the process it was started in."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.helpers import unavailable


def prepare_host() -> None:
    """What nspawn needs of a host not booted with systemd: the systemd cgroup hierarchy (cgroup
    v1 hosts) and a tmpfs where nspawn keeps its mount propagation folders."""
    if os.geteuid() != 0:
        unavailable("booting a container needs root")
    for tool in ("systemd-nspawn", "mmdebstrap", "nsenter"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            unavailable(f"{tool} is not installed (deploy/test-setup.sh installs it)")
    if Path("/run/systemd/system").exists():
        return  # a host run by systemd has all of it
    v1 = Path("/sys/fs/cgroup/systemd")
    if not Path("/sys/fs/cgroup/cgroup.controllers").exists() and not os.path.ismount(v1):
        v1.mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "cgroup", "-o", "none,name=systemd", "cgroup", str(v1)], check=True)
    propagate = Path("/run/systemd/nspawn")
    if not os.path.ismount(propagate):
        propagate.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", str(propagate)], check=True)


class Container:
    """One boot of ``root``: started by :meth:`boot`, ended by :meth:`poweroff` or :meth:`kill`."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        self.log = root.parent / f"{name}.console.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.leader = 0

    def boot(self, timeout: float = 180) -> str:
        """Starts the container and waits until systemd has finished starting it: its state."""
        args = ["systemd-nspawn", "-q", "-D", str(self.root), f"--machine={self.name}", "--boot"]
        args += ["--private-network", "--console=pipe", "--link-journal=no"]
        if not Path("/run/systemd/system").exists():
            args += ["--register=no", "--keep-unit"]  # no systemd on the host to register with
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while not self.leader:
            if self.process.poll() is not None:
                raise AssertionError(f"the container stopped at once:\n{self.log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError("the container's systemd never started")
            self.leader = self._systemd_below(self.process.pid)
            time.sleep(0.2)
        # PID 1 is there a moment before its bus is: until then systemctl cannot ask and prints no
        # state, so it is asked again.
        while True:
            left = max(1.0, deadline - time.monotonic())
            state = self.run("systemctl", "is-system-running", "--wait", timeout=left).stdout.strip()
            if state or time.monotonic() > deadline:
                return state
            time.sleep(0.5)

    def _systemd_below(self, pid: int) -> int:
        """The container's PID 1 as the host sees it: the first ``systemd`` among nspawn's descendants."""
        todo = [pid]
        while todo:
            p = todo.pop()
            try:
                children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
                if p != pid and Path(f"/proc/{p}/comm").read_text().strip() == "systemd":
                    return p
            except OSError:
                continue
            todo += [int(c) for c in children]
        return 0

    def run(self, *args: str, timeout: float = 60, input: str | None = None) -> subprocess.CompletedProcess[str]:
        """A command inside the container, in all of its namespaces, as root."""
        return subprocess.run(
            ["nsenter", "-t", str(self.leader), "-m", "-u", "-i", "-n", "-p", "-C", "--", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
        )

    def host_pid(self, unit: str) -> int:
        """A unit's main process as the host numbers it (for signals sent from outside)."""
        inside = self.run("systemctl", "show", "-p", "MainPID", "--value", unit).stdout.strip()
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                lines = status.read_text().splitlines()
            except OSError:
                continue
            ns = next((line.split()[1:] for line in lines if line.startswith("NSpid:")), [])
            if len(ns) >= 2 and ns[-1] == inside and self._inside(int(status.parent.name)):
                return int(status.parent.name)
        raise AssertionError(f"{unit}'s process {inside} not found from the host")

    def _inside(self, pid: int) -> bool:
        try:
            return os.readlink(f"/proc/{pid}/ns/pid") == os.readlink(f"/proc/{self.leader}/ns/pid")
        except OSError:
            return False

    def poweroff(self, timeout: float = 90) -> int:
        """A clean shutdown, as the power button's: the container's exit status."""
        assert self.process is not None
        os.kill(self.leader, signal.SIGRTMIN + 4)  # systemd: poweroff
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        """Ends the container at once: its PID 1 killed takes every process in it."""
        if self.process is not None and self.process.poll() is None:
            if self.leader:
                os.kill(self.leader, signal.SIGKILL)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
