"""The league's pooled PostgreSQL connections when the server closes them (a restart, an idle
timeout, an administrator): made real with ``pg_terminate_backend`` on the store's own connections."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

import league.store.core
from league.organiser.actions import Organiser
from league.pages import make_app
from league.store.core import Store, StoreTrouble
from tests.league_db import _admin

pytestmark = pytest.mark.parametrize("league_db", [pytest.param("postgresql", marks=pytest.mark.slow)], indirect=True)


def _kill_the_stores_connection(store: Store) -> None:
    """Ends, from another connection, the server process serving the store's one pooled connection."""
    with store.read() as r:
        pid = r.conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    pool = store.engine.pool
    assert isinstance(pool, sa.pool.QueuePool) and pool.checkedin() == 1  # the one connection this test used
    admin = _admin()
    try:
        with admin.begin() as conn:
            assert conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
    finally:
        admin.dispose()


def _leagues(store: Store) -> list[str]:
    with store.read() as r:
        return [x["name"] for x in r.leagues()]


def test_a_connection_closed_while_idle_is_replaced_without_a_word(league_db, monkeypatch):
    store = Store(league_db)
    Organiser(store).create_league("Evansville Clabber League")
    assert _leagues(store) == ["Evansville Clabber League"]
    _kill_the_stores_connection(store)
    monkeypatch.setattr(league.store.core, "IDLE_PING", 0.0)  # as if it had sat idle past the ping's time
    assert _leagues(store) == ["Evansville Clabber League"]  # tried first, found dead, replaced
    store.close()


def test_a_connection_closed_while_in_use_fails_one_request_in_words_then_the_next_works(league_db):
    store = Store(league_db)
    Organiser(store).create_league("Evansville Clabber League")
    assert _leagues(store) == ["Evansville Clabber League"]
    _kill_the_stores_connection(store)
    with pytest.raises(StoreTrouble) as refused:  # no ping for a connection in steady use
        _leagues(store)
    assert "cannot use" in str(refused.value) and "Traceback" not in str(refused.value)
    assert _leagues(store) == ["Evansville Clabber League"]  # the pool was emptied: a new connection
    store.close()


def test_a_page_that_finds_its_connection_closed_says_so_then_the_next_works(league_db):
    store = Store(league_db)
    Organiser(store).create_league("Evansville Clabber League")
    with TestClient(make_app(store)) as browser:
        assert browser.get("/").status_code == 200
        _kill_the_stores_connection(store)
        page = browser.get("/")
        assert page.status_code == 503 and page.headers["retry-after"] == "60"
        assert "cannot be used just now" in page.text and "terminating" not in page.text
        assert "Evansville Clabber League" in browser.get("/").text
    store.close()
