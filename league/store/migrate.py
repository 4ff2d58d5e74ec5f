"""Runs the league's Alembic migrations on an open connection."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

MIGRATIONS = Path(__file__).with_name("migrations")


def config(conn: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    return cfg


def upgrade(conn: Connection, revision: str = "heads") -> None:
    """Brings the schema on ``conn`` up to ``revision`` (every head: parts may add migrations side by side)
    inside the caller's transaction."""
    command.upgrade(config(conn), revision)


def downgrade(conn: Connection, revision: str) -> None:
    command.downgrade(config(conn), revision)
