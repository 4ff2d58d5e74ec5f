"""The venue board: a meeting's kiosk games found by the meeting (the board asks for tonight's
meetings' games at each change), not by reading every kiosk game ever bound.

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_index("kiosk_games_by_meeting", "kiosk_games", ["meeting_id"])


def downgrade() -> None:
    op.drop_index("kiosk_games_by_meeting", "kiosk_games")
