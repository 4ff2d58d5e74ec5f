"""The playoffs: a stage for each round (only the round robin counts in the standings), the seeded
teams of a division's playoffs, and the bracket's matches.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    # Every round so far is a round-robin round.
    op.add_column("rounds", sa.Column("stage", sa.String(20), nullable=False, server_default="round_robin"))
    op.create_table(
        "playoffs",
        sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), primary_key=True, autoincrement=False),
        sa.Column("teams", sa.Text, nullable=False),
    )
    op.create_table(
        "playoff_matches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("playoff_round", sa.Integer, nullable=False),
        sa.Column("slot", sa.Integer, nullable=False),
        sa.Column("seed_a", sa.Integer, nullable=True),
        sa.Column("seed_b", sa.Integer, nullable=True),
        sa.Column("from_a", sa.Integer, nullable=True),
        sa.Column("from_b", sa.Integer, nullable=True),
        sa.Column("next_match", sa.Integer, nullable=True),
        sa.Column("next_side", sa.String(1), nullable=True),
        sa.Column("venue_id", sa.Integer, sa.ForeignKey("venues.id"), nullable=False),
        sa.Column("team_a", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
        sa.Column("team_b", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
        sa.Column("meeting_id", sa.Integer, sa.ForeignKey("meetings.id"), nullable=True, unique=True),
        sa.Column("winner", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
        sa.UniqueConstraint("division_id", "playoff_round", "slot"),
    )


def downgrade() -> None:
    op.drop_table("playoff_matches")
    op.drop_table("playoffs")
    with op.batch_alter_table("rounds") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("stage")
