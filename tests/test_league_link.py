"""A kiosk joins a league with the organiser's one-time code against a real ``clabber league serve``
on loopback, shows where it sits, and leaves; every refusal in words, nothing changed."""

from __future__ import annotations

import json
import stat

import pytest

from kiosk import league_link, outbox
from kiosk.backups import back_up
from kiosk.league_http import league_url
from league.ingest.kiosks import Kiosks
from league.store.core import Store
from tests.league_db import DATABASES, league_database
from tests.league_kiosk_helpers import league_with_schedule
from tests.league_server import free_port, league_server
from tests.store_helpers import open_table


@pytest.fixture(scope="module", params=DATABASES)
def league(request, tmp_path_factory):
    """One league server for the module's tests: each makes its own codes, at tables of its own."""
    with league_database(request.param, tmp_path_factory.mktemp("league")) as db:
        store = Store(db)
        world = league_with_schedule(store)
        try:
            with league_server(db) as api:
                yield {**world, "kiosks": Kiosks(store), "url": f"http://127.0.0.1:{api.port}"}
        finally:
            store.close()


def test_a_kiosk_joins_with_a_code_shows_its_venue_and_table_and_leaves(league, tmp_path):
    table = open_table(tmp_path / "kiosk.db")
    code = league["kiosks"].make_code(league["venues"][1], 2)
    joined = league_link.join(table.store, league["url"] + "/", code.lower().replace("-", " "))
    assert joined["venue"] == {"id": league["venues"][1], "name": "Bar 2"} and joined["table"] == 2
    assert "key" not in joined and len(outbox.link(table.store)["key"]) == 43
    status = league_link.status(table.store)
    assert status["league"]["url"] == league["url"] and status["queued"] == 0 and "key" not in status["league"]
    with pytest.raises(league_link.LinkRefused, match="in a league already"):
        league_link.join(table.store, league["url"], code)
    league_link.leave(table.store)
    assert outbox.link(table.store) is None
    with pytest.raises(league_link.LinkRefused, match="not in a league"):
        league_link.leave(table.store)
    table.close()


@pytest.mark.parametrize(
    "address, code, words",
    [
        (None, "AAAAA-AAAAA", "the league refused the code: this code is unknown"),
        (None, "  -- ", "type the code"),
        ("http://league.example.org", "AAAAA-AAAAA", "must start with https://"),
        ("ftp://x", "AAAAA-AAAAA", "is not a web address"),
        ("unreachable", "AAAAA-AAAAA", "cannot reach the league at http://127.0.0.1:"),
    ],
)
def test_joining_is_refused_in_words_and_changes_nothing(league, tmp_path, address, code, words):
    table = open_table(tmp_path / "kiosk.db")
    if address is None:
        address = league["url"]
    elif address == "unreachable":
        address = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(league_link.LinkRefused, match=words):
        league_link.join(table.store, address, code, timeout=3)
    assert outbox.link(table.store) is None
    table.close()


def test_a_typed_address_gets_https_and_loses_its_last_slash():
    assert league_url(" league.example.org/ ") == "https://league.example.org"
    assert league_url("http://localhost:8090") == "http://localhost:8090"


def test_the_key_is_kept_in_a_file_of_its_own_never_in_the_database_or_a_backup(league, tmp_path):
    """The key goes to a file only the kiosk's user reads; the database, its backups and exports never
    hold it; a kiosk that kept it in its database before has it moved to its file; leaving deletes it."""
    table = open_table(tmp_path / "kiosk.db")
    league_link.join(table.store, league["url"], league["kiosks"].make_code(league["venues"][0], 1))
    key = outbox.link(table.store)["key"]
    path = outbox.key_path(table.store)
    assert path.read_text().strip() == key and stat.S_IMODE(path.stat().st_mode) == 0o600
    table.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert key.encode() not in (tmp_path / "kiosk.db").read_bytes()
    backup = back_up(table.store, tmp_path / "backups", keep=3)
    assert key.encode() not in backup.read_bytes()
    # As a kiosk before kept it: in its database, no file.
    old = {**json.loads(table.store.setting(outbox.LINK_KEY)), "key": key}
    table.store.update_setting(outbox.LINK_KEY, lambda _old: json.dumps(old))
    path.unlink()
    assert outbox.link(table.store)["key"] == key and path.read_text().strip() == key
    assert "key" not in json.loads(table.store.setting(outbox.LINK_KEY))
    league_link.leave(table.store)
    assert not path.exists()
    table.close()
