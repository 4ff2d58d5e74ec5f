"""Every screen at both panel sizes, read as a player a metre away would: no text under 3.5 mm
capitals, no target under 9 mm, nothing under 4.5:1 contrast, no text outside its box."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.parametrize("size", [(800, 480), (720, 1280)], ids=["800x480", "720x1280"])
def test_every_screen_is_readable_from_a_metre(size):
    run = subprocess.run(
        [sys.executable, "-m", "tests.ui.shoot", f"{size[0]}x{size[1]}", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, (run.stdout + run.stderr[-3000:])[-6000:]
