"""Alembic environment: run on the connection pbem hands over (see pbem.store.db.Database.migrate)."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401  (fills SQLModel.metadata for autogenerate)

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=SQLModel.metadata, render_as_batch=True,
                  compare_type=True)
with context.begin_transaction():
    context.run_migrations()
