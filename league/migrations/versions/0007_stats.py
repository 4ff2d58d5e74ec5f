"""The statistics: each kiosk game's figures a team and a player, derived from the kiosk's events (see
league/stats.py), filled here from the kiosk games already held, as ``clabber league rebuild`` does.

Revision ID: 0007
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0005"

FIGURES = (
    "hands",
    "makers",
    "made",
    "sets_taken",
    "sets_given",
    "points",
    "biggest",
    "mules",
    "hundreds",
    "fifties",
    "dads",
    "bells",
    "reneges",
    "pass_outs",
)


def upgrade() -> None:
    op.create_table(
        "game_figures",
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("team_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player", sa.String(40), primary_key=True),
        *(sa.Column(f, sa.Integer, nullable=False) for f in FIGURES),
    )
    from league.stats import refigure  # the same fold as a rebuild, on the columns it names

    refigure(op.get_bind())


def downgrade() -> None:
    op.drop_table("game_figures")
