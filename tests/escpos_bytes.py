"""Reads ESC/POS bytes back as a printer would: the text lines in their code pages, the QR codes'
data, the pictures. Any byte that is neither text nor a command it knows fails the reading, so
garbage (a name's control character sent as a command, a byte in no code page) cannot pass."""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

ESC, GS, DLE, LF = 0x1B, 0x1D, 0x10, 0x0A


@dataclass
class Printed:
    """What a printer made of the bytes."""

    lines: list[str] = field(default_factory=list)  # each text line, as printed
    styles: list[dict[str, object]] = field(default_factory=list)  # align, bold, big of each line
    qr: list[bytes] = field(default_factory=list)  # the data of each QR code the printer drew (GS ( k)
    qr_stored: list[bytes] = field(default_factory=list)  # the data stored for QR codes (function 80)
    pictures: list[Image.Image] = field(default_factory=list)  # GS v 0 raster pictures
    pages: list[str] = field(default_factory=list)  # the code pages switched to, in order
    cut: bool = False
    status_queries: int = 0


def read(data: bytes, code_pages: dict[str, str]) -> Printed:
    """The printout of ``data`` on a printer with these code pages (``{name: number}``, as a
    python-escpos profile lists them)."""
    from escpos.magicencode import Encoder

    by_number = {int(n): name for name, n in code_pages.items()}
    out = Printed()
    page: str | None = None
    line = bytearray()
    text = ""
    style: dict[str, object] = {"align": "left", "bold": False, "big": False}
    i = 0

    def flush_bytes() -> None:
        nonlocal text
        for b in line:
            if b < 0x80:
                text += chr(b)
            else:
                assert page is not None, f"byte {b:#x} before any code page was chosen"
                ch = Encoder._get_codepage_char_list(page)[b - 0x80]
                text += ch
        line.clear()

    while i < len(data):
        b = data[i]
        if b == LF:
            flush_bytes()
            out.lines.append(text)
            out.styles.append(dict(style))
            text = ""
            i += 1
        elif b == ESC:
            cmd = data[i + 1]
            if cmd == ord("@"):
                i += 2
            elif cmd == ord("!"):
                style["big"] = data[i + 2] & 0x30 == 0x30
                i += 3
            elif cmd == ord("E"):
                style["bold"] = bool(data[i + 2])
                i += 3
            elif cmd == ord("a"):
                style["align"] = {0: "left", 1: "center", 2: "right"}[data[i + 2]]
                i += 3
            elif cmd == ord("t"):
                flush_bytes()
                page = by_number[data[i + 2]]
                out.pages.append(page)
                i += 3
            elif cmd == ord("d"):  # print and feed n lines
                i += 3
            else:
                raise AssertionError(f"unknown command ESC {cmd:#x} at {i}")
        elif b == GS:
            cmd = data[i + 1]
            if cmd == ord("V"):
                out.cut = True
                i += 3 if data[i + 2] in (0, 1, 48, 49) else 4
            elif cmd == ord("(") and data[i + 2] == ord("k"):
                n = data[i + 3] + 256 * data[i + 4]
                body = data[i + 5 : i + 5 + n]
                assert len(body) == n, "a 2D code command shorter than its length says"
                cn, fn = body[0], body[1]
                assert cn == ord("1"), "not a QR code"
                if fn == 80:  # store the data: m (48), then the data
                    assert body[2] == 48
                    out.qr_stored.append(bytes(body[3:]))
                elif fn == 81:  # print what was stored
                    out.qr.append(out.qr_stored[-1])
                i += 5 + n
            elif cmd == ord("v") and data[i + 2] == ord("0"):
                width_bytes = data[i + 4] + 256 * data[i + 5]
                height = data[i + 6] + 256 * data[i + 7]
                raster = data[i + 8 : i + 8 + width_bytes * height]
                picture = Image.frombytes("1", (width_bytes * 8, height), bytes(raster))
                out.pictures.append(Image.eval(picture.convert("L"), lambda v: 255 - v))  # 1 bits are dots
                i += 8 + width_bytes * height
            elif cmd == ord("!"):
                style["big"] = data[i + 2] == 0x11
                i += 3
            else:
                raise AssertionError(f"unknown command GS {cmd:#x} at {i}")
        elif b == DLE and data[i + 1] == 0x04:
            out.status_queries += 1
            i += 3
        elif b < 0x20 or b == 0x7F:
            raise AssertionError(f"a control byte {b:#x} in the text at {i}")
        else:
            line.append(b)
            i += 1
    flush_bytes()
    assert not text, f"text left unprinted at the end: {text!r}"
    return out
