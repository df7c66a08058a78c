"""Delivery leases name their process, so a restarted single instance re-sends at once.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.add_column(sa.Column('leased_by', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False,
                                      server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.drop_column('leased_by')
