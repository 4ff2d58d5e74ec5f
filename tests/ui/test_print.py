"""The game-over screen's Print button: the receipt goes to the printer without the screen waiting;
an empty roll is said in words, with a retry that prints the whole receipt; no printer set up, no
button."""

from __future__ import annotations

from escpos.printer import Dummy

from kiosk.printer import ReceiptPrinter
from kiosk.printer_config import printer_config
from kiosk.receipt_escpos import dummy
from tests.escpos_bytes import read
from tests.ui.flows import quick_hand, start_game

USB = {"connection": "usb", "device": "/dev/usb/lp0"}


class Roll(Dummy):
    """python-escpos's Dummy printer with a paper sensor: empty at first, then a new roll."""

    def __init__(self) -> None:
        super().__init__()
        self.papers = [0, 2]

    def open(self) -> None:
        pass

    def paper_status(self) -> int:  # as python-escpos reports it: 2 plenty, 0 out
        return self.papers.pop(0) if len(self.papers) > 1 else self.papers[0]


def _to_game_over(kiosk) -> None:
    start_game(kiosk, "Ruminers", "Mackeys")
    quick_hand(kiosk, "E", "H", "70", team="NS")
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "W", "S", "0", team="NS")  # EW take every trick


def wait_for(kiosk, condition, seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.1)):
        if condition():
            return
        kiosk.wait(0.1)
    raise AssertionError("the printer did not answer in time")


def test_print_then_retry_after_an_empty_roll(kiosk):
    roll = Roll()
    kiosk.root.receipts = ReceiptPrinter(
        printer_config(USB), base_url="http://kiosk.local:8080", opener=lambda _c: roll
    )
    kiosk.root.public_url = "http://kiosk.local:8080"
    _to_game_over(kiosk)
    assert kiosk.text("print") == "Print" and kiosk.widget("print").opacity == 1
    kiosk.tap("print")
    wait_for(kiosk, lambda: kiosk.text("print") == "Print again")
    assert "out of paper" in kiosk.text("print_note") and roll.output == b""
    kiosk.tap("print")
    wait_for(kiosk, lambda: kiosk.text("print") == "Print")
    assert "printed" in kiosk.text("print_note")
    g = kiosk.table.game(kiosk.root.game_id)
    printed = read(roll.output, dummy(printer_config(USB)).profile.get_code_pages())
    assert printed.qr == [f"http://kiosk.local:8080/g/{g.token}".encode()]
    kiosk.root.receipts.close()


def test_without_a_printer_there_is_no_print_button(kiosk):
    _to_game_over(kiosk)
    assert kiosk.widget("print").opacity == 0 and kiosk.widget("print").disabled


def test_the_owner_prints_a_recent_game_again_marked_as_a_reprint(kiosk):
    from tests.ui.test_owner import PIN, type_pin

    roll = Roll()
    roll.papers = [2]
    kiosk.root.receipts = ReceiptPrinter(printer_config(USB), base_url="http://kiosk.local", opener=lambda _c: roll)
    kiosk.table.set_pin(PIN)
    _to_game_over(kiosk)
    first = kiosk.root.game_id
    kiosk.tap("new_game")
    start_game(kiosk, "Aces", "Kings", new=False)
    quick_hand(kiosk, "E", "H", "70", team="NS")
    kiosk.tap("owner")
    type_pin(kiosk, PIN)
    kiosk.tap("reprint")
    assert kiosk.screen.step == "reprint"
    kiosk.tap(f"reprint_{first}")
    wait_for(kiosk, lambda: "printed" in kiosk.text("printed"))
    printed = read(roll.output, dummy(printer_config(USB)).profile.get_code_pages())
    text = "\n".join(printed.lines)
    assert "REPRINT" in text and "Ruminers" in text and "Mackeys" in text
    kiosk.root.receipts.close()
