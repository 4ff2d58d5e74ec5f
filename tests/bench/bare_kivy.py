"""The yardstick for the kiosk's start: a bare Kivy app showing one label, configured the same way."""

from __future__ import annotations

import sys

from kiosk.ui.boot import Display, configure


def main() -> None:
    configure(Display(headless=True, maxfps=0))
    from kivy.app import App
    from kivy.core.window import Window
    from kivy.uix.label import Label

    from kiosk.ui.app import _rss_kb

    class Bare(App):
        def build(self) -> Label:
            Window.bind(on_flip=self.first)
            return Label(text="Clabber")

        def first(self, *_: object) -> None:
            Window.unbind(on_flip=self.first)
            print(f"first-frame rss_kb={_rss_kb()}", flush=True)
            self.stop()

    Bare().run()
    sys.exit(0)


if __name__ == "__main__":
    main()
