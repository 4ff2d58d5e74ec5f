"""The league's databases for the tests: a temporary SQLite file, and PostgreSQL at $CLABBER_TEST_PG
in a schema of its own for each test (dropped afterwards).

The SQLite file starts as a copy of one this process migrated once: a test's store opens it at the
newest migration (as a league's file is after its first start) without running every migration
again. On PostgreSQL each test's schema is migrated by its first store. The PostgreSQL runs are
marked slow: ``./run test --fast`` tries the league on SQLite, the whole suite on both."""

from __future__ import annotations

import functools
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from league.store.core import Store

PG_URL = os.environ.get("CLABBER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _admin() -> sa.Engine:
    return sa.create_engine(sa.make_url(PG_URL).set(drivername="postgresql+psycopg"))


@functools.cache
def _migrated_sqlite() -> bytes:
    """An empty league's SQLite file, migrated to the newest schema, as bytes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "league.db"
        Store(str(path)).close()
        return path.read_bytes()


DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)]


@pytest.fixture(params=DATABASES)
def league_db(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A database URL (or file path) the league's store can open, empty."""
    with league_database(request.param, tmp_path) as db:
        yield db


@contextmanager
def league_database(kind: str, folder: Path) -> Iterator[str]:
    """An empty league database of ``kind`` (sqlite: a file in ``folder``; postgresql: a schema of
    its own), as the URL or path a store opens; dropped afterwards (the file goes with its folder)."""
    if kind == "sqlite":
        path = folder / "league.db"
        path.write_bytes(_migrated_sqlite())
        yield str(path)
        return
    with pg_schema() as url:
        yield url


@contextmanager
def pg_schema() -> Iterator[str]:
    """A fresh PostgreSQL schema at $CLABBER_TEST_PG, as the URL a store opens; dropped afterwards."""
    schema = f"clabber_test_{secrets.token_hex(6)}"
    admin = _admin()
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except sa.exc.OperationalError as e:  # the tests promise both databases: say why, do not skip
        pytest.fail(f"PostgreSQL at {PG_URL} does not answer ({e.orig}); start it or set CLABBER_TEST_PG")
    url = sa.make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()
