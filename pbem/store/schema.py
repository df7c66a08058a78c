"""Every table of pbem in one metadata: the one module create_all and Alembic read the schema from."""

from __future__ import annotations

from sqlmodel import SQLModel

from pbem.store import event_models, models

__all__ = ["TABLE_MODULES", "metadata"]

#: The modules that define tables; a new table module is added here and nowhere else.
TABLE_MODULES = (models, event_models)

metadata = SQLModel.metadata
