"""The sweep's index: active games by their next event, so that a sweep costs O(due games), not O(active games).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.create_index('ix_game_status_next_event_at', ['status', 'next_event_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index('ix_game_status_next_event_at')
