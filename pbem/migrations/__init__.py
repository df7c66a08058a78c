"""Alembic migrations of the pbem schema; `Database.migrate` runs them at every start."""
