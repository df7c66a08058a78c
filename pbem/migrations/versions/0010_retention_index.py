"""Retention's indexes: the mail rows whose body is still there, so that the hourly purge costs the bodies it
empties, not the whole history of mail.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

UNPURGED = "length(raw) > 0"


def upgrade() -> None:
    op.create_index('ix_inboxitem_unpurged', 'inboxitem', ['status', 'received_at'], unique=False,
                    sqlite_where=sa.text(UNPURGED), postgresql_where=sa.text(UNPURGED))
    op.create_index('ix_outboxitem_unpurged', 'outboxitem', ['status', sa.text('coalesce(sent_at, created_at)')], unique=False,
                    sqlite_where=sa.text(UNPURGED), postgresql_where=sa.text(UNPURGED))


def downgrade() -> None:
    op.drop_index('ix_outboxitem_unpurged', table_name='outboxitem')
    op.drop_index('ix_inboxitem_unpurged', table_name='inboxitem')
