"""Player settings: a settings column, the digest schedule, and game mails held for the digest.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('account', schema=None) as batch_op:
        batch_op.add_column(sa.Column('settings', sa.JSON(), nullable=False, server_default='{}'))
        batch_op.add_column(sa.Column('next_digest_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('last_digest_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f('ix_account_next_digest_at'), ['next_digest_at'], unique=False)
    op.create_table(
        'digestitem',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('account_id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('news', sa.Text(), nullable=False),
        sa.Column('notes', sa.Text(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['account_id'], ['account.id']),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('digestitem', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_digestitem_account_id'), ['account_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('digestitem', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_digestitem_account_id'))
    op.drop_table('digestitem')
    with op.batch_alter_table('account', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_account_next_digest_at'))
        batch_op.drop_column('last_digest_at')
        batch_op.drop_column('next_digest_at')
        batch_op.drop_column('settings')
