"""The organiser's word that a name is another player's, for the players' ratings (player_merges).

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"


def upgrade() -> None:
    op.create_table(
        "player_merges",
        sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("into", sa.String(200), nullable=False),
        sa.Column("into_name", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("player_merges")
