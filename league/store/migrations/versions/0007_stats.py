"""The statistics: each kiosk game's figures a team and a player, and each team's and player's sums
over the games that count (see league/store/stats.py), filled here from the games already held, as
``clabber league rebuild`` does; meetings found by their teams.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

from league.organiser.figures import refigure

revision = "0007"
down_revision = "0006"

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
        sa.Column("side", sa.String(1), nullable=False),
        *(sa.Column(f, sa.Integer, nullable=False) for f in FIGURES),
    )
    op.create_index("game_figures_by_team", "game_figures", ["team_id"])
    op.create_table(
        "team_figures",
        sa.Column("team_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("tied", sa.Integer, nullable=False),
        *(sa.Column(f, sa.Integer, nullable=False) for f in FIGURES),
    )
    op.create_index("meetings_by_team_a", "meetings", ["team_a"])
    op.create_index("meetings_by_team_b", "meetings", ["team_b"])
    refigure(op.get_bind())  # the same fold and sums as a rebuild, on the columns they name


def downgrade() -> None:
    op.drop_index("meetings_by_team_b", "meetings")
    op.drop_index("meetings_by_team_a", "meetings")
    op.drop_table("team_figures")
    op.drop_table("game_figures")
