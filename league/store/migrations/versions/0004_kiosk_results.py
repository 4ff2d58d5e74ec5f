"""Kiosk games in the standings: which team sat NS, the league game a finished kiosk game became, a
note when its result does not count by itself; and re-deliveries that differ from what is held.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"

REFUSE = "diverging deliveries are kept as received: never changed or deleted"


def upgrade() -> None:
    op.add_column("games", sa.Column("kiosk_id", sa.Integer, nullable=True))
    op.add_column("games", sa.Column("kiosk_game", sa.Integer, nullable=True))
    op.add_column("games", sa.Column("note", sa.Text, nullable=True))
    op.add_column("kiosk_games", sa.Column("ns_team", sa.Integer, nullable=True))
    op.add_column("kiosk_games", sa.Column("league_game", sa.Integer, nullable=True))
    op.add_column("kiosk_games", sa.Column("note", sa.Text, nullable=True))
    op.create_table(
        "kiosk_divergences",
        sa.Column("kiosk_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("received_at", sa.String(40), nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""CREATE FUNCTION kiosk_divergences_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION '{REFUSE}'; END $$"""
        )
        op.execute(
            "CREATE TRIGGER kiosk_divergences_append_only BEFORE UPDATE OR DELETE ON kiosk_divergences "
            "FOR EACH ROW EXECUTE FUNCTION kiosk_divergences_append_only()"
        )
    else:
        for what in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER kiosk_divergences_append_only_{what.lower()} BEFORE {what} ON kiosk_divergences "
                f"BEGIN SELECT RAISE(ABORT, '{REFUSE}'); END"
            )


def downgrade() -> None:
    op.drop_table("kiosk_divergences")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION kiosk_divergences_append_only()")
    with op.batch_alter_table("kiosk_games") as b:
        for c in ("note", "league_game", "ns_team"):
            b.drop_column(c)
    with op.batch_alter_table("games") as b:
        for c in ("note", "kiosk_game", "kiosk_id"):
            b.drop_column(c)
