"""Alembic's entry: the league always hands it an open connection (see league/store/migrate.py)."""

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise SystemExit("run the league's migrations through league.store.migrate (clabber league migrate)")
context.configure(connection=connection, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
