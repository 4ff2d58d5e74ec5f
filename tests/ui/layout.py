"""What a player would see is wrong with a screen's layout, read from the widgets as drawn: text cut by
its box or by the window, text that breaks a word (or a seat and its card) in two, two things drawn over
each other, text under a scroll bar, a list cut where a finger cannot scroll it, a list with too few
rows, a button's words touching its edges, two numbers that read as one, and played cards that look
like the cards still in hand.

Kivy never clips a label: text too big for its box is drawn over its neighbours. So the checks work
on the *ink* of each thing on the screen: a button's whole box (its background is drawn there), the
lines of text a label drew (where its texture puts them), a drawn shape's box (a seat light, the QR
code). Two inks that cross, where neither widget holds the other, are a fault a player would see.
"""

from __future__ import annotations

import re
import time
from itertools import pairwise
from typing import Any

from kivy.core.window import Window
from kivy.uix.button import Button
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in window pixels
SLACK = 1.0  # pixels: rounding in Kivy's own layout

# What a reader must find on one line: a seat and its card ("E 10♠", "W's Q♦"), a seat and its team
# ("N (NS)"), a team and its points ("EW 0"), a number and its unit ("24 points", "62 %"). A no-break
# space holds them as a space does.
TOGETHER = re.compile(
    r"(?<!\w)[NESW](?:'s)?[ \u00a0](?:10|[AKQJ9])[♠♥♦♣]"
    r"|(?<!\w)[NESW][ \u00a0]\((?:NS|EW)\)"
    r"|(?<!\w)(?:NS|EW)[ \u00a0]\d+"
    r"|(?<![\w.])\d+[ \u00a0](?:points?|games?|hands?|deals|mm|%)(?!\w)"
    r"|(?<![\w.])\d+[ \u00a0]–[ \u00a0]\d+"  # a score: "500 – 320"
    r"|\(\+[ \u00a0]cards"  # the replay's "(+ cards not yet seen)": a "(+" alone reads as nothing
)
NUMBER = re.compile(r"^\d[\d,]*(?: W)?$")  # a total on its own, or the winner's with its W
PLAYED_APART = 3.0  # a played card against one still in hand, as drawn (WCAG contrast)
DIMMED = 2 / 3  # a played card's label: at most this share of an unplayed one's contrast


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


def line_spans(label: Label) -> list[tuple[int, int]] | None:
    """Where each drawn line of the label starts and ends in its text (markup left out); None when
    the label drew something else (shortened, stripped)."""
    lines = [text for _, text in lines_of(label)]
    if getattr(label._label, "is_shortened", False):
        return None
    whole = text_of(label)
    spans, at = [], 0
    for line in lines:
        part = line.strip()
        found = whole.find(part, at)
        if found < 0:
            return None
        spans.append((found, found + len(part)))
        at = found + len(part)
    return spans


