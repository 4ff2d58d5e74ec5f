"""Every screen at both panel sizes, read as a player a metre away would: no text under 3.5 mm
capitals, no target under 9 mm, nothing under 4.5:1 contrast, no text outside its box."""

from __future__ import annotations

import pytest

from tests.ui.harness import LANDSCAPE, PORTRAIT, Kiosk
from tests.ui.readability import problems
from tests.ui.shoot import every_screen


@pytest.mark.parametrize("size", [LANDSCAPE, PORTRAIT], ids=["800x480", "720x1280"])
def test_every_screen_is_readable_from_a_metre(tmp_path, size):
    k = Kiosk(tmp_path / "clabber.db", size=size)
    found: list[str] = []
    try:

        def look(name: str) -> None:
            k.frames(3)
            found.extend(problems(name))

        every_screen(k, size, look)
    finally:
        k.close()
        k.resize(LANDSCAPE)
    assert not found, f"{len(found)} problems:\n" + "\n".join(found[:80])
