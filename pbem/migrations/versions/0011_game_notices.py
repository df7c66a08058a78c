"""Deadline notices: the sweep records what is due (a reminder, a late notice, a game ended on time) and
the worker writes its mails, so a sweep costs its decisions, not the pictures of every mail.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'gamenotice',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('seat', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column('ply', sa.Integer(), nullable=False),
        sa.Column('details', sa.JSON(), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('gamenotice', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_gamenotice_game_id'), ['game_id'], unique=False)
        batch_op.create_index('ix_gamenotice_status_id', ['status', 'id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('gamenotice', schema=None) as batch_op:
        batch_op.drop_index('ix_gamenotice_status_id')
        batch_op.drop_index(batch_op.f('ix_gamenotice_game_id'))
    op.drop_table('gamenotice')
