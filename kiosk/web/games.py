"""A game's result page, drawn once for each state of the game: folded and rendered in a worker
thread (a big game never holds up other pages), kept for the next phone that asks, and drawn again
as soon as a new hand is on the sheet."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import OrderedDict
from typing import Any

import anyio
from jinja2 import Environment

from engine.seats import SEAT_NAMES
from kiosk.web.reader import Reader
from kiosk.web.site import Site
from shared.events import GameEvent
from shared.game_state import GameState
from shared.present import corrections_of, hand_summary, page_lines
from shared.present import rows as sheet_rows
from shared.share import qr_svg, result_of, result_url, viewer_link

TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CACHE_GAMES = 256
log = logging.getLogger("kiosk.web")

Page = dict[str, Any]  # a drawn game: "html" and "json" bytes, or "html" None and "why"
Key = tuple[int, int, int]  # the file opened, the game's id, its newest event's seq


class GamePages:
    """Games' pages as drawn, the newest ``CACHE_GAMES`` kept."""

    def __init__(self, site: Site, templates: Environment, reader: Reader) -> None:
        self.site = site
        self.templates = templates
        self.reader = reader
        self.drawn: OrderedDict[Key, Page] = OrderedDict()
        self.drawing: dict[Key, asyncio.Future[Page]] = {}  # being drawn now

    def clear(self) -> None:
        """Forgets every page (another file may hold other games under the same numbers)."""
        self.drawn.clear()

    async def page_of(self, token: str, limiter: anyio.CapacityLimiter) -> Page | None:
        """A game's page, drawn once for each state of the game (a new hand shows at once); None for
        no such game. ``limiter``: the worker threads drawing may take."""
        if not TOKEN.match(token):
            return None
        store = self.reader.store()
        version = store.game_version(token)
        if version is None:
            return None
        key = (self.reader.generation, *version)
        if key in self.drawn:
            self.drawn.move_to_end(key)
            return self.drawn[key]
        pending = self.drawing.get(key)
        if pending is None:
            events = store.events(version[0])  # SQL here: the connection belongs to this thread
            pending = asyncio.ensure_future(anyio.to_thread.run_sync(self._draw, events, limiter=limiter))
            self.drawing[key] = pending
            pending.add_done_callback(lambda _: self.drawing.pop(key, None))
        page = await asyncio.shield(pending)  # a phone that gives up does not cancel the others' page
        self.drawn[key] = page
        while len(self.drawn) > CACHE_GAMES:
            self.drawn.popitem(last=False)
        return page

    def _draw(self, events: list[GameEvent]) -> Page:
        """A game's page and record (in a worker thread: pure, no database)."""
        try:
            game = GameState.from_events(events)
            page = view_of(game, self.site)
            page["html"] = self.templates.get_template("game.html").render(**page, site=self.site).encode()
            page["json"] = json.dumps(page["json_record"], ensure_ascii=False).encode()
        except Exception as e:  # a log the fold refuses: the owner must look at it, the page says so
            log.error("game %d cannot be shown: %s", events[0].game if events else 0, e)
            return {"html": None, "why": str(e)}
        return page


def view_of(game: GameState, site: Site) -> dict[str, Any]:
    """Everything the result page shows of a game."""
    url = result_url(site.base_url, game.token)
    result = result_of(game, site.table_name)
    hands = [
        {
            "number": row.number,
            "lines": page_lines(entry.hand, game.rules),
            "summary": hand_summary(row),
            "corrected": bool(entry.corrections),
        }
        for row, entry in zip(game.sheet.rows, game.hands, strict=True)
    ]
    record = game.record()
    corrections = corrections_of(game)
    return {
        "game": game,
        "result": result,
        "rows": sheet_rows(game),
        "hands": hands,
        "url": url,
        "qr": qr_svg(url),
        "offline": viewer_link(site.viewer_url, result),
        "record": record,
        "corrections": corrections,
        "json_record": {**record, "corrections": corrections} if corrections else record,
        "players": [(s, game.players[s]) for s in SEAT_NAMES if s in game.players],
    }
