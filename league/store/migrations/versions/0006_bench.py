"""Each team's totals (``team_totals``: played, won, lost, tied, points for and against), kept from
each event so that the standings read one row a team instead of every game of the season; filled
here from the games and forfeits already stored. Indexes on a meeting's round and venue: a
division's meetings and a venue's night (each kiosk's "tonight") no longer read every meeting.

Revision ID: 0006
Revises: 0005
"""

import json
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"

TOTALS = ("played", "won", "lost", "tied", "points_for", "points_against")


def upgrade() -> None:
    totals = op.create_table(
        "team_totals",
        sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), primary_key=True, autoincrement=False),
        sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
        *(sa.Column(name, sa.Integer, nullable=False) for name in TOTALS),
    )
    op.create_index("ix_team_totals_division_id", "team_totals", ["division_id"])
    op.create_index("ix_meetings_round_id", "meetings", ["round_id"])
    op.create_index("ix_meetings_venue_id", "meetings", ["venue_id"])
    conn = op.get_bind()
    count: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(TOTALS, 0))
    division: dict[int, int] = {t: d for t, d in conn.execute(sa.text("SELECT id, division_id FROM teams"))}
    counted = conn.execute(
        sa.text(
            "SELECT m.team_a, m.team_b, g.points_a, g.points_b, g.outcome FROM games g"
            " JOIN meetings m ON m.id = g.meeting_id JOIN rounds r ON r.id = m.round_id"
            " WHERE g.outcome IS NOT NULL AND m.team_b IS NOT NULL AND r.stage = 'round_robin'"
        )
    )
    for a, b, points_a, points_b, outcome in counted:
        for team, side, other, own, against in ((a, "a", "b", points_a, points_b), (b, "b", "a", points_b, points_a)):
            line = count[team]
            line["played"] += 1
            line["won"] += outcome == side
            line["lost"] += outcome == other
            line["tied"] += outcome == "tie"
            line["points_for"] += own
            line["points_against"] += against
    forfeits = conn.execute(
        sa.text(
            "SELECT m.team_a, m.team_b, m.forfeit_team, s.settings FROM meetings m"
            " JOIN rounds r ON r.id = m.round_id JOIN divisions d ON d.id = r.division_id"
            " JOIN seasons s ON s.id = d.season_id"
            " WHERE m.forfeit_team IS NOT NULL AND m.team_b IS NOT NULL AND r.stage = 'round_robin'"
        )
    )
    for a, b, forfeiting, settings in forfeits:
        games = int(json.loads(settings).get("games_per_meeting", 1))
        loser, winner = (a, b) if forfeiting == a else (b, a)
        for team, result in ((winner, "won"), (loser, "lost")):
            count[team]["played"] += games
            count[team][result] += games
    rows = [{"team_id": t, "division_id": d, **count[t]} for t, d in division.items()]
    if rows:
        op.bulk_insert(totals, rows)


def downgrade() -> None:
    op.drop_index("ix_meetings_venue_id", "meetings")
    op.drop_index("ix_meetings_round_id", "meetings")
    op.drop_index("ix_team_totals_division_id", "team_totals")
    op.drop_table("team_totals")
