"""What a player a metre away would notice on the drawn screen: small text, small targets, low
contrast, text that does not fit its box. Measured on the real window, in millimetres of the panel."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.core.window import Window
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView

from kiosk.ui import theme

MIN_CONTRAST = 4.5
_COLOR = re.compile(r"\[color=#?([0-9a-fA-F]{6})\]")
_SIZE = re.compile(r"\[size=(\d+(?:\.\d+)?)\]")
_TAGS = re.compile(r"\[/?[a-z]+(?:=[^\]]*)?\]")


def _shown(w: Any) -> bool:
    """Drawn and not see-through, all the way up."""
    while w is not None and w is not Window:
        if w.opacity <= 0.01 or w.width < 1 or w.height < 1:
            return False
        w = w.parent
    return True


def _box(w: Any) -> tuple[float, float, float, float]:
    x, y = w.to_window(w.x, w.y)
    return x, y, x + w.width, y + w.height


def _visible_part(w: Any) -> tuple[float, float, float, float] | None:
    """The part of the widget inside the window and inside any scrolling view around it."""
    x0, y0, x1, y1 = _box(w)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, Window.width), min(y1, Window.height)
    p = w.parent
    while p is not None and p is not Window:
        if isinstance(p, ScrollView):
            a0, b0, a1, b1 = _box(p)
            x0, y0, x1, y1 = max(x0, a0), max(y0, b0), min(x1, a1), min(y1, b1)
        p = p.parent
    return (x0, y0, x1, y1) if x1 - x0 >= 1 and y1 - y0 >= 1 else None


def _layers() -> list[Any]:
    """What a finger can reach: the topmost pop-up if one is open, else the kiosk."""
    popups = [w for w in Window.children if isinstance(w, ModalView)]
    return [popups[0]] if popups else [w for w in Window.children if not isinstance(w, ModalView)]


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
    base = label.disabled_color if label.disabled else label.color
    colours = [tuple(base)]
    if label.markup:
        for hexa in _COLOR.findall(label.text):
            colours.append(tuple(int(hexa[i : i + 2], 16) / 255 for i in (0, 2, 4)))
    return colours


def _font_sizes(label: Label) -> list[float]:
    sizes = [float(label.font_size)]
    if label.markup:
        sizes += [float(s) for s in _SIZE.findall(label.text)]
    return sizes


def _plain(label: Label) -> str:
    return _TAGS.sub("", label.text) if label.markup else label.text


def _word_too_wide(label: Label) -> str | None:
    """A word wider than the wrapping width: it would be broken in the middle."""
    if label.text_size[0] is None or label.shorten:
        return None
    width = label.text_size[0]
    for word in set(_plain(label).split()):
        core = CoreLabel(text=word, font_size=max(_font_sizes(label)), bold=label.bold, font_name=label.font_name)
        core.refresh()
        if core.texture.size[0] > width + 1:
            return word
    return None


def problems(where: str) -> list[str]:
    """Every readability problem of what is on the screen now."""
    ppmm = theme.px_per_mm
    min_font = theme.MIN_CAP_MM * ppmm / theme.CAP_PER_EM
    min_target = theme.MIN_TARGET_MM * ppmm
    px = _pixels()
    found: list[str] = []
    buttons: list[tuple[Any, tuple[float, float, float, float]]] = []
    for layer in _layers():
        for w in layer.walk(restrict=True):
            if not isinstance(w, Label) or not _shown(w):
                continue
            part = _visible_part(w)
            if part is None:
                continue
            name = f"{where}: {type(w).__name__} {_plain(w)[:30]!r}"
            if isinstance(w, Button) and not w.disabled:
                buttons.append((w, _box(w)))
                if min(w.width, w.height) < min_target - 0.5:
                    found.append(
                        f"{name}: target {w.width / ppmm:.1f}x{w.height / ppmm:.1f} mm, under {theme.MIN_TARGET_MM} mm"
                    )
                x0, y0, x1, y1 = _box(w)
                if x0 < -0.5 or y0 < -0.5 or x1 > Window.width + 0.5 or y1 > Window.height + 0.5:
                    found.append(f"{name}: off the screen")
            if not _plain(w).strip():
                continue
            if min(_font_sizes(w)) < min_font - 0.01:
                cap = min(_font_sizes(w)) * theme.CAP_PER_EM / ppmm
                found.append(f"{name}: capitals {cap:.2f} mm, under {theme.MIN_CAP_MM} mm")
            background = _background(px, part)
            for colour in _text_colours(w):
                ratio = theme.contrast(colour, background)
                if ratio < MIN_CONTRAST:
                    found.append(f"{name}: contrast {ratio:.2f}:1 on #{theme.hex_colour(background)}")
            w.texture_update()
            tw, th = w.texture_size
            if w.text_size[0] is not None and w.text_size[1] is not None:  # a fixed box clips: measure
                core = CoreLabel(
                    text=_plain(w),
                    font_size=max(_font_sizes(w)),
                    bold=w.bold,
                    font_name=w.font_name,
                    text_size=(w.text_size[0], None),
                    halign=w.halign,
                )
                core.refresh()
                th = max(th, core.texture.size[1])
            if not w.shorten and (tw > w.width + 2 or th > w.height + 2):
                found.append(f"{name}: text {tw:.0f}x{th:.0f} px in a box of {w.width:.0f}x{w.height:.0f}")
            word = _word_too_wide(w)
            if word:
                found.append(f"{name}: {word!r} is wider than its box and breaks mid-word")
    for i, (a, (ax0, ay0, ax1, ay1)) in enumerate(buttons):
        for b, (bx0, by0, bx1, by1) in buttons[i + 1 :]:
            if min(ax1, bx1) - max(ax0, bx0) > 1 and min(ay1, by1) - max(ay0, by0) > 1:
                found.append(f"{where}: {_plain(a)[:20]!r} and {_plain(b)[:20]!r} overlap")
    return found
