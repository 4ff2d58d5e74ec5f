"""Every screen at both panel sizes, in one walk: read as a player a metre away would (no text under
3.5 mm capitals, no target under 9 mm, nothing under 4.5:1 contrast, no text outside its box), and a
screenshot of each into tests/screenshots/, none of them blank."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PIL import Image

from tests.helpers import ROOT
from tests.ui.conftest import SCREENSHOTS

NAMES = [
    "01-start",
    "02-start-first-dealer",
    "03-jack-draw",
    "04-start-names",
    "05-sheet",
    "06-meld-picker",
    "07-quick-entry",
    "07b-quick-entry-too-many",
    "07c-renege-dialog",
    "07d-round-and-up-card",
    "07e-quick-entry-error",
    "08-summary",
    "09-card-by-card",
    "10-renege-question",
    "10b-summary-renege",
    "11-replay",
    "11a-card-by-card-melds",
    "11b-bell",
    "12-owner-pin",
    "12-owner-pin-locked",
    "13-owner-menu",
    "14-owner-settings",
    "14a-owner-updates",
    "14b-owner-updates-older",
    "15-game-over",
    "16-league-tonight",
    "17-league-unscheduled",
    "18-league-draw",
    "18a-league-quick-entry",
    "19-league-sheet-ruling",
    "20-league-game-over",
    "21-league-standings-qr",
    "22-league-tonight-unreachable",
    "23-owner-league",
    "24-owner-leave",
    "25-owner-join",
    "26-owner-statistics",
    "27-replay-costly-card",
    "28-replay-hindsight",
]


@pytest.mark.parametrize("size", [(800, 480), (720, 1280)], ids=["800x480", "720x1280"])
def test_every_screen_at_both_sizes_is_readable_from_a_metre_and_drawn(size):
    folder = SCREENSHOTS / f"{size[0]}x{size[1]}"
    for old in folder.glob("*.png"):
        old.unlink()
    run = subprocess.run(
        [sys.executable, "-m", "tests.ui.shoot", f"{size[0]}x{size[1]}", str(folder), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, (run.stdout + run.stderr[-3000:])[-6000:]
    assert run.stdout.strip() == "no problems", run.stdout
    for name in NAMES:
        image = Image.open(folder / f"{name}.png").convert("RGB")
        assert image.size == size
        colours = image.getcolors(maxcolors=1 << 20)
        assert colours is None or len(colours) > 12, f"{name} at {size} looks blank"
        if colours:
            background = max(colours)[1]
            busy = sum(n for n, c in colours if c != background)
            assert busy > size[0] * size[1] * 0.05, f"{name} at {size} is nearly empty"
