"""A kiosk game whose result is due: its events are stored (and acknowledged) and its result is
written into the standings just after, in a transaction of its own; the mark, set with the events and
cleared with the result, lets a server that stopped in between write it when it starts again.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.add_column("kiosk_games", sa.Column("result_due", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("kiosk_games", "result_due")
