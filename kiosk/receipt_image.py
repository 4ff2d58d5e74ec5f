"""A receipt as a picture (Pillow): what the printer prints, dot for dot at 203 dpi.

The QR code's picture is the one sent to a printer that cannot draw QR codes itself (the raster
path); the whole receipt drawn the same way is the preview (``clabber print --image``) and the
picture in the docs.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from kiosk.receipt import Code, Line, Receipt
from shared.share import qr_code

DOT_W, DOT_H = 12, 24  # font A: a character is 12 by 24 dots
LINE_H = 30  # the printer's default line spacing (1/6 inch at 180 dpi, near enough at 203)
_FONTS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu")]


def module_size(url: str, dots: int) -> int:
    """Dots a QR module, so that the code takes about two thirds of the paper's width (3 to 8)."""
    modules = qr_code(url).modules_count + 8  # with its quiet zone
    return int(max(3, min(8, dots * 2 // 3 // modules)))


def qr_picture(url: str, dots: int) -> Image.Image:
    """The result link's QR code, centred on a strip as wide as the paper, its quiet zone included."""
    code = qr_code(url)
    code.box_size = module_size(url, dots)
    picture = code.make_image(fill_color="black", back_color="white").get_image().convert("1")
    strip = Image.new("1", (dots, picture.height), 1)
    strip.paste(picture, ((dots - picture.width) // 2, 0))
    return strip


@cache
def _font(bold: bool, big: bool) -> Any:
    name = "DejaVuSansMono-Bold.ttf" if bold else "DejaVuSansMono.ttf"
    size = 20 * (2 if big else 1)  # DejaVu Sans Mono's advance is 0.602 em: 12 dots at 20
    for folder in _FONTS:
        if (folder / name).is_file():
            return ImageFont.truetype(str(folder / name), size)
    return ImageFont.load_default(size)  # no DejaVu here: a plainer face, the same layout


def receipt_image(receipt: Receipt, dots: int) -> Image.Image:
    """The receipt drawn as the printer prints it: black on white, ``dots`` wide."""
    margin = (dots - receipt.columns * DOT_W) // 2
    pieces: list[tuple[str, Any]] = []
    height = LINE_H  # a line's room before the first
    for part in receipt.parts:
        if isinstance(part, Line):
            pieces.append(("line", part))
            height += LINE_H * (2 if part.big else 1)
        elif isinstance(part, Code):
            picture = qr_picture(part.url, dots)
            pieces.append(("code", picture))
            height += picture.height + LINE_H
    height += LINE_H * 3  # what feeds out before the cut
    page = Image.new("1", (dots, height), 1)
    pen = ImageDraw.Draw(page)
    y = LINE_H
    for kind, item in pieces:
        if kind == "code":
            page.paste(item, (0, y + LINE_H // 2))
            y += item.height + LINE_H
            continue
        line: Line = item
        scale = 2 if line.big else 1
        room = receipt.columns // scale
        text = line.text.center(room).rstrip() if line.align == "center" else line.text
        pen.text((margin, y + (LINE_H * scale - DOT_H * scale) // 2), text, font=_font(line.bold, line.big), fill=0)
        y += LINE_H * scale
    return page
