"""The test's agent inside the booted image (tests/image/run.py puts it there, never the image
itself): answers the host over a virtio serial port, one JSON line each way.

``{"run": [...], "user": "clabber"?, "timeout": s?}`` runs a command and answers its status and
output; ``{"drive": seed, "synchronous": "OFF"?}`` starts the hand driver, whose every
acknowledged hand is passed on at once as ``{"ack": [game, hands]}``.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

PORT = "/dev/virtio-ports/clabber.test"
VENV_PYTHON = "/opt/clabber/venv/bin/python"
DRIVER = "/usr/local/lib/clabber-test/driver.py"


def main() -> None:
    while not os.path.exists(PORT):
        time.sleep(0.2)
    port = open(PORT, "r+b", buffering=0)  # noqa: SIM115  # open for the agent's whole life
    lock = threading.Lock()

    def say(message: dict) -> None:
        with lock:
            port.write((json.dumps(message) + "\n").encode())

    say({"hello": time.clock_gettime(time.CLOCK_BOOTTIME)})
    buffer = b""
    while True:
        chunk = port.read(4096)
        if not chunk:
            time.sleep(0.05)
            continue
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            ask = json.loads(line)
            if "run" in ask:
                threading.Thread(target=run, args=(ask, say), daemon=True).start()
            elif "drive" in ask:
                threading.Thread(target=drive, args=(ask, say), daemon=True).start()


def run(ask: dict, say) -> None:
    command = ask["run"]
    if ask.get("user"):
        command = ["runuser", "-u", ask["user"], "--", *command]
    try:
        r = subprocess.run(command, capture_output=True, text=True, timeout=ask.get("timeout", 120))
        say({"id": ask.get("id"), "rc": r.returncode, "out": r.stdout, "err": r.stderr})
    except subprocess.TimeoutExpired:
        say({"id": ask.get("id"), "rc": -1, "out": "", "err": "timed out"})


def drive(ask: dict, say) -> None:
    env = {**os.environ, "CLABBER_TEST_SYNCHRONOUS": ask.get("synchronous") or ""}
    command = ["runuser", "-u", "clabber", "--", VENV_PYTHON, DRIVER, "/var/lib/clabber/clabber.db", str(ask["drive"])]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as p:
        assert p.stdout is not None
        for line in p.stdout:
            words = line.split()
            if words[:1] == ["saved"]:
                say({"ack": [int(words[1]), int(words[2])]})
            else:
                say({"driver": line.rstrip()})
    say({"driver_exit": p.returncode})


if __name__ == "__main__":
    main()
