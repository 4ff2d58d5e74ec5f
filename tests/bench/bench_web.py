"""Result-page benchmark: 50 concurrent clients for 10 s on loopback with wrk, while another
process keeps saving hands through the controller.

Run with ``./run bench web`` (needs wrk: ``sudo apt install wrk``). Prints p50 and p99; asserts nothing.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.helpers import ROOT
from tests.store_helpers import open_table
from tests.web_helpers import Server


def main() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("bench web needs wrk: sudo apt install wrk")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "clabber.db"
        table = open_table(db)
        game = table.new_game(["Ruminers", "Mackeys"], ["Ron", "Elbert", "Carolyn", "Walter"], first_dealer="N")
        game = table.add_hand(game.id, {"trump": "H", "maker": "E", "points": {"NS": 70, "EW": 92}})
        while game.status == "open":
            game = table.add_hand(game.id, {"trump": "S", "maker": "N", "points": {"NS": 130, "EW": 32}})
        table.store.close()
        server = Server(db)
        writer = subprocess.Popen(
            [sys.executable, "-m", "tests.crash_writer", str(db), "1"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            run = subprocess.run(
                ["wrk", "-t2", "-c50", "-d10s", "--latency", f"{server.base}/g/{game.token}"],
                capture_output=True,
                text=True,
                timeout=60,
            )
        finally:
            writer.send_signal(signal.SIGTERM)
            saved_out, writer_err = writer.communicate()
            server_err = server.close()
    out = run.stdout
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    requests = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    saves = sum(1 for line in saved_out.splitlines() if line.startswith("saved"))
    failed_saves = "Traceback" in writer_err and "KeyboardInterrupt" not in writer_err
    print("Clabber result-page benchmark: 50 connections, 10 s, loopback, while hands are being saved")
    print(
        f"requests {requests.group(1) if requests else '?'}   p50 {p50.group(1) if p50 else '?'}"
        f"   p99 {p99.group(1) if p99 else '?'} (target <= 20 ms)"
    )
    print(
        f"errors: non-2xx {non2xx.group(1) if non2xx else 0}, socket {socket_errors.group(1) if socket_errors else 0}"
        f"   hands saved meanwhile {saves}, failed saves {'yes' if failed_saves else 0}"
    )
    if "Traceback" in server_err:
        print("the server failed:", server_err[-800:])


if __name__ == "__main__":
    main()
