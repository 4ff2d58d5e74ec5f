"""A kiosk game's result is written in the transaction of the push that ends it, so no result is
left due: the mark goes. A game a server before this one left due is noted for the organiser (its
events are all held; the note says to rule on it), never dropped.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"

LEFT_DUE = "its result was not written before the server was upgraded: rule on it with the sheet"


def upgrade() -> None:
    op.execute(
        sa.text("UPDATE kiosk_games SET note = :note WHERE result_due IS NOT NULL AND note IS NULL").bindparams(
            note=LEFT_DUE
        )
    )
    # Plain SQL on both databases (SQLite from 3.35): the column is in no index, and the table, its
    # partial index and the events' foreign key stay as they are.
    op.execute("ALTER TABLE kiosk_games DROP COLUMN result_due")


def downgrade() -> None:
    op.add_column("kiosk_games", sa.Column("result_due", sa.String(48), nullable=True))
