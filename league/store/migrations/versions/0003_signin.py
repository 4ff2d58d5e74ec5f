"""The organiser's sign-in: the password's hash, the lock-out after wrong passwords, the sessions.

Not events: they say who may act, not what happened to the league, and are not rebuilt.

Revision ID: 0003
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "organiser_password",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),  # always 1: one organiser
        sa.Column("hash", sa.Text, nullable=False),
        sa.Column("set_at", sa.Float, nullable=False),
    )
    op.create_table(
        "signin_lockout",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),  # always 1
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.Float, nullable=False),
    )
    op.create_table(
        "organiser_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for table in ("organiser_sessions", "signin_lockout", "organiser_password"):
        op.drop_table(table)
