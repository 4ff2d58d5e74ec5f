"""Walks through every screen and saves a screenshot of each (``python -m tests.ui.shoot WxH DIR``),
or checks each for readability (``python -m tests.ui.shoot WxH --check``: prints every problem,
exit status 1 if there is any), or both in one walk (``WxH DIR --check``).

Run in a process of its own per panel size: Kivy's window takes its size when it is created (so
nothing here imports Kivy before ``configure``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.records import RENEGE
from tests.ui.flows import quick_hand

# Trump hearts, S leading: S wins trick 1 with the King (the only heart) and leads the Queen to
# trick 2, which completes S's bell.
BELL = ["KH", "AC", "AD", "AS", "QH"]


def every_screen(kiosk, size, shoot):
    """Walks through every screen, calling ``shoot(name)`` on each."""
    shoot("01-start")
    kiosk.tap("new_game")
    shoot("02-start-first-dealer")
    kiosk.tap("draw")
    shoot("03-jack-draw")
    kiosk.tap("draw_done")
    for ch in "RUMINERS":
        kiosk.tap_exact(ch)
    kiosk.tap("field_EW")
    for ch in "MACKEYS":
        kiosk.tap_exact(ch)
    kiosk.tap("field_N")
    for ch in "RON":
        kiosk.tap_exact(ch)
    shoot("04-start-names")
    kiosk.tap("start")
    quick_hand(kiosk, "E", "H", "70", team="NS")
    quick_hand(kiosk, "S", "S", "81", team="NS")
    quick_hand(kiosk, "W", "D", "50", team="NS", renege=("EW", "table talk"))
    shoot("05-sheet")
    kiosk.tap("play_N")
    kiosk.tap("trump_S")
    kiosk.tap_exact("9")
    kiosk.tap_exact("0")
    kiosk.tap(kiosk.widget("meldrow_E").ids.add)
    shoot("06-meld-picker")
    kiosk.tap_exact("fifty · 50")
    shoot("07-quick-entry")
    kiosk.tap_exact("0")  # 900: the keypad refuses it
    shoot("07b-quick-entry-too-many")
    kiosk.tap("renege")
    shoot("07c-renege-dialog")
    kiosk.tap("renege_cancel")
    kiosk.tap("more")
    shoot("07d-round-and-up-card")
    kiosk.tap("bidding_done")
    kiosk.tap(kiosk.widget("meldrow_W").ids.add)
    kiosk.tap_exact("fifty · 50")  # the same cards as E's fifty: refused
    kiosk.tap("done")
    shoot("07e-quick-entry-error")
    kiosk.tap(kiosk.widget("melds_W").children[0])
    kiosk.tap("remove")
    kiosk.tap("done")
    shoot("08-summary")
    kiosk.tap("change")
    kiosk.tap("cancel")
    kiosk.tap("card_by_card")
    kiosk.tap("maker_E")
    kiosk.tap("trump_H")
    for name in RENEGE[:9]:
        kiosk.tap(f"card_{name}")
    shoot("09-card-by-card")
    kiosk.tap("card_TH")
    shoot("10-renege-question")
    kiosk.tap("yes")
    kiosk.tap("done")
    shoot("10b-summary-renege")
    kiosk.tap("confirm")
    kiosk.tap("replay")
    kiosk.tap("next_trick")
    kiosk.tap("next_trick")
    shoot("11-replay")
    kiosk.tap("back")
    kiosk.tap("card_by_card")  # E deals: S leads
    kiosk.tap("maker_E")
    kiosk.tap("trump_H")
    kiosk.tap("melds")
    kiosk.tap(kiosk.widget("meldrow_S").ids.add)
    kiosk.tap("four_9")  # S's four nines, announced before trick 1
    shoot("11a-card-by-card-melds")
    kiosk.tap("melds_done")
    for name in BELL:
        kiosk.tap(f"card_{name}")
    shoot("11b-bell")
    kiosk.tap("bell_ok")
    kiosk.tap("cancel")
    kiosk.table.set_pin("246813")
    kiosk.tap("owner")
    for _ in range(3):
        for d in "111111":
            kiosk.tap_exact(d)
        kiosk.tap("unlock")
    shoot("12-owner-pin-locked")
    kiosk.table.store.update_setting("pin_lock", lambda _old: None)  # as if the lock ran out
    kiosk.tap("pin_cancel")
    kiosk.tap("owner")
    for d in "2468":
        kiosk.tap_exact(d)
    shoot("12-owner-pin")
    for d in "13":
        kiosk.tap_exact(d)
    kiosk.tap("unlock")
    shoot("13-owner-menu")
    kiosk.tap("settings")
    shoot("14-owner-settings")
    kiosk.screen.step = "menu"
    kiosk.frames(3)
    updating(kiosk, shoot)
    kiosk.tap("close")
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "N", "S", "162", team="NS")
    shoot("15-game-over")
    printing(kiosk, shoot)
    league_night(kiosk, shoot)
    hindsight(kiosk, shoot)


def updating(kiosk, shoot):
    """The owner's Updates: a download under way, then a bundle refused for being older."""
    from dataclasses import replace

    from kiosk.updates.state import UpdateState, write_state
    from shared import update_states as S

    kiosk.table.updates = Path(tempfile.mkdtemp(prefix="update-")) / "state.json"
    running = UpdateState(running="0.1.0", slot="A")
    write_state(kiosk.table.updates, replace(running, state=S.DOWNLOADING, version="0.2.0", percent=42))
    kiosk.tap("updates")
    shoot("14a-owner-updates")
    why = (
        "version 0.0.9 is older than the running 0.1.0: only the owner can put an older version back (Owner → Updates)"
    )
    write_state(kiosk.table.updates, replace(running, state=S.REFUSED, version="0.0.9", source="usb", why=why))
    kiosk.tap("updates_menu")
    kiosk.tap("updates")
    kiosk.tap("update_older")
    shoot("14b-owner-updates-older")
    kiosk.tap("updates_menu")
    kiosk.table.updates = None


