"""The first schema: the log, leagues, seasons, divisions, teams, venues, rounds, meetings, games.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None

REFUSE = "the event log is append-only: events are never changed or deleted"


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
    )
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
    )
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.UniqueConstraint("league_id", "name"),
    )
    op.create_table(
        "divisions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.UniqueConstraint("season_id", "name"),
    )
    op.create_table(
        "teams",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("substitutes", sa.Text, nullable=False),
        sa.UniqueConstraint("division_id", "name"),
    )
    op.create_table(
        "venues",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("tables", sa.Integer, nullable=False),
        sa.UniqueConstraint("league_id", "name"),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("date", sa.String(10), nullable=False),
        sa.UniqueConstraint("division_id", "number"),
    )
    op.create_table(
        "meetings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("team_a", sa.Integer, sa.ForeignKey("teams.id"), nullable=False),
        sa.Column("team_b", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
        sa.Column("venue_id", sa.Integer, sa.ForeignKey("venues.id"), nullable=True),
        sa.Column("table_number", sa.Integer, nullable=True),
        sa.Column("date", sa.String(10), nullable=True),
        sa.Column("forfeit_team", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
        sa.Column("forfeit_reason", sa.Text, nullable=True),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("meeting_id", sa.Integer, sa.ForeignKey("meetings.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("points_a", sa.Integer, nullable=False),
        sa.Column("points_b", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(10), nullable=True),
        sa.Column("ruled_reason", sa.Text, nullable=True),
        sa.UniqueConstraint("meeting_id", "number"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION '{REFUSE}'; END $$"""
        )
        op.execute(
            "CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
            "FOR EACH ROW EXECUTE FUNCTION events_append_only()"
        )
        op.execute(
            "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
            "FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()"
        )
    else:
        for what in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER events_append_only_{what.lower()} BEFORE {what} ON events "
                f"BEGIN SELECT RAISE(ABORT, '{REFUSE}'); END"
            )


def downgrade() -> None:
    for table in ("games", "meetings", "rounds", "teams", "venues", "divisions", "seasons", "leagues", "events"):
        op.drop_table(table)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION events_append_only()")
