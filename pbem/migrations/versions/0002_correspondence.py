"""Correspondence: clocks, vacations, observers, takebacks, conditional moves, events, error-reply limits.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('observation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('since', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['account.id'], ),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'account_id')
    )
    with op.batch_alter_table('observation', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_observation_account_id'), ['account_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_observation_game_id'), ['game_id'], unique=False)

    with op.batch_alter_table('account', schema=None) as batch_op:
        batch_op.add_column(sa.Column('vacation_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('vacation_year', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('vacation_used_days', sa.Integer(), nullable=False, server_default='0'))
        batch_op.create_index(batch_op.f('ix_account_vacation_until'), ['vacation_until'], unique=False)

    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock', sa.JSON(), nullable=False, server_default='{}'))
        batch_op.add_column(sa.Column('event_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('event_round', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('extras', sa.JSON(), nullable=False, server_default='{}'))
        batch_op.add_column(sa.Column('next_event_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f('ix_game_event_id'), ['event_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_game_next_event_at'), ['next_event_at'], unique=False)

    with op.batch_alter_table('moverecord', schema=None) as batch_op:
        batch_op.add_column(sa.Column('state_after', sa.JSON(), nullable=False, server_default='{}'))

    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False,
                                      server_default='reply'))

    # Games running before clocks existed: the sweep looks at their old deadline and gives them a clock.
    op.execute("UPDATE game SET next_event_at = deadline WHERE status = 'active'")


def downgrade() -> None:
    with op.batch_alter_table('outboxitem', schema=None) as batch_op:
        batch_op.drop_column('kind')

    with op.batch_alter_table('moverecord', schema=None) as batch_op:
        batch_op.drop_column('state_after')

    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_next_event_at'))
        batch_op.drop_index(batch_op.f('ix_game_event_id'))
        batch_op.drop_column('next_event_at')
        batch_op.drop_column('extras')
        batch_op.drop_column('event_round')
        batch_op.drop_column('event_id')
        batch_op.drop_column('clock')

    with op.batch_alter_table('account', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_account_vacation_until'))
        batch_op.drop_column('vacation_used_days')
        batch_op.drop_column('vacation_year')
        batch_op.drop_column('vacation_until')

    with op.batch_alter_table('observation', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_observation_game_id'))
        batch_op.drop_index(batch_op.f('ix_observation_account_id'))

    op.drop_table('observation')
