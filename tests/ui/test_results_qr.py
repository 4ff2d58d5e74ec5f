"""Scanning the game-over screen opens the result: the QR the kiosk draws, read by a real decoder."""

from __future__ import annotations

import zxingcpp
from PIL import Image

from tests.ui.flows import quick_hand, start_game
from tests.web_helpers import Server


def test_the_game_over_qr_opens_the_result_page(kiosk, tmp_path):
    server = Server(kiosk.db)
    try:
        kiosk.root.public_url = server.base
        start_game(kiosk, "Ruminers", "Mackeys")
        quick_hand(kiosk, "E", "H", "70", team="NS")
        while kiosk.root.manager.current != "over":
            quick_hand(kiosk, "W", "S", "0", team="NS")  # EW take every trick
        shot = kiosk.screenshot(tmp_path / "over.png")
        found = zxingcpp.read_barcodes(Image.open(shot))
        assert len(found) == 1
        g = kiosk.table.game(kiosk.root.game_id)
        assert found[0].text == f"{server.base}/g/{g.token}"
        status, _, html = server.get(found[0].text)
        assert status == 200 and "Mackeys win." in html
        assert f">{g.sheet.totals[1]} W<" in html and f">{g.sheet.totals[0]}<" in html
    finally:
        server.close()
