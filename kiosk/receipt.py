"""A game's receipt: what the thermal printer prints, laid out in the printer's columns.

Pure: a game's facts in, the receipt's lines and its QR code out; no printer, no clock (the time
it is printed comes in), no fonts. ``kiosk.printer`` turns a receipt into ESC/POS bytes and
``kiosk.receipt_image`` into a picture. Every line fits the paper: 32 characters on 58 mm paper,
42 or 48 on 80 mm; a big line (double width) half as many.

A printer has a few code pages, not Unicode: a name is printed as the printer can (``printable``
says what it can; "Zoë" in a code page that has ë), else spelt in plain letters ("Łukasz" as
"Lukasz"), else "?" for each character it cannot show: never bytes the printer would garble.
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from shared.present import corrections_of, rows

CORRECTED = "*"  # the printed mark of a corrected hand (the screen's ✎ is in no printer's code page)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# Letters that NFKD leaves whole, and their usual spelling in plain letters.
_SPELT = {
    "Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h", "ı": "i",
    "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "ß": "ss", "Þ": "Th", "þ": "th", "Ð": "D", "ð": "d",
    "‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "...", "·": ".", "•": "*",
}  # fmt: skip


# ---- the game, as the receipt needs it -----------------------------------------------------------


@dataclass(frozen=True)
class Hand:
    """A row of the sheet: the hand's number, its dealer, each team's cell (score, XX or -), the running totals."""

    number: int
    dealer: str
    ns: str
    ew: str
    total_ns: int
    total_ew: int
    notes: tuple[str, ...] = ()
    corrected: bool = False


@dataclass(frozen=True)
class Correction:
    """A hand the owner corrected: when (UTC, ISO) and why."""

    hand: int
    at: str
    reason: str


@dataclass(frozen=True)
class GameFacts:
    """What a receipt shows of a game, taken from the controller's state in one go (so a receipt
    waiting for the printer is a value, whatever the table does meanwhile)."""

    game: int
    token: str
    teams: dict[str, str]
    players: dict[str, str]
    started_at: str
    ended_at: str
    status: str  # open, over, finished or abandoned
    winner: str | None  # NS, EW, tie or None
    totals: tuple[int, int]
    end_reason: str | None
    hands: tuple[Hand, ...]
    corrections: tuple[Correction, ...]


def facts_of(state: Any) -> GameFacts:
    """The receipt's facts of a game (a ``GameState``): the sheet as every other surface shows it."""
    hands = tuple(
        Hand(
            r["number"], r["dealer"], r["ns"], r["ew"], row.totals[0], row.totals[1], tuple(r["notes"]), r["corrected"]
        )
        for r, row in zip(rows(state), state.sheet.rows, strict=False)
    )
    corrections = tuple(Correction(c["hand"], c["at"], c["reason"] or "") for c in corrections_of(state))
    return GameFacts(
        game=state.id,
        token=state.token,
        teams=dict(state.teams),
        players=dict(state.players),
        started_at=state.started_at,
        ended_at=state.updated_at,
        status=state.status,
        winner=state.winner,
        totals=(state.sheet.totals[0], state.sheet.totals[1]),
        end_reason=state.end_reason,
        hands=hands,
        corrections=corrections,
    )


# ---- text a printer can print ---------------------------------------------------------------------


def printable(text: str, can_print: Callable[[str], bool] = lambda ch: False) -> str:
    """``text`` as the printer can show it, one character a column: ASCII and what ``can_print``
    as they are, else in plain letters (NFKD without the accents), else "?". Control and format
    characters never reach the printer (they would be commands)."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        kind = unicodedata.category(ch)
        if 32 <= ord(ch) < 127 or (kind[0] not in "CZM" and can_print(ch)):
            out.append(ch)
        elif kind[0] == "Z" or ch in "\t\n\r":
            out.append(" ")
        elif kind in ("Cc", "Cf") or kind[0] == "M":
            continue  # a command, a joiner or direction mark, an accent on nothing: none is printed
        else:
            out.append(_spelt(ch, can_print))
    return "".join(out)


def _spelt(ch: str, can_print: Callable[[str], bool]) -> str:
    """A character the printer lacks in plain letters it has ("Ł" as "L", "ﬁ" as "fi"), else "?"."""
    plain = [c for c in _SPELT.get(ch) or unicodedata.normalize("NFKD", ch) if unicodedata.category(c)[0] != "M"]
    if plain and all(32 <= ord(c) < 127 or (unicodedata.category(c)[0] not in "CZ" and can_print(c)) for c in plain):
        return "".join(plain)
    return "?"


# ---- the receipt ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A line of text; ``big`` lines print at double width and height."""

    text: str
    align: str = "left"  # left or center
    bold: bool = False
    big: bool = False


