"""A kiosk game whose result is due: its events are stored and its result is written into the standings
just after, in a transaction of its own; the mark, set with the events and cleared with the result,
lets a server that stopped (or failed) in between write it later, in the order the games ended: it is
when the game became due and its place among those due at that moment, in an order that sorts.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.add_column("kiosk_games", sa.Column("result_due", sa.String(48), nullable=True))


def downgrade() -> None:
    op.drop_column("kiosk_games", "result_due")
