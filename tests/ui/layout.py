"""What a player would see is wrong with a screen's layout, read from the widgets as drawn: text cut by
its box or by the window, text that breaks a word in two, and two things drawn over each other.

Kivy never clips a label: text too big for its box is drawn over its neighbours. So the checks work
on the *ink* of each thing on the screen: a button's whole box (its background is drawn there), the
lines of text a label drew (where its texture puts them), a drawn shape's box (a seat light, the QR
code). Two inks that cross, where neither widget holds the other, are a fault a player would see.
"""

from __future__ import annotations

from typing import Any

from kivy.core.window import Window
from kivy.uix.button import Button
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in window pixels
SLACK = 1.0  # pixels: rounding in Kivy's own layout


def shown(w: Any) -> bool:
    """Drawn and not see-through, all the way up. (A box of no size still draws its text.)"""
    while w is not None and w is not Window:
        if w.opacity <= 0.01:
            return False
        w = w.parent
    return True


def box(w: Any) -> Rect:
    x, y = w.to_window(w.x, w.y)
    return x, y, x + w.width, y + w.height


def view_of(w: Any) -> Rect:
    """The part of the window where ``w`` can be seen: the window, inside every scrolling view around it."""
    area: Rect = (0.0, 0.0, float(Window.width), float(Window.height))
    p = w.parent
    while p is not None and p is not Window:
        if isinstance(p, ScrollView):
            area = meet(area, box(p)) or (0.0, 0.0, 0.0, 0.0)
        p = p.parent
    return area


def meet(a: Rect, b: Rect) -> Rect | None:
    """Where two rectangles cross, if they do by more than the slack."""
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x1 - x0 > SLACK and y1 - y0 > SLACK else None


def layers() -> list[Any]:
    """What a finger can reach: the topmost pop-up if one is open, else the kiosk."""
    popups = [w for w in Window.children if isinstance(w, ModalView)]
    return [popups[0]] if popups else [w for w in Window.children if not isinstance(w, ModalView)]


def text_of(label: Label) -> str:
    """The text a label shows, without its markup."""
    if not label.markup:
        return str(label.text)
    import re

    return (
        re.sub(r"\[/?[a-z]+(?:=[^\]]*)?\]", "", label.text)
        .replace("&bl;", "[")
        .replace("&br;", "]")
        .replace("&amp;", "&")
    )


def texture_rect(label: Label) -> Rect:
    """Where the label's texture is drawn: centred on the label, as Kivy's Label rule draws it."""
    label.texture_update()
    tw, th = label.texture_size
    x0, y0 = label.to_window(int(label.center_x - tw / 2.0), int(label.center_y - th / 2.0))
    return x0, y0, x0 + tw, y0 + th


def lines_of(label: Label) -> list[tuple[Rect, str]]:
    """Each line of text as drawn: its rectangle in the window, and its text."""
    core = label._label
    if core is None:
        return []
    x0, _y0, _x1, y1 = texture_rect(label)
    out = []
    for line in core._cached_lines:
        text = "".join(word.text for word in line.words)
        if not text.strip() or line.w < 1:
            continue
        top = y1 - line.y
        out.append(((x0 + line.x, top - line.h, x0 + line.x + line.w, top), text))
    return out


def broken_word(label: Label) -> str | None:
    """A word the label split across two lines, if any (a line ending where the text has no space)."""
    lines = [text for _, text in lines_of(label)]
    if len(lines) < 2 or getattr(label._label, "is_shortened", False):
        return None
    whole = text_of(label)
    at = 0
    for i, line in enumerate(lines[:-1]):
        part = line.strip()
        found = whole.find(part, at)
        if found < 0:
            return None  # the label changed its text (shortened, stripped): nothing to compare
        at = found + len(part)
        if at < len(whole) and not whole[at].isspace() and not part.endswith(("-", "–", "/")):
            nxt = lines[i + 1].strip().split(" ")[0]
            return part.split(" ")[-1] + "|" + nxt
    return None


def ink(w: Any) -> list[Rect]:
    """What of ``w`` is drawn on the screen: a button's box, a label's lines, an image's box."""
    if isinstance(w, Button):
        return [box(w)]
    if isinstance(w, Label):
        return [r for r, _ in lines_of(w)] if text_of(w).strip() else []
    if isinstance(w, Image) or (_is_shape(w) and len(w.canvas.children) > 0):
        return [box(w)]
    return []


