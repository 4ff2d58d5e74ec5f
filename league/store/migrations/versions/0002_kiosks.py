"""Kiosks: enrolment codes, kiosk keys, the games each kiosk plays for a meeting and their events.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

REFUSE = "pushed kiosk events are kept as received: never changed or deleted"


def upgrade() -> None:
    op.create_table(
        "enrol_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("venue_id", sa.Integer, nullable=False),
        sa.Column("table_number", sa.Integer, nullable=False),
        sa.Column("made_at", sa.String(40), nullable=False),
        sa.Column("expires_at", sa.String(40), nullable=False),
        sa.Column("used_at", sa.String(40), nullable=True),
    )
    op.create_table(
        "kiosks",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("venue_id", sa.Integer, nullable=False),
        sa.Column("table_number", sa.Integer, nullable=False),
        sa.Column("enrolled_at", sa.String(40), nullable=False),
        sa.Column("revoked_at", sa.String(40), nullable=True),
    )
    op.create_table(
        "kiosk_games",
        sa.Column("kiosk_id", sa.Integer, sa.ForeignKey("kiosks.id"), primary_key=True),
        sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("meeting_id", sa.Integer, nullable=False),
        sa.Column("bound_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "kiosk_events",
        sa.Column("kiosk_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("received_at", sa.String(40), nullable=False),
        sa.Column("quarantined", sa.Text, nullable=True),
        sa.ForeignKeyConstraint(["kiosk_id", "game"], ["kiosk_games.kiosk_id", "kiosk_games.game"]),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""CREATE FUNCTION kiosk_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION '{REFUSE}'; END $$"""
        )
        op.execute(
            "CREATE TRIGGER kiosk_events_append_only BEFORE UPDATE OR DELETE ON kiosk_events "
            "FOR EACH ROW EXECUTE FUNCTION kiosk_events_append_only()"
        )
    else:
        for what in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER kiosk_events_append_only_{what.lower()} BEFORE {what} ON kiosk_events "
                f"BEGIN SELECT RAISE(ABORT, '{REFUSE}'); END"
            )


def downgrade() -> None:
    for table in ("kiosk_events", "kiosk_games", "kiosks", "enrol_codes"):
        op.drop_table(table)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION kiosk_events_append_only()")
