"""The owner's notices over every screen, and the waiting screen while the database cannot open."""

from __future__ import annotations

from kivy.core.window import Window

from kiosk.backups import back_up
from tests.store_helpers import QUICK_HANDS


def restored_with_a_notice(db):
    """A kiosk's file deleted with a backup present: the next start restores it, with a notice."""
    from kiosk.table import open_table

    table, _ = open_table(db, db.parent / "backups")
    table.set_pin("582917")
    g = table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    table.add_hand(g.id, QUICK_HANDS[0])
    back_up(table.store, db.parent / "backups", keep=3)
    table.store.close()
    db.unlink()


def test_a_restore_notice_shows_over_every_screen_until_the_owner_acknowledges_it(tmp_path):
    from kiosk.ui.notice import OWNER_ONLY
    from tests.ui.harness import Kiosk

    db = tmp_path / "clabber.db"
    restored_with_a_notice(db)
    k = Kiosk(db)
    try:
        banner = k.root.banner
        for screen in ("sheet", "owner", "start"):
            k.root.show(screen)
            k.frames(2)
            assert banner.height > 0 and banner.opacity == 1, screen
            assert "database file is missing" in banner.summary.text
        k.restart()  # it survives a restart
        assert k.root.banner.height > 0
        k.tap(k.root.banner.open_button)
        assert "was restored" in k.text("notice_body")
        k.tap(k.widget("notice_ack"))
        assert k.text("notice_note") == OWNER_ONLY  # a player cannot dismiss it
        k.tap_exact("Owner menu")
        k.frames(20)  # the notice closes
        assert k.root.manager.current == "owner"
        for digit in "582917":
            k.tap_exact(digit)
        k.tap("unlock")
        assert k.root.owner_pin == "582917"
        k.tap(k.root.banner.open_button)
        k.tap(k.widget("notice_ack"))
        assert k.root.banner.height == 0 and k.table.notices() == []
        k.restart()
        assert k.root.banner.height == 0
    finally:
        k.close()


def test_the_waiting_screen_retries_and_gives_way_to_the_sheet(tmp_path):
    from kiosk.store import StoreTrouble
    from kiosk.table import open_table
    from kiosk.ui.app import KioskApp, KioskRoot, load_style
    from kiosk.ui.notice import WaitingRoot

    db = tmp_path / "clabber.db"
    table, _ = open_table(db, tmp_path / "backups")
    table.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    table.store.close()
    tries = []

    def reopen():
        tries.append(1)
        if len(tries) < 3:
            raise StoreTrouble(f"{db}: cannot use the database: the storage is full: free some space.")
        t, report = open_table(db, tmp_path / "backups")
        return t, report.notice

    load_style()
    app = KioskApp(None, "the storage is full", reopen=reopen, retry_every=3600, dim_after=0)
    root = app.build()
    app.root = root
    Window.add_widget(root)
    try:
        assert isinstance(root, WaitingRoot) and "storage is full" in root.message.text
        root.try_again()
        root.try_again()
        assert isinstance(app.root, WaitingRoot) and "tries: 2" in root.status.text
        root.try_again()
        assert isinstance(app.root, KioskRoot) and root not in Window.children
        assert app.root.manager.current == "sheet" and app.root.header.ns_name.startswith("Ruminers")
    finally:
        for child in list(Window.children):
            Window.remove_widget(child)
        if app.table is not None:
            app.table.store.close()
