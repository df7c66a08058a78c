"""Tournaments: events, their players, and ratings per variant (pbem.events.models).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('event',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('variant', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('format', sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
    sa.Column('time_control', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('rounds', sa.Integer(), nullable=False),
    sa.Column('tiebreaks', sa.JSON(), nullable=False),
    sa.Column('games_per_match', sa.Integer(), nullable=False),
    sa.Column('knockout_tiebreak', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('round_days', sa.Float(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('current_round', sa.Integer(), nullable=False),
    sa.Column('round_deadline', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('state', sa.JSON(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_event_name'), ['name'], unique=True)
        batch_op.create_index(batch_op.f('ix_event_status'), ['status'], unique=False)

    op.create_table('eventplayer',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('event_id', sa.Integer(), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=True),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('byes', sa.JSON(), nullable=False),
    sa.Column('annulled', sa.Boolean(), nullable=False),
    sa.Column('withdrawn_round', sa.Integer(), nullable=False),
    sa.Column('joined_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['account.id'], ),
    sa.ForeignKeyConstraint(['event_id'], ['event.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('event_id', 'email')
    )
    with op.batch_alter_table('eventplayer', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_eventplayer_account_id'), ['account_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_eventplayer_event_id'), ['event_id'], unique=False)

    op.create_table('rating',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('variant', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['account.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('account_id', 'variant')
    )
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rating_account_id'), ['account_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rating_account_id'))

    op.drop_table('rating')
    with op.batch_alter_table('eventplayer', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_eventplayer_event_id'))
        batch_op.drop_index(batch_op.f('ix_eventplayer_account_id'))

    op.drop_table('eventplayer')
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_event_status'))
        batch_op.drop_index(batch_op.f('ix_event_name'))

    op.drop_table('event')
