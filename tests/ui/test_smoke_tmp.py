from tests.ui.conftest import SCREENSHOTS


def test_start(kiosk):
    assert kiosk.root.manager.current == "start"
    kiosk.tap("new_game")
    print("step", kiosk.screen.step)
    from kivy.uix.button import Button
    ws = [w for w in kiosk.screen.walk() if isinstance(w, Button) and w.text == "R"]
    print(ws, [ (w.pos, w.size, w.to_window(*w.center), w.disabled, w.opacity) for w in ws])
    kiosk.tap_text("R")
    print(kiosk.screen.names)
    kiosk.screenshot(SCREENSHOTS / "tmp_start.png")
