"""The listener's reading of each received mail, kept for the worker (pbem.mail.inbound.reading).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('inboxitem', schema=None) as batch_op:
        batch_op.add_column(sa.Column('parsed', sa.Text(), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('inboxitem', schema=None) as batch_op:
        batch_op.drop_column('parsed')
