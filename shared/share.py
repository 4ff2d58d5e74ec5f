"""Links to a game's result and the QR codes that carry them.

Two links: the kiosk's own result page (``{public_url}/g/{token}``), and one that carries the
result itself, compressed into the URL fragment, for the static viewer page, so a result opens
even where a phone cannot reach the kiosk. The fragment never reaches any server.
"""

from __future__ import annotations

import base64
import json
import socket
import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shared.game_state import GameState

import qrcode
from qrcode.constants import ERROR_CORRECT_M

FRAGMENT_KEY = "r"
MAX_FRAGMENT_BYTES = 64 * 1024  # the viewer refuses more than this, decoded


def local_address() -> str:
    """This machine's address on the local network (the Pi's, for phones on the bar's Wi-Fi)."""
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if not address.startswith("127."):
                return address
    except OSError:
        pass
    return socket.gethostname() + ".local"


def base_url(public_url: str | None, port: int) -> str:
    """Where phones reach the result pages: the configured public URL, else this machine."""
    if public_url:
        return public_url.rstrip("/")
    return f"http://{local_address()}:{port}"


def result_url(base: str, token: str) -> str:
    """A game's result page."""
    return f"{base}/g/{token}"


def encode_result(result: dict[str, Any]) -> str:
    """A result as a URL-safe fragment: compact JSON, raw deflate, base64url."""
    raw = json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: what browsers' DecompressionStream reads
    return base64.urlsafe_b64encode(packer.compress(raw) + packer.flush()).decode().rstrip("=")


def decode_result(fragment: str, cap: int = MAX_FRAGMENT_BYTES) -> dict[str, Any]:
    """The result in a fragment; ValueError for anything else, or anything bigger than ``cap``."""
    try:
        packed = base64.urlsafe_b64decode(fragment + "=" * (-len(fragment) % 4))
        unpacker = zlib.decompressobj(-15)
        raw = unpacker.decompress(packed, cap + 1)
    except (ValueError, zlib.error) as e:
        raise ValueError(f"not a result link: {e}") from None
    if len(raw) > cap or unpacker.unconsumed_tail:
        raise ValueError(f"a result link decodes to more than {cap} bytes")
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a result link: {e}") from None
    if not isinstance(value, dict):
        raise ValueError("not a result link")
    return value


def viewer_link(viewer_url: str, result: dict[str, Any]) -> str:
    """The link that carries the result itself."""
    return f"{viewer_url}#{FRAGMENT_KEY}={encode_result(result)}"


def qr_code(url: str) -> qrcode.QRCode:
    """A QR code for a URL, medium error correction, with its 4-module quiet zone."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=4)
    code.add_data(url)
    code.make(fit=True)
    return code


def qr_matrix(url: str) -> list[list[bool]]:
    """The modules, quiet zone included: True is dark."""
    matrix: list[list[bool]] = qr_code(url).get_matrix()  # qrcode has no type hints
    return matrix


def qr_png(url: str, path: str, scale: int = 10) -> None:
    """A PNG for printing."""
    code = qr_code(url)
    code.box_size = scale
    code.make_image(fill_color="black", back_color="white").save(path)


def qr_svg(url: str) -> str:
    """An SVG (one path), for a web page or printing."""
    matrix = qr_matrix(url)
    n = len(matrix)
    cells = "".join(f"M{x},{y}h1v1h-1z" for y, row in enumerate(matrix) for x, dark in enumerate(row) if dark)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n} {n}" shape-rendering="crispEdges">'
        f'<rect width="{n}" height="{n}" fill="#fff"/><path d="{cells}" fill="#000"/></svg>'
    )


def qr_text(url: str) -> str:
    """The code in a terminal: two rows of modules a line, with half blocks."""
    m = qr_matrix(url)
    if len(m) % 2:
        m = [*m, [False] * len(m[0])]
    glyph = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}
    # Light on dark terminals reads best inverted: dark modules drawn as spaces.
    return "\n".join(
        "".join(glyph[(not a, not b)] for a, b in zip(m[y], m[y + 1], strict=True)) for y in range(0, len(m), 2)
    )


def result_of(state: GameState, table_name: str = "") -> dict[str, Any]:
    """What a phone shows of a finished game: the record and its sheet, in one JSON object."""
    from engine.output import sheet_to_json

    sheet = sheet_to_json(state.sheet)
    rows = [
        [
            r["hand"],
            r["dealer"],
            r["score"]["NS"],
            r["score"]["EW"],
            r["marks"]["NS"],
            r["marks"]["EW"],
            r["totals"]["NS"],
            r["totals"]["EW"],
        ]
        for r in sheet["rows"]
    ]
    return {
        "v": 1,
        "table": table_name,
        "date": state.started_at[:10],
        "teams": state.teams,
        "players": state.players,
        "totals": sheet["totals"],
        "winner": sheet["winner"],
        "status": state.status,
        "rows": rows,
        "record": state.record(),
    }
