"""A real Kivy window, drawn offscreen by SDL with Mesa, driven by simulated touches."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from kiosk.ui.boot import Display, configure

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"

configure(Display(headless=True, maxfps=0), kivy_home=Path(tempfile.mkdtemp(prefix="kivy-home-")))
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here drives a real Kivy window: all of them are slow."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def kiosk(tmp_path):
    """The kiosk on the 7" display, its layout checked after every tap, the seat lights drawn."""
    from tests.ui.harness import Kiosk

    k = Kiosk(tmp_path / "clabber.db", check_layout=True, lights=True)
    yield k
    k.close()


@pytest.fixture(params=["800x480", "720x1280"])
def kiosk_at_both_sizes(request, tmp_path):
    """The kiosk on each panel in turn (the flow tests use it: every screen they reach is checked
    at both sizes), its layout checked after every tap, the seat lights drawn."""
    from tests.ui.harness import LANDSCAPE, PORTRAIT, Kiosk

    k = Kiosk(tmp_path / "clabber.db", size=LANDSCAPE if request.param == "800x480" else PORTRAIT)
    k.check_layout = k.lights = True
    k._show_lights()
    yield k
    k.close()
