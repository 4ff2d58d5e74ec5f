import tempfile
from pathlib import Path
from kiosk.ui.boot import Display, configure
configure(Display(720, 1280, headless=True, maxfps=0), kivy_home=Path(tempfile.mkdtemp()))
from tests.ui.harness import Kiosk, PORTRAIT
from tests.ui.flows import start_game
from tests.ui import layout
with tempfile.TemporaryDirectory() as tmp:
    k = Kiosk(Path(tmp)/"c.db", size=PORTRAIT, lights=True)
    start_game(k)
    k.tap("card_by_card"); k.frames(3)
    for wid in ("strip","maker_N","trick","so_far","melds","done","grid"):
        x=k.widget(wid); print(wid, layout.box(x))
    print("header", layout.box(k.root.header), k.root.header.height)
    g=k.widget("grid"); print(g.parent, layout.box(g.parent), g.minimum_height)
    c=k.widget("maker_N").parent.parent; print(layout.box(c), c.height)
    k.close()
