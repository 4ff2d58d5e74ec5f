"""The league's storage: SQLAlchemy Core on SQLite or PostgreSQL. Every SQL statement of the league is
in this package."""