@dataclass(frozen=True)
class Code:
    """The QR code of the result link."""

    url: str


@dataclass(frozen=True)
class Receipt:
    """A receipt: its lines and its QR code, in order, for a printer ``columns`` characters wide."""

    game: int
    url: str
    columns: int
    parts: tuple[Line | Code, ...]

    def text(self) -> list[str]:
        """The text lines as printed (centred lines padded as the printer centres them)."""
        out = []
        for part in self.parts:
            if isinstance(part, Line):
                room = self.columns // 2 if part.big else self.columns
                out.append(part.text.center(room).rstrip() if part.align == "center" else part.text)
        return out


def receipt(
    facts: GameFacts,
    *,
    url: str,
    columns: int,
    bar_name: str = "",
    table_name: str = "",
    tz: tzinfo | None = None,
    reprinted_at: datetime | None = None,
    can_print: Callable[[str], bool] = lambda ch: False,
) -> Receipt:
    """The receipt of a game: the bar and table, when, the teams and players, the sheet (each
    hand, its marks and the running totals), the winner, the corrections, the result link's QR
    code with the link under it, and the game's number. ``tz``: the bar's time zone; ``can_print``:
    the characters beyond ASCII the printer has."""
    w = columns
    say: Callable[[str], str] = lambda text: printable(text, can_print)  # noqa: E731
    parts: list[Line | Code] = []

    def lines(text: str, *, indent: int = 0, hang: int = 0, **style: Any) -> None:
        """``text`` in as many lines as it takes, ``indent`` spaces in, the lines after the first ``hang`` more."""
        room = w // 2 if style.get("big") else w
        for piece in _wrap(say(text), room, indent, indent + hang):
            parts.append(Line(piece, **style))

    def rule(ch: str = "-") -> None:
        parts.append(Line(ch * w))

    lines(bar_name or "Clabber", align="center", bold=True, big=True)
    if table_name:
        lines(table_name, align="center", bold=True)
    lines(_when(facts.started_at, facts.ended_at, tz), align="center")
    if reprinted_at is not None:  # a copy printed later, so the paper trail tells it from the original
        lines(f"REPRINT {_clock(reprinted_at.isoformat(), tz, day=True)}", align="center", bold=True)
    rule()
    for team in ("NS", "EW"):
        lines(f"{team}  {facts.teams.get(team, team)}", hang=4, bold=True)
        players = ", ".join(f"{seat} {facts.players[seat]}" for seat in team if facts.players.get(seat))
        if players:
            lines(players, indent=4)
    rule()
    _sheet(facts, w, parts, say)
    rule("=")
    _result(facts, w, parts, say)
    if facts.corrections:
        rule()
        lines(f"{CORRECTED} corrected by the owner:")
        for c in facts.corrections:
            reason = f": {c.reason}" if c.reason else ""
            lines(f"hand {c.hand}, {_clock(c.at, tz)}{reason}", indent=2, hang=2)
    rule()
    lines("The result on your phone:", align="center")
    parts.append(Code(url))
    for piece in _wrap(say(url), w):  # the whole link, never cut: broken over lines if it must be
        parts.append(Line(piece, align="center"))
    lines(f"Game {facts.game}", align="center", bold=True)
    return Receipt(facts.game, url, w, tuple(parts))


