"""One emulated Raspberry-Pi-like machine: the card image booted by qemu-system-aarch64 (-M virt,
emulated, no KVM) through U-Boot (Debian's u-boot-qemu in the place of the Pi's u-boot-rpi), which
runs the card's own boot script, picks its system slot and starts that slot's kernel; with a
virtio display, the result pages forwarded to a host port, QEMU's monitor for screendumps, and the
test's agent on a virtio serial port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from PIL import Image

# The official 7" panel's size: the kiosk takes the display's mode, and the references are drawn at it.
SCREEN = (800, 480)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


U_BOOT = Path("/usr/lib/u-boot/qemu_arm64/u-boot.bin")  # Debian's u-boot-qemu: the emulated board's boot loader


class Machine:
    """A boot of ``disk``: :meth:`power_on`, then the agent's :meth:`run`, :meth:`screendump`;
    :meth:`cut_power` kills QEMU as a pulled plug would (the guest's unflushed writes are lost:
    the disk is opened with cache=none, so nothing waits in the host's page cache either)."""

    def __init__(self, disk: Path, work: Path, league_port: int) -> None:
        self.disk, self.work = disk, work
        self.league_port = league_port
        self.web_port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.powered_at = 0.0
        self.acks: list[tuple[int, int]] = []
        self.hello = threading.Event()
        self.notes: list[str] = []
        self._answers: dict[int, dict[str, Any]] = {}
        self._answered = threading.Condition()
        self._next = 0
        self._channel: socket.socket | None = None
        self.boots = 0

    def power_on(self, rtc: str | None = None) -> None:
        self.boots += 1
        monitor, channel = self.work / "monitor.sock", self.work / "agent.sock"
        for path in (monitor, channel):
            path.unlink(missing_ok=True)
        args = ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "2048"]
        args += ["-accel", "tcg,thread=multi", "-bios", str(U_BOOT)]
        args += ["-no-reboot", "-nodefaults", "-display", "none"]
        args += ["-drive", f"file={self.disk},format=raw,if=none,id=card,cache=none,aio=threads"]
        args += ["-device", "virtio-blk-pci,drive=card"]
        args += ["-device", f"virtio-gpu-pci,xres={SCREEN[0]},yres={SCREEN[1]}"]
        args += ["-device", "virtio-rng-pci", "-device", "virtio-keyboard-pci", "-device", "virtio-tablet-pci"]
        args += ["-device", "qemu-xhci,id=usb"]  # the Pi's USB ports, for the backup stick
        args += ["-netdev", f"user,id=net,hostfwd=tcp:127.0.0.1:{self.web_port}-:8080"]
        args += ["-device", "virtio-net-pci,netdev=net"]
        args += ["-chardev", f"socket,id=agent,path={channel},server=on,wait=off"]
        args += ["-device", "virtio-serial-pci", "-device", "virtserialport,chardev=agent,name=clabber.test"]
        args += [
            "-monitor",
            f"unix:{monitor},server,nowait",
            "-serial",
            f"file:{self.work / f'console-{self.boots}.log'}",
        ]
        if rtc:
            args += ["-rtc", f"base={rtc}"]
        self.hello.clear()
        self.powered_at = time.monotonic()
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while not channel.exists():
            if self.process.poll() is not None:
                said = self.process.stderr.read() if self.process.stderr else b""
                raise RuntimeError(f"qemu stopped at once: {said.decode()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("qemu made no agent socket")
            time.sleep(0.1)
        self._channel = socket.socket(socket.AF_UNIX)
        self._channel.connect(str(channel))
        threading.Thread(target=self._listen, args=(self._channel,), daemon=True).start()

    def since_power_on(self) -> float:
        return time.monotonic() - self.powered_at

    def _listen(self, channel: socket.socket) -> None:
        buffer = b""
        while True:
            try:
                chunk = channel.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # a line cut by a power cut
                if "ack" in message:
                    self.acks.append((message["ack"][0], message["ack"][1]))
                elif "hello" in message:
                    self.hello.set()
                elif "id" in message:
                    with self._answered:
                        self._answers[message["id"]] = message
                        self._answered.notify_all()
                else:
                    self.notes.append(json.dumps(message))

    def wait_for_agent(self, timeout: float = 900) -> float:
        """Seconds from power-on until the agent (started by the guest's systemd) spoke."""
        if not self.hello.wait(timeout):
            raise RuntimeError(f"no word from the machine in {timeout:.0f} s; console: {self.console()[-2000:]}")
        return self.since_power_on()

    def send(self, message: dict[str, Any]) -> None:
        assert self._channel is not None
        self._channel.sendall((json.dumps(message) + "\n").encode())

    def run(self, *command: str, user: str | None = None, timeout: float = 300) -> dict[str, Any]:
        """A command inside the machine (as root, or ``user``): its ``rc``, ``out`` and ``err``."""
        self._next += 1
        ask = self._next
        self.send({"id": ask, "run": list(command), "user": user, "timeout": timeout})
        deadline = time.monotonic() + timeout + 30
        with self._answered:
            while ask not in self._answers:
                if not self._answered.wait(max(0.1, deadline - time.monotonic())) and time.monotonic() > deadline:
                    raise RuntimeError(f"no answer to {command}")
            return self._answers.pop(ask)

    def monitor(self, *commands: str) -> str:
        """Commands to QEMU's monitor, answered in order; what it said."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(30)
            s.connect(str(self.work / "monitor.sock"))
            for command in commands:
                s.sendall(f"{command}\n".encode())
            s.sendall(b"info version\n")  # answered after the commands before it
            seen = b""
            while b"info version" not in seen or not seen.rstrip().endswith(b"(qemu)"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                seen += chunk
        return seen.decode(errors="replace")

    def screendump(self, path: Path) -> Image.Image | None:
        """The virtual screen as QEMU's monitor dumps it (None before the display has a mode)."""
        path.unlink(missing_ok=True)
        self.monitor(f"screendump {path}")
        if not path.exists() or path.stat().st_size < 100:
            return None
        with Image.open(path) as image:
            return image.convert("RGB")

    def plug_stick(self, stick: Path) -> None:
        """A USB stick (a raw disk image) plugged into the running machine."""
        said = self.monitor(
            f"drive_add 0 if=none,id=stick,format=raw,cache=none,file={stick}",
            "device_add usb-storage,bus=usb.0,drive=stick,id=stick-device,removable=on",
        )
        if "Error" in said or "error" in said:
            raise RuntimeError(f"plugging the stick in: {said}")

    def pull_stick(self) -> None:
        self.monitor("device_del stick-device")

    def cut_power(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=30)
        self._close()

    def shut_down(self, timeout: float = 300) -> int:
        assert self.process is not None
        self.send({"id": 0, "run": ["systemctl", "poweroff"]})
        code = self.process.wait(timeout=timeout)
        self._close()
        return code

    def _close(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None

    def console(self) -> str:
        try:
            return (self.work / f"console-{self.boots}.log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.cut_power()


def environment_ok() -> str | None:
    """Why this machine cannot run the boot, or None."""
    if os.geteuid() != 0:
        return "booting the image needs root (the card's root filesystem is mounted to add the test's agent)"
    for tool in ("qemu-system-aarch64", "sfdisk", "xz", "mcopy"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            return f"{tool} is not installed (apt-get install qemu-system-arm fdisk xz-utils mtools)"
    if not U_BOOT.is_file():
        return f"no {U_BOOT} (apt-get install u-boot-qemu)"
    return None
