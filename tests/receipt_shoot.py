"""Draws the docs' receipts: ``python -m tests.receipt_shoot DIR`` writes receipt-58mm.png and
receipt-80mm.png, an evening's game at "The Red Lion", table 3, as the printer prints them."""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kiosk.printer_config import printer_config
from kiosk.receipt import facts_of
from kiosk.receipt_escpos import receipt_of
from kiosk.receipt_image import receipt_image
from kiosk.recovery import open_store
from kiosk.table import Table
from shared.game_state import GameState
from tests.helpers import ROOT

URL = "http://clabber-3.local:8080"


def evening_game(folder: Path) -> GameState:
    """examples/game.json played from 20:05 (UTC), a hand every nine minutes, with hand 1 corrected."""
    moment = [datetime(2026, 3, 14, 20, 5, tzinfo=UTC)]

    def clock() -> str:
        moment[0] += timedelta(minutes=9)
        return moment[0].isoformat(timespec="milliseconds")

    store, _ = open_store(folder / "clabber.db", folder / "backups")
    table = Table(store, clock=clock)
    record: dict[str, Any] = json.loads((ROOT / "examples" / "game.json").read_text())
    g = table.new_game(list(record["teams"].values()), ["Ron", "Zoë", "Carolyn", "Łukasz"], "evansville", "N")
    for hand in record["hands"]:
        g = table.add_hand(g.id, {k: v for k, v in hand.items() if k != "dealer"})
    table.set_pin("739146")
    fixed = {**record["hands"][0], "points": {"NS": 80, "EW": 82}}
    fixed.pop("dealer")
    g = table.correct(g.id, 1, fixed, "points read wrong", "739146")
    store.close()
    return g


def shoot(out: Path) -> list[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        g = evening_game(Path(tmp))
    written = []
    for paper in (58, 80):
        cfg = printer_config({"paper": paper})
        rcpt = receipt_of(
            facts_of(g), cfg, url=f"{URL}/g/{g.token}", bar_name="The Red Lion", table_name="Table 3", tz=UTC
        )
        path = out / f"receipt-{paper}mm.png"
        receipt_image(rcpt, cfg.dots).save(path, optimize=True)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in shoot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images")):
        print(path)
