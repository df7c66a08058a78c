"""Seeks: open challenges have an expiry and an optional rating range.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('challenge', schema=None) as batch_op:
        batch_op.add_column(sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('rating_low', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('rating_high', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('challenge', schema=None) as batch_op:
        batch_op.drop_column('rating_high')
        batch_op.drop_column('rating_low')
        batch_op.drop_column('expires_at')
