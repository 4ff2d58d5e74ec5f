"""The league's databases for the tests: a temporary SQLite file, and PostgreSQL at $CLABBER_TEST_PG
in a schema of its own for each test (dropped afterwards)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

PG_URL = os.environ.get("CLABBER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _admin() -> sa.Engine:
    return sa.create_engine(sa.make_url(PG_URL).set(drivername="postgresql+psycopg"))


@pytest.fixture(params=["sqlite", "postgresql"])
def league_db(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A database URL (or file path) the league's store can open, empty."""
    if request.param == "sqlite":
        yield str(tmp_path / "league.db")
        return
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
