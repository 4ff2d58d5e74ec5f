"""Every table of the league's database but the kiosks' and the statistics' own (declared beside
their statements, in kiosks.py and stats.py), on one ``metadata`` that the migrations and
the tests build the schema from."""

from __future__ import annotations

import sqlalchemy as sa

ROUND_ROBIN, PLAYOFFS = "round_robin", "playoffs"  # a round's stage: only the round robin counts in the standings
TOTALS = ("played", "won", "lost", "tied", "points_for", "points_against")

metadata = sa.MetaData()
events = sa.Table(
    "events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.String(40), nullable=False),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
)
leagues = sa.Table(
    "leagues",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("time_zone", sa.String(64), nullable=False, server_default="America/Chicago"),  # an IANA name
    sa.Column("night_ends", sa.Integer, nullable=False, server_default="6"),  # the hour a night ends, 0 to 12
)
seasons = sa.Table(
    "seasons",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("settings", sa.Text, nullable=False),
    sa.UniqueConstraint("league_id", "name"),
)
divisions = sa.Table(
    "divisions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.id"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.UniqueConstraint("season_id", "name"),
)
teams = sa.Table(
    "teams",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("players", sa.Text, nullable=False),  # JSON: the two players
    sa.Column("substitutes", sa.Text, nullable=False),  # JSON: any number
    sa.UniqueConstraint("division_id", "name"),
)
venues = sa.Table(
    "venues",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("tables", sa.Integer, nullable=False),  # tables are numbered 1..tables
    sa.UniqueConstraint("league_id", "name"),
)
rounds = sa.Table(
    "rounds",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("date", sa.String(10), nullable=False),
    sa.Column("stage", sa.String(20), nullable=False, server_default=ROUND_ROBIN),
    sa.UniqueConstraint("division_id", "number"),
)
meetings = sa.Table(
    "meetings",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=False, index=True),
    sa.Column("team_a", sa.Integer, sa.ForeignKey("teams.id"), nullable=False),
    sa.Column("team_b", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),  # NULL: team_a has the bye
    sa.Column("venue_id", sa.Integer, sa.ForeignKey("venues.id"), nullable=True, index=True),
    sa.Column("table_number", sa.Integer, nullable=True),
    sa.Column("date", sa.String(10), nullable=True),  # set when moved off the round's night
    sa.Column("forfeit_team", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
    sa.Column("forfeit_reason", sa.Text, nullable=True),
)
games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("meeting_id", sa.Integer, sa.ForeignKey("meetings.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("points_a", sa.Integer, nullable=False),
    sa.Column("points_b", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(10), nullable=True),  # a, b, tie; NULL: abandoned, counts for nobody
    sa.Column("ruled_reason", sa.Text, nullable=True),
    sa.Column("kiosk_id", sa.Integer, nullable=True),  # played at a kiosk: which, and its own game number
    sa.Column("kiosk_game", sa.Integer, nullable=True),
    sa.Column("note", sa.Text, nullable=True),  # why a kiosk game counts for nobody until ruled
    sa.UniqueConstraint("meeting_id", "number"),
)
# The playoffs: the seeded teams, and the bracket's matches (a match has a meeting once both its teams are known).
playoffs = sa.Table(
    "playoffs",
    metadata,
    sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), primary_key=True, autoincrement=False),
    sa.Column("teams", sa.Text, nullable=False),  # JSON: team ids, seed 1 first
)
playoff_matches = sa.Table(
    "playoff_matches",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False),
    sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=False),
    sa.Column("playoff_round", sa.Integer, nullable=False),  # 1 = the first round of the playoffs
    sa.Column("slot", sa.Integer, nullable=False),  # top of the bracket first, from 0
    sa.Column("seed_a", sa.Integer, nullable=True),  # a seed plays on this side from the start ...
    sa.Column("seed_b", sa.Integer, nullable=True),
    sa.Column("from_a", sa.Integer, nullable=True),  # ... or the winner of this match
    sa.Column("from_b", sa.Integer, nullable=True),
    sa.Column("next_match", sa.Integer, nullable=True),  # where the winner plays next; NULL: the final
    sa.Column("next_side", sa.String(1), nullable=True),
    sa.Column("venue_id", sa.Integer, sa.ForeignKey("venues.id"), nullable=False),
    sa.Column("team_a", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
    sa.Column("team_b", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
    sa.Column("meeting_id", sa.Integer, sa.ForeignKey("meetings.id"), nullable=True, unique=True),
    sa.Column("winner", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
    sa.UniqueConstraint("division_id", "playoff_round", "slot"),
)
# Each team's standings before ranking, kept up to date from each event so that the standings read
# one row a team instead of every game of the season.
# The organiser's word that a name is another player's (league/organiser/ratings.py): a name is a
# label, and one person may be typed as "Bob" and "Bob K."; names as the statistics compare them.
player_merges = sa.Table(
    "player_merges",
    metadata,
    sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(200), primary_key=True),  # as compared: spaces tidied, any case
    sa.Column("into", sa.String(200), nullable=False),  # the player it is, as compared
    sa.Column("into_name", sa.String(200), nullable=False),  # and as the organiser spelled them
)
team_totals = sa.Table(
    "team_totals",
    metadata,
    sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), primary_key=True, autoincrement=False),
    sa.Column("division_id", sa.Integer, sa.ForeignKey("divisions.id"), nullable=False, index=True),
    *(sa.Column(name, sa.Integer, nullable=False) for name in TOTALS),
)
# The organiser's sign-in (statements in league/store/signin.py): who may act, not events; never rebuilt.
organiser_password = sa.Table(
    "organiser_password",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),  # always 1: one organiser
    sa.Column("hash", sa.Text, nullable=False),  # argon2id
    sa.Column("set_at", sa.Float, nullable=False),
)
signin_lockout = sa.Table(
    "signin_lockout",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),  # always 1
    sa.Column("failures", sa.Integer, nullable=False),  # wrong passwords in a row
    sa.Column("locked_until", sa.Float, nullable=False),  # epoch seconds
)
# Wrong enrolment codes, each when it came (statements in league/store/kiosks.py): the allowance
# every server process counts against; not events, never rebuilt.
wrong_codes = sa.Table("wrong_codes", metadata, sa.Column("at", sa.Float, nullable=False, index=True))
organiser_sessions = sa.Table(
    "organiser_sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),  # sha256 of the cookie's token
    sa.Column("csrf", sa.String(64), nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
)
