"""Pictures drawn at delivery: an outbox row keeps the boards to draw into its mail (pbem.mail.later_pictures).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pictures', sa.Text(), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.drop_column('pictures')
