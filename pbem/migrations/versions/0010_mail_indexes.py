"""The mail tables' indexes: retention's, of the rows whose body is still there (the hourly purge costs the
bodies it empties, not the whole history of mail), and delivery's, of the outbox by status and due time (a
poll reads no row, however many mails wait for a relay that is down).

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
    op.create_index('ix_outboxitem_status_next_attempt_at', 'outboxitem', ['status', 'next_attempt_at'], unique=False)
    op.create_index('ix_inboxitem_unpurged', 'inboxitem', ['status', 'received_at'], unique=False,
                    sqlite_where=sa.text(UNPURGED), postgresql_where=sa.text(UNPURGED))
    op.create_index('ix_outboxitem_unpurged', 'outboxitem', ['status', sa.text('coalesce(sent_at, created_at)')],
                    unique=False, sqlite_where=sa.text(UNPURGED), postgresql_where=sa.text(UNPURGED))


def downgrade() -> None:
    op.drop_index('ix_outboxitem_unpurged', table_name='outboxitem')
    op.drop_index('ix_inboxitem_unpurged', table_name='inboxitem')
    op.drop_index('ix_outboxitem_status_next_attempt_at', table_name='outboxitem')