def _is_shape(w: Any) -> bool:
    """A widget that draws something of its own (a seat light), not a container or a view."""
    from kivy.uix.layout import Layout
    from kivy.uix.stencilview import StencilView

    return not isinstance(w, (Layout, StencilView, Label))


def _name(where: str, w: Any) -> str:
    said = text_of(w)[:30] if isinstance(w, Label) else ""
    ident = next((k for k, v in _ids_around(w).items() if v is w), "")
    return f"{where}: {type(w).__name__}{' ' + ident if ident else ''} {said!r}"


def _ids_around(w: Any) -> dict[str, Any]:
    p = w.parent
    for _ in range(40):
        if p is None or p is Window:
            break
        ids = getattr(p, "ids", None)
        if ids and any(v is w for v in ids.values()):
            return dict(ids)
        p = p.parent
    return {}


def _holds(a: Any, b: Any) -> bool:
    """``a`` is ``b`` or one of its ancestors."""
    while b is not None and b is not Window:
        if a is b:
            return True
        b = b.parent
    return False


def problems(where: str) -> list[str]:
    """Every layout fault of what is on the screen now."""
    found: list[str] = []
    drawn: list[tuple[Any, list[Rect]]] = []
    for layer in layers():
        for w in layer.walk(restrict=True):
            if not shown(w):
                continue
            view = view_of(w)
            inks = [part for r in ink(w) if (part := meet(r, view))]
            if not inks:
                continue
            drawn.append((w, inks))
            if isinstance(w, Button) and not _inside(box(w), (0, 0, Window.width, Window.height)):
                found.append(f"{_name(where, w)}: off the screen")
            if isinstance(w, Label) and text_of(w).strip():
                found += _label_faults(where, w, view)
    for i, (a, a_inks) in enumerate(drawn):
        for b, b_inks in drawn[i + 1 :]:
            if _holds(a, b) or _holds(b, a):
                continue
            if any(meet(p, q) for p in a_inks for q in b_inks):
                found.append(f"{_name(where, a)} and {_name(where, b)} are drawn over each other")
    return found


def _label_faults(where: str, w: Label, view: Rect) -> list[str]:
    found = []
    name = _name(where, w)
    text = texture_rect(w)
    bx = box(w)
    # Text outside its own box: drawn over whatever is next to it (or cut by a fixed text_size).
    over_x = (text[2] - text[0]) - (bx[2] - bx[0])
    over_y = (text[3] - text[1]) - (bx[3] - bx[1])
    if over_x > 2 and not w.shorten:
        found.append(f"{name}: text {over_x:.0f} px wider than its box")
    if over_y > 2:
        found.append(f"{name}: text {over_y:.0f} px taller than its box")
    if w.text_size[1] is not None and w.text_size[0] is not None and not w.shorten:
        from kivy.core.text import Label as CoreLabel

        # A fixed box drops the lines that do not fit: measure the text with the height free.
        core = CoreLabel(
            text=w.text,
            markup=w.markup,
            font_size=w.font_size,
            bold=w.bold,
            font_name=w.font_name,
            text_size=(w.text_size[0], None),
            halign=w.halign,
            padding=w.padding,
        )
        core.refresh()
        if core.texture.size[1] > w.height + 2:
            found.append(f"{name}: text needs {core.texture.size[1]:.0f} px, its box is {w.height:.0f}")
    # Text cut by the window, or by the list it scrolls in: a list shows whole lines from its top;
    # a line cut at its foot is where it goes on (scrolled to the end, none is).
    for r, line in lines_of(w):
        if not _inside(r, view) and not _more_below(w, r, view):
            found.append(f"{name}: {line.strip()[:24]!r} is cut by the edge of the screen or its list")
            break
    word = broken_word(w)
    if word:
        found.append(f"{name}: breaks the word {word!r} across two lines")
    return found


def _more_below(w: Any, r: Rect, view: Rect) -> bool:
    """``r`` is cut only at the foot of the list around ``w``, and the list scrolls on below it."""
    p = w.parent
    while p is not None and p is not Window and not isinstance(p, ScrollView):
        p = p.parent
    if not isinstance(p, ScrollView) or p.viewport_size[1] <= p.height or p.scroll_y <= 0.001:
        return False
    inside_but_foot = (r[0], max(r[1], view[1]), r[2], r[3])
    return r[1] < view[1] and _inside(inside_but_foot, view)


def _inside(r: Rect, area: Rect) -> bool:
    return r[0] >= area[0] - SLACK and r[1] >= area[1] - SLACK and r[2] <= area[2] + SLACK and r[3] <= area[3] + SLACK