def _sheet(facts: GameFacts, w: int, parts: list[Line | Code], say: Callable[[str], str]) -> None:
    """The sheet: a heading, a row a hand (its notes under it), the totals."""
    cell = (w - 7) // 4  # "nnm d" (hand, mark, dealer), four number columns, " |"

    def row(head: str, ns: str, ew: str, tns: str, tew: str) -> str:
        return f"{head:<5}{ns:>{cell}}{ew:>{cell}} |{tns:>{cell}}{tew:>{cell}}"

    heading = f"{'hand':>{5 + 2 * cell}} |{'total':>{2 * cell}}"
    parts.append(Line(heading))
    parts.append(Line(row("  # D", "NS", "EW", "NS", "EW"), bold=True))
    for h in facts.hands:
        mark = CORRECTED if h.corrected else " "
        head = f"{h.number:>2}{mark}{say(h.dealer)[:1]}"
        text = row(head, say(h.ns), say(h.ew), str(h.total_ns), str(h.total_ew))
        if len(text) <= w:
            parts.append(Line(text))
        else:  # a score too long for its column (never in a real game): said in words instead
            said = f"{head} NS {say(h.ns)} EW {say(h.ew)} | total NS {h.total_ns} EW {h.total_ew}"
            parts.extend(Line(piece) for piece in _wrap(said, w, 0, 6))
        for note in h.notes:
            parts.extend(Line(piece) for piece in _wrap(say(note), w, 6))
    if not facts.hands:
        parts.append(Line("no hands played".center(w).rstrip()))
    ns, ew = facts.totals
    total = row("Total", "", "", str(ns), str(ew))
    for piece in [total] if len(total) <= w else _wrap(f"Total NS {ns} EW {ew}", w):
        parts.append(Line(piece, bold=True))


def _result(facts: GameFacts, w: int, parts: list[Line | Code], say: Callable[[str], str]) -> None:
    """Who won, in words and big figures."""
    ns, ew = facts.totals

    def centred(text: str, **style: Any) -> None:
        room = w // 2 if style.get("big") else w
        for piece in _wrap(say(text), room):
            parts.append(Line(piece, align="center", **style))

    if facts.status == "abandoned":
        centred("GAME ABANDONED", bold=True)
        if facts.end_reason:
            centred(facts.end_reason)
    elif facts.winner in ("NS", "EW"):
        centred("WINNERS", bold=True, big=True)
        centred(f"{facts.teams.get(facts.winner, facts.winner)} ({facts.winner})", bold=True)
    elif facts.winner == "tie":
        centred("A TIE", bold=True, big=True)
    elif facts.status == "finished":
        centred("GAME ENDED BY THE TABLE", bold=True)
    else:
        n = len(facts.hands)
        centred(f"IN PLAY after {n} hand{'' if n == 1 else 's'}", bold=True)
    centred(f"NS {ns} - {ew} EW", bold=True, big=True)


def _wrap(text: str, width: int, indent: int = 0, hang: int | None = None) -> list[str]:
    """``text`` in lines of at most ``width``, words kept whole where they fit; the first line
    ``indent`` spaces in, the others ``hang`` (as much as the first unless told)."""
    return textwrap.wrap(
        text,
        width,
        initial_indent=" " * indent,
        subsequent_indent=" " * (indent if hang is None else hang),
        break_long_words=True,
        break_on_hyphens=False,
    ) or [""]


def _local(at: str, tz: tzinfo | None) -> datetime:
    moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(tz or UTC)


def _clock(at: str, tz: tzinfo | None, day: bool = False) -> str:
    t = _local(at, tz)
    return f"{_date(t)} {t:%H:%M}" if day else f"{t:%H:%M}"


def _date(t: datetime) -> str:
    return f"{_DAYS[t.weekday()]} {t.day} {_MONTHS[t.month - 1]} {t.year}"


def _when(started: str, ended: str, tz: tzinfo | None) -> str:
    """The game's day and hours, in the bar's time: "Sat 14 Mar 2026 20:05-21:47"."""
    a, b = _local(started, tz), _local(ended, tz)
    if a.date() == b.date():
        return f"{_date(a)} {a:%H:%M}-{b:%H:%M}"
    return f"{_date(a)} {a:%H:%M} - {b.day} {_MONTHS[b.month - 1]} {b:%H:%M}"
