"""Partial indexes of the few rows the organiser's pages look for: the events set aside (the
quarantine) and the kiosk games with a note. Without them each look read every event or game the
league holds (82 ms for the quarantine with 1.6 million events on a SQLite file).

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"

MARKED = (
    ("kiosk_events_quarantined", "kiosk_events", "quarantined", ["kiosk_id", "game", "seq"]),
    ("kiosk_games_noted", "kiosk_games", "note", ["bound_at"]),
)


def upgrade() -> None:
    for name, table, mark, columns in MARKED:
        where = sa.text(f"{mark} IS NOT NULL")
        op.create_index(name, table, columns, sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    for name, table, _, _ in MARKED:
        op.drop_index(name, table_name=table)
