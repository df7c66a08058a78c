"""The schema of the first release: accounts, challenges, games, moves, inbox and outbox.

Revision ID: 0001
Revises: None
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('account',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('handle', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('account', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_account_email'), ['email'], unique=True)
        batch_op.create_index(batch_op.f('ix_account_handle'), ['handle'], unique=True)

    op.create_table('inboxitem',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('message_id', sqlmodel.sql.sqltypes.AutoString(length=998), nullable=False),
    sa.Column('envelope_from', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
    sa.Column('recipients', sa.JSON(), nullable=False),
    sa.Column('raw', sa.LargeBinary(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('error', sa.Text(), nullable=False),
    sa.Column('received_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('processed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('inboxitem', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_inboxitem_message_id'), ['message_id'], unique=True)
        batch_op.create_index(batch_op.f('ix_inboxitem_status'), ['status'], unique=False)

    op.create_table('outboxitem',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('recipient', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
    sa.Column('message_id', sqlmodel.sql.sqltypes.AutoString(length=998), nullable=False),
    sa.Column('raw', sa.LargeBinary(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_outboxitem_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_outboxitem_next_attempt_at'), ['next_attempt_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_outboxitem_recipient'), ['recipient'], unique=False)
        batch_op.create_index(batch_op.f('ix_outboxitem_status'), ['status'], unique=False)

    op.create_table('setting',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('game',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('variant', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('state', sa.JSON(), nullable=False),
    sa.Column('white_id', sa.Integer(), nullable=False),
    sa.Column('black_id', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('result', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('ply', sa.Integer(), nullable=False),
    sa.Column('time_control', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('deadline', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('draw_offer', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['black_id'], ['account.id'], ),
    sa.ForeignKeyConstraint(['white_id'], ['account.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_game_black_id'), ['black_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_game_status'), ['status'], unique=False)
        batch_op.create_index(batch_op.f('ix_game_white_id'), ['white_id'], unique=False)

    op.create_table('challenge',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('challenger_id', sa.Integer(), nullable=False),
    sa.Column('opponent_id', sa.Integer(), nullable=True),
    sa.Column('opponent_email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
    sa.Column('variant', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('color', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('time_control', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['challenger_id'], ['account.id'], ),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.ForeignKeyConstraint(['opponent_id'], ['account.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('challenge', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_challenge_challenger_id'), ['challenger_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_challenge_opponent_id'), ['opponent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_challenge_status'), ['status'], unique=False)

    op.create_table('moverecord',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('ply', sa.Integer(), nullable=False),
    sa.Column('seat', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('move_number', sa.Integer(), nullable=False),
    sa.Column('record', sa.Text(), nullable=False),
    sa.Column('played_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'ply')
    )
    with op.batch_alter_table('moverecord', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_moverecord_game_id'), ['game_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('moverecord', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_moverecord_game_id'))

    op.drop_table('moverecord')
    with op.batch_alter_table('challenge', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_challenge_status'))
        batch_op.drop_index(batch_op.f('ix_challenge_opponent_id'))
        batch_op.drop_index(batch_op.f('ix_challenge_challenger_id'))

    op.drop_table('challenge')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_white_id'))
        batch_op.drop_index(batch_op.f('ix_game_status'))
        batch_op.drop_index(batch_op.f('ix_game_black_id'))

    op.drop_table('game')
    op.drop_table('setting')
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_outboxitem_status'))
        batch_op.drop_index(batch_op.f('ix_outboxitem_recipient'))
        batch_op.drop_index(batch_op.f('ix_outboxitem_next_attempt_at'))
        batch_op.drop_index(batch_op.f('ix_outboxitem_game_id'))

    op.drop_table('outboxitem')
    with op.batch_alter_table('inboxitem', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_inboxitem_status'))
        batch_op.drop_index(batch_op.f('ix_inboxitem_message_id'))

    op.drop_table('inboxitem')
    with op.batch_alter_table('account', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_account_handle'))
        batch_op.drop_index(batch_op.f('ix_account_email'))

    op.drop_table('account')
