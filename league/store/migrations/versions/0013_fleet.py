"""The kiosks' software: the versions the organiser offers (update_offers) and what each kiosk last
said of itself (kiosk_reports: its version, slot, free space and its update's state).

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    op.create_table(
        "update_offers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("compatible", sa.String(128), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("file", sa.Text, nullable=False),
        sa.Column("offered_at", sa.String(40), nullable=False),
        sa.Column("withdrawn_at", sa.String(40), nullable=True),
    )
    op.create_table(
        "kiosk_reports",
        sa.Column("kiosk_id", sa.Integer, sa.ForeignKey("kiosks.id"), primary_key=True, autoincrement=False),
        sa.Column("version", sa.String(64), nullable=True),
        sa.Column("slot", sa.String(8), nullable=True),
        sa.Column("free_bytes", sa.BigInteger, nullable=True),
        sa.Column("last_sync", sa.String(40), nullable=True),
        sa.Column("update_state", sa.String(32), nullable=True),
        sa.Column("update_version", sa.String(64), nullable=True),
        sa.Column("update_percent", sa.Integer, nullable=True),
        sa.Column("update_why", sa.Text, nullable=True),
        sa.Column("reported_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("kiosk_reports")
    op.drop_table("update_offers")
