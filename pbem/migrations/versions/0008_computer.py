"""The computer opponent: the index of games where it owes a move, its rating list, analyses by mail, and
the organiser of an event (who may ask for the analysis of any of its games).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('computer_due_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f('ix_game_computer_due_at'), ['computer_due_at'], unique=False)
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.add_column(sa.Column('organiser_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_event_organiser_id_account', 'account', ['organiser_id'], ['id'])
    op.create_table(
        'computerrating',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('account_id', sa.Integer(), nullable=False),
        sa.Column('variant', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('rating', sa.Float(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['account_id'], ['account.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('account_id', 'variant'),
    )
    with op.batch_alter_table('computerrating', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_computerrating_account_id'), ['account_id'], unique=False)
    op.create_table(
        'analysisrequest',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('account_id', sa.Integer(), nullable=False),
        sa.Column('ply', sa.Integer(), nullable=False),
        sa.Column('in_reply_to', sqlmodel.sql.sqltypes.AutoString(length=998), nullable=False),
        sa.Column('requested_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('done_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(['account_id'], ['account.id']),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('analysisrequest', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_analysisrequest_done_at'), ['done_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('analysisrequest', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_analysisrequest_done_at'))
    op.drop_table('analysisrequest')
    with op.batch_alter_table('computerrating', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_computerrating_account_id'))
    op.drop_table('computerrating')
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.drop_constraint('fk_event_organiser_id_account', type_='foreignkey')
        batch_op.drop_column('organiser_id')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_computer_due_at'))
        batch_op.drop_column('computer_due_at')
