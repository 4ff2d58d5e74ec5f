"""Whole flows a table goes through, in taps."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing the harness imports Kivy, which must be configured first
    from tests.ui.harness import Kiosk


def type_text(k: Kiosk, text: str) -> None:
    for ch in text.upper():
        k.tap_exact("space" if ch == " " else ch)


def start_game(k: Kiosk, ns: str = "Ruminers", ew: str = "Mackeys", first: str | None = "N", new: bool = True) -> None:
    """A new game: who deals first (``None``: the kiosk deals for the Jacks), then the team names.
    ``new``: tap New game first (False: the start screen is already at who deals first)."""
    if new:
        k.tap("new_game")
    if first is None:
        k.tap("draw")
        k.tap("draw_done")
    else:
        k.tap(f"first_{first}")
    type_text(k, ns)
    k.tap("field_EW")
    type_text(k, ew)
    k.tap("start")


def quick_hand(
    k: Kiosk,
    maker: str,
    trump: str,
    points: str,
    team: str | None = None,
    melds: tuple[tuple[str, str], ...] = (),
    renege: tuple[str, str] | None = None,
    confirm: bool = True,
) -> None:
    """From the sheet: who said play, trump, one team's points, meld chips, Done, the other team confirms."""
    k.tap(f"play_{maker}")
    k.tap(f"trump_{trump}")
    if team is not None:
        k.tap(f"points_{team}")
    for digit in points:
        k.tap_exact(digit)
    for seat, kind in melds:
        k.tap(k.widget(f"meldrow_{seat}").ids.add)
        k.tap_exact(kind)
    if renege is not None:
        k.tap("renege")
        k.tap(f"team_{renege[0]}")
        k.tap_exact(renege[1])
    k.tap("done")
    assert k.root.manager.current == "summary", k.screen.message
    if confirm:
        k.tap("confirm")
