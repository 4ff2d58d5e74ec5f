"""A league's own clock: its time zone and the hour its nights end (a night past midnight is still
the night it began), which decide the league night a push, a kiosk's start screen and the board
belong to. Leagues made before keep Evansville's clock: America/Chicago, nights ending at 6 am.
And the wrong enrolment codes, kept in the database so every server process counts the same ones.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    # ALTER TABLE … ADD COLUMN on both databases: the table keeps its rows and the keys pointing at it.
    op.add_column("leagues", sa.Column("time_zone", sa.String(64), nullable=False, server_default="America/Chicago"))
    op.add_column("leagues", sa.Column("night_ends", sa.Integer, nullable=False, server_default="6"))
    op.create_table("wrong_codes", sa.Column("at", sa.Float, nullable=False, index=True))


def downgrade() -> None:
    op.drop_table("wrong_codes")
    op.drop_column("leagues", "night_ends")
    op.drop_column("leagues", "time_zone")
