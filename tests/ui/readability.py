"""What a player a metre away would notice on the drawn screen: small text, small targets, low
contrast, text that does not fit its box. Measured on the real window, in millimetres of the panel."""

from __future__ import annotations

import re
from collections import Counter

from kivy.core.window import Window
from kivy.uix.button import Button
from kivy.uix.label import Label

from kiosk.ui import theme
from tests.ui import layout

MIN_CONTRAST = 4.5
_SIZE = re.compile(r"\[size=(\d+(?:\.\d+)?)\]")


def _pixels() -> tuple[bytes, int, int]:
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels

    w, h = Window.size
    return glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE), w, h


def _background(px: tuple[bytes, int, int], part: tuple[float, float, float, float]) -> tuple[float, ...]:
    """The colour most of the box is drawn in: what the text stands on."""
    data, w, h = px
    x0, y0, x1, y1 = (int(v) for v in part)
    step = max(1, int((x1 - x0) * (y1 - y0) / 4000) ** 1 // 1 or 1)
    counts: Counter[tuple[int, int, int]] = Counter()
    for y in range(max(y0, 0), min(y1, h), max(1, step // 2)):
        row = y * w * 3
        for x in range(max(x0, 0), min(x1, w), step):
            i = row + 3 * x
            counts[(data[i], data[i + 1], data[i + 2])] += 1
    (r, g, b), _ = counts.most_common(1)[0]
    return (r / 255, g / 255, b / 255)


def _text_colours(label: Label) -> list[tuple[float, ...]]:
    """The label's own colour (unless its markup colours all of it) and every colour its markup gives."""
    return layout.text_colours(label)


def _font_sizes(label: Label) -> list[float]:
    sizes = [float(label.font_size)]
    if label.markup:
        sizes += [float(s) for s in _SIZE.findall(label.text)]
    return sizes


def problems(where: str) -> list[str]:
    """Every readability problem of what is on the screen now, and every layout fault
    (tests/ui/layout.py)."""
    ppmm = theme.px_per_mm
    min_font = theme.MIN_CAP_MM * ppmm / theme.CAP_PER_EM
    min_target = theme.MIN_TARGET_MM * ppmm
    px = _pixels()
    found: list[str] = []
    for layer in layout.layers():
        for w in layer.walk(restrict=True):
            if not isinstance(w, Label) or not layout.shown(w):
                continue
            part = layout.meet(layout.box(w), layout.view_of(w))
            if part is None:
                continue
            name = f"{where}: {type(w).__name__} {layout.text_of(w)[:30]!r}"
            if isinstance(w, Button) and not w.disabled and min(w.width, w.height) < min_target - 0.5:
                found.append(
                    f"{name}: target {w.width / ppmm:.1f}x{w.height / ppmm:.1f} mm, under {theme.MIN_TARGET_MM} mm"
                )
            if not layout.text_of(w).strip():
                continue
            if min(_font_sizes(w)) < min_font - 0.01:
                cap = min(_font_sizes(w)) * theme.CAP_PER_EM / ppmm
                found.append(f"{name}: capitals {cap:.2f} mm, under {theme.MIN_CAP_MM} mm")
            background = _background(px, part)
            for colour in _text_colours(w):
                ratio = theme.contrast(colour, background)
                if ratio < MIN_CONTRAST:
                    found.append(f"{name}: contrast {ratio:.2f}:1 on #{theme.hex_colour(background)}")
    return found + layout.problems(where)