def printing(kiosk, shoot):
    """Game over with a receipt printer set up, after a print found the roll empty."""
    from kiosk.printer import ReceiptPrinter
    from kiosk.printer_config import printer_config
    from tests.ui.test_print import USB, Roll, wait_for

    roll = Roll()
    kiosk.root.receipts = ReceiptPrinter(printer_config(USB), base_url="http://kiosk.local", opener=lambda _c: roll)
    kiosk.root.show("over")
    kiosk.tap("print")
    wait_for(kiosk, lambda: kiosk.text("print") == "Print again")
    shoot("15-game-over-printer-empty")
    kiosk.root.receipts.close()
    kiosk.root.receipts = None


def league_night(kiosk, shoot):
    """The league's screens: tonight's meetings, an unscheduled game, a ruling and the league's QR
    codes at game over, the owner's league status, leaving, the form to join."""
    from kiosk import outbox
    from tests.ui.league_flows import ACES, QUEENS, in_a_league, tonight_with

    store = kiosk.table.store
    in_a_league(store, state="connected")
    tonight_with(store)
    kiosk.tap("new_game")  # from the game over: the start screen, tonight's meetings first
    kiosk.tap_exact("◀ Back")
    shoot("16-league-tonight")
    kiosk.tap("unscheduled")
    kiosk.tap(f"team_{ACES}")
    kiosk.tap(f"team_{QUEENS}")
    shoot("17-league-unscheduled")
    kiosk.tap("teams_back")
    kiosk.tap("meeting_0")
    shoot("18-league-draw")
    kiosk.tap("draw_done")
    kiosk.tap("play_E")
    kiosk.tap("trump_H")
    shoot("18a-league-quick-entry")
    kiosk.tap("cancel")
    quick_hand(kiosk, "E", "H", "70", team="NS")
    g = kiosk.root.game
    ruling = {"outcome": "b", "points_a": 320, "points_b": 500, "reason": "scores misread"}
    outbox.set_rulings(store, {str(g.id): ruling})
    kiosk.root.show("sheet")
    shoot("19-league-sheet-ruling")
    while kiosk.root.manager.current != "over":
        quick_hand(kiosk, "W", "S", "0", team="NS")
    shoot("20-league-game-over")
    kiosk.tap("qr_switch")
    shoot("21-league-standings-qr")
    in_a_league(store, state="unreachable", held=g.id)
    kiosk.tap("new_game")
    kiosk.tap_exact("◀ Back")
    shoot("22-league-tonight-unreachable")
    kiosk.tap("tonight_owner")
    for d in "246813":
        kiosk.tap_exact(d)
    kiosk.tap("unlock")
    kiosk.tap("league")
    shoot("23-owner-league")
    kiosk.tap("leave_league")
    shoot("24-owner-leave")
    kiosk.tap("leave_yes")
    kiosk.tap("league")
    for ch in "LEAGUE.EXAMPLE.ORG":
        kiosk.tap_exact(ch)
    kiosk.tap("field_code")
    for ch in "K7QMD-3XHPA":
        kiosk.tap_exact(ch)
    shoot("25-owner-join")
    kiosk.tap("join_menu")
    kiosk.tap("statistics")
    kiosk.tap("stats_players")
    shoot("26-owner-statistics")


def hindsight(kiosk, shoot):
    """The replay of a hand entered card by card, once it is over: its trick with a costly card
    marked, what best play with every card open gave, and the bid's odds once worked out."""
    from tests.records import SET_BY_ONE_CARD

    g = kiosk.table.new_game(["Ruminers", "Mackeys"], first_dealer=SET_BY_ONE_CARD["dealer"])
    kiosk.table.add_hand(g.id, dict(SET_BY_ONE_CARD))
    kiosk.root.show("replay", game=g.id, hand=1)
    replay = kiosk.root.manager.get_screen("replay")
    for trick, name in ((2, "27-replay-costly-card"), (7, "28-replay-hindsight")):  # 7: after the sixth
        for _ in range(8):
            if replay.trick_number == trick:
                break
            kiosk.tap("next_trick")
        shoot(name)
    for _ in range(300):  # the odds are worked out in a thread of their own: a minute at most here
        if kiosk.widget("lines").children[0].kind == "odds" and "play on" in kiosk.widget("lines").children[0].text:
            break
        kiosk.wait(0.2)
    shoot("29-replay-odds")


def main() -> None:
    width, height = (int(v) for v in sys.argv[1].split("x"))
    from kiosk.ui.boot import Display, configure

    configure(Display(width, height, headless=True, maxfps=0), kivy_home=Path(tempfile.mkdtemp(prefix="kivy-home-")))
    from tests.ui.harness import Kiosk
    from tests.ui.readability import problems

    check = "--check" in sys.argv[2:]
    folders = [Path(a) for a in sys.argv[2:] if a != "--check"]
    found: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        # The seat lights are drawn when the screens are checked: text beside them must read too.
        kiosk = Kiosk(Path(tmp) / "clabber.db", size=(width, height), lights=check)

        def look(name: str) -> None:
            if check:
                kiosk.frames(3)
                found.extend(problems(name))
            for folder in folders:
                kiosk.screenshot(folder / f"{name}.png")

        every_screen(kiosk, (width, height), look)
        kiosk.close()
    if check:
        print("\n".join(found) if found else "no problems", flush=True)
        sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