def broken_word(label: Label) -> str | None:
    """A word the label split across two lines (a line ending where the text has no space), or a
    seat and its card, or a number and its unit, split at their space; None if there is none."""
    spans = line_spans(label)
    if spans is None or len(spans) < 2:
        return None
    whole = text_of(label)
    for (start, end), (nxt, _) in pairwise(spans):
        part = whole[start:end]
        if end < len(whole) and not whole[end].isspace() and not part.endswith(("-", "–", "/")):
            return part.split(" ")[-1] + "|" + whole[nxt:].split(" ")[0]
    for m in TOGETHER.finditer(whole):
        for start, end in spans[:-1]:
            if start <= m.start() < end < m.end():
                return whole[m.start() : end].strip() + "|" + whole[end : m.end()].strip()
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
            if isinstance(w, Button) and text_of(w).strip():
                found += _edge_faults(where, w)
            if isinstance(w, Image) and getattr(w, "least_mm", 0):  # a QR code a phone must scan
                from kiosk.ui import theme

                side = min(w.norm_image_size) / theme.px_per_mm
                if side < w.least_mm:
                    found.append(f"{_name(where, w)}: drawn {side:.0f} mm wide, under {w.least_mm} mm")
            shape = _is_shape(w) and not isinstance(w, (Button, Image)) and w.parent is not None
            if shape and not _inside(box(w), box(w.parent)):  # a seat light sticking out of the badge
                found.append(f"{_name(where, w)}: drawn outside the {type(w.parent).__name__} that holds it")
            if isinstance(w, Label) and text_of(w).strip():
                found += _label_faults(where, w, view)
    for layer in layers():
        for w in layer.walk(restrict=True):
            if isinstance(w, ScrollView) and shown(w):
                found += _scroll_bar_faults(where, w) + _room_faults(where, w)
    found += _number_faults(where, drawn) + _card_faults(where)
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
        from kivy.core.text.markup import MarkupLabel

        # A fixed box drops the lines that do not fit: measure the text with the height free.
        core = (MarkupLabel if w.markup else CoreLabel)(
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
    # Text cut by the window, or by the list it scrolls in: a line cut at a list's foot (or, once
    # it is scrolled down, at its top) is where the list goes on, and a finger must reach its end.
    for r, line in lines_of(w):
        if not _inside(r, view) and not _more_below(w, r, view) and not _more_above(w, r, view):
            found.append(f"{name}: {line.strip()[:24]!r} is cut by the edge of the screen or its list")
            break
    word = broken_word(w)
    if word:
        found.append(f"{name}: breaks the word {word!r} across two lines")
    return found


def _more_below(w: Any, r: Rect, view: Rect) -> bool:
    """``r`` is cut only at the foot of the list around ``w``, the list scrolls on below it, and
    fingers dragging the list up reach its foot."""
    p = _list_of(w)
    if p is None or p.viewport_size[1] <= p.height or p.scroll_y <= 0.001:
        return False
    inside_but_foot = (r[0], max(r[1], view[1]), r[2], r[3])
    return r[1] < view[1] and _inside(inside_but_foot, view) and finger_reaches(p)


def _more_above(w: Any, r: Rect, view: Rect) -> bool:
    """``r`` is cut only at the top of the list around ``w``, which is scrolled down past it."""
    p = _list_of(w)
    if p is None or p.viewport_size[1] <= p.height or p.scroll_y >= 0.999:
        return False
    inside_but_top = (r[0], r[1], r[2], min(r[3], view[3]))
    return r[3] > view[3] and _inside(inside_but_top, view)


def _list_of(w: Any) -> ScrollView | None:
    p = w.parent
    while p is not None and p is not Window and not isinstance(p, ScrollView):
        p = p.parent
    return p if isinstance(p, ScrollView) else None


_reached: dict[tuple[int, float, float], bool] = {}


def finger_reaches(sv: ScrollView) -> bool:
    """Fingers dragging the list up, a drag after another, bring its foot into view: it can be
    read to its end by touch, as a table reads it (a touch, moves 20 ms apart, a lift; whatever the
    list does after a lift, a glide or a bounce back, allowed to end). The list is put back after.
    Asked once for a list of a given size."""
    key = (id(sv), float(sv.height), float(sv.viewport_size[1]))
    if key not in _reached:
        before = sv.scroll_y
        _reached[key] = _drag_to_foot(sv)
        if sv.effect_y is not None:
            sv.effect_y.velocity = 0
        for _ in range(3):  # back where it was, and staying there, before anything else is measured
            sv.scroll_y = before
            _idle(1)
    return _reached[key]


def _drag_to_foot(sv: ScrollView) -> bool:
    from kivy.tests.common import UnitTestTouch

    x, y0 = sv.to_window(sv.center_x, sv.y + sv.height * 0.2)
    distance = sv.height * 0.6
    last = None
    for _drag in range(8):
        if sv.scroll_y <= 0.001:
            return True
        if last is not None and abs(sv.scroll_y - last) < 1e-4:
            return False  # the drag moved nothing
        last = sv.scroll_y
        touch = UnitTestTouch(x, y0)
        touch.touch_down()
        for i in range(1, 11):
            time.sleep(0.02)
            touch.touch_move(x, y0 + distance * i / 10)
            _idle(1)
        touch.touch_up()
        for _ in range(100):
            _idle(1)
            time.sleep(0.01)
            if sv.effect_y is None or abs(sv.effect_y.velocity) < 0.5:
                break
    return sv.scroll_y <= 0.001


def _idle(frames: int) -> None:
    from kivy.base import EventLoop

    for _ in range(frames):
        EventLoop.idle()


def _scroll_bar_faults(where: str, sv: ScrollView) -> list[str]:
    """Text drawn under the list's scroll bar, where the bar hides it."""
    if not sv.do_scroll_y or sv.bar_width <= 0 or sv.viewport_size[1] <= sv.height + SLACK:
        return []
    _x0, y0, x1, y1 = box(sv)
    right = x1 - sv.bar_margin
    bar: Rect = (right - sv.bar_width, y0, right, y1)
    found = []
    for w in sv.walk(restrict=True):
        if isinstance(w, Label) and shown(w) and text_of(w).strip():
            for r, line in lines_of(w):
                if meet(r, bar) and meet(r, view_of(w)):
                    found.append(f"{_name(where, w)}: {line.strip()[:24]!r} runs under the scroll bar")
                    break
    return found


def _room_faults(where: str, sv: ScrollView) -> list[str]:
    """A list of rows that has room for fewer of its rows than it should show (``least_rows``, or
    all of them where it has fewer): a list that hides rows while it could have shown them."""
    least = int(getattr(sv, "least_rows", 0) or 0)
    layout = getattr(sv, "layout_manager", None)
    if not least or layout is None:
        return []
    row = float(layout.default_size[1] or 0)
    if row <= 0:
        return []
    data = list(getattr(sv, "data", ()) or ())
    rows = len(data)
    heights = [float(d.get("height") or row) for d in data] or [row] * least
    room, used = 0, 0.0  # how many of its last rows, as tall as they are drawn, fit in its box
    for h in reversed(heights):
        if used + h > sv.height + SLACK:
            break
        used, room = used + h, room + 1
    if room < min(least, rows):
        return [
            f"{where}: {type(sv).__name__} holds {room} of its {rows} rows of {row:.0f} px, not the {least} it should"
        ]
    return []


def _number_faults(where: str, drawn: list[tuple[Any, list[Rect]]]) -> list[str]:
    """Two numbers side by side so close that they read as one ("102 510")."""
    numbers = [
        (w, r)
        for w, inks in drawn
        if isinstance(w, Label) and not isinstance(w, Button) and NUMBER.match(text_of(w).strip())
        for r in inks
    ]
    found = []
    for i, (a, ra) in enumerate(numbers):
        for b, rb in numbers[i + 1 :]:
            (left, lr), (right, rr) = sorted(((a, ra), (b, rb)), key=lambda p: p[1][0])
            overlap = min(lr[3], rr[3]) - max(lr[1], rr[1])
            if overlap < 0.5 * min(lr[3] - lr[1], rr[3] - rr[1]):
                continue  # not on one line
            gap = rr[0] - lr[2]
            em = min(float(left.font_size), float(right.font_size))
            if -SLACK <= gap < 0.6 * em and not _ruled(drawn, lr, rr):
                found.append(
                    f"{where}: {text_of(left)!r} and {text_of(right)!r} are {gap:.0f} px apart: they read as one number"
                )
    return found


def _ruled(drawn: list[tuple[Any, list[Rect]]], left: Rect, right: Rect) -> bool:
    """A rule is drawn between two numbers on one line (as the paper sheet's columns are ruled)."""
    for w, inks in drawn:
        if _is_shape(w) and not isinstance(w, Image):
            for x0, y0, x1, y1 in inks:
                if x0 >= left[2] - SLACK and x1 <= right[0] + SLACK and min(y1, left[3]) - max(y0, left[1]) > 0:
                    return True
    return False


def _edge_faults(where: str, w: Button) -> list[str]:
    """A button's words touching its edges (at least 0.8 mm of the button either side of them)."""
    from kiosk.ui import theme

    if w.shorten:
        return []
    margin = 0.8 * theme.px_per_mm - SLACK
    x0, _y0, x1, _y1 = box(w)
    for r, line in lines_of(w):
        if r[0] < x0 + margin or r[2] > x1 - margin:
            return [f"{_name(where, w)}: {line.strip()[:20]!r} touches the button's edges"]
    return []


def _card_faults(where: str) -> list[str]:
    """Played cards that a table cannot tell from the cards still in hand: their faces, as drawn,
    at least 3:1 apart, and a played card's label dimmed with it."""
    from kiosk.ui import theme

    cards = [
        w
        for layer in layers()
        for w in layer.walk(restrict=True)
        if isinstance(w, Button) and getattr(w, "card", None) and shown(w)
    ]
    played = [w for w in cards if getattr(w, "played", w.disabled)]
    fresh = [w for w in cards if w not in played]
    if not played or not fresh:
        return []
    a, b = played[0], fresh[0]
    face_a, face_b = face_colour(a), face_colour(b)
    found = []
    apart = theme.contrast(face_a, face_b)
    if apart < PLAYED_APART:
        found.append(
            f"{where}: a played card ({text_of(a)}) and one in hand ({text_of(b)}) are {apart:.2f}:1 apart,"
            f" under {PLAYED_APART:.0f}:1"
        )
    label_a = min(theme.contrast(c, face_a) for c in text_colours(a))
    label_b = min(theme.contrast(c, face_b) for c in text_colours(b))
    if label_a > DIMMED * label_b:
        found.append(
            f"{where}: a played card's label ({text_of(a)}, {label_a:.1f}:1) is not dimmed against one in hand"
            f" ({label_b:.1f}:1)"
        )
    return found


_COLOUR = re.compile(r"\[color=#?([0-9a-fA-F]{6})\]")


def text_colours(label: Label) -> list[tuple[float, ...]]:
    """The colours a label's text is drawn in: its own, and any its markup gives."""
    base = label.disabled_color if label.disabled else label.color
    whole = label.markup and label.text.startswith("[color") and label.text.endswith("[/color]")
    whole = whole and label.text.count("[color") == 1  # one colour span around all of it
    colours = [] if whole else [tuple(base)]
    for hexa in _COLOUR.findall(label.text) if label.markup else []:
        colours.append(tuple(int(hexa[i : i + 2], 16) / 255 for i in (0, 2, 4)))
    return colours or [tuple(base)]


def face_colour(w: Any) -> tuple[float, float, float]:
    """The colour most of a widget's face is drawn in, read back from the frame: a band across its
    lower part, inside its outline, where its label is not."""
    from collections import Counter

    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels

    x0, y0, x1, y1 = box(w)
    left, bottom = int(x0 + 4), int(y0 + 3)
    width, height = max(1, int(x1 - x0 - 8)), max(1, int((y1 - y0) * 0.18))
    data = glReadPixels(left, bottom, width, height, GL_RGB, GL_UNSIGNED_BYTE)
    counts = Counter(tuple(data[i : i + 3]) for i in range(0, len(data) - 2, 3))
    (r, g, b), _ = counts.most_common(1)[0]
    return (r / 255, g / 255, b / 255)


def _inside(r: Rect, area: Rect) -> bool:
    return r[0] >= area[0] - SLACK and r[1] >= area[1] - SLACK and r[2] <= area[2] + SLACK and r[3] <= area[3] + SLACK
