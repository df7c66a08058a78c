"""Six indexes no query needs: each cost every insert, and every update of its column, a B-tree write.

A game's status and its next event are read through ``ix_game_status_next_event_at`` (status first), an
outbox row's status and due time through ``ix_outboxitem_status_next_attempt_at``, a game's record rows
through the unique (game_id, ply) index; no query looks an outbox row up by its game. A move wrote to
them eight times (three for each of its two outbox rows, one for the record row, one for the game's next
event), and each sent mark once more (the outbox status).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

#: (index, table, columns), as 0001 and 0002 made them.
DROPPED = (
    ('ix_game_status', 'game', ['status']),
    ('ix_game_next_event_at', 'game', ['next_event_at']),
    ('ix_outboxitem_status', 'outboxitem', ['status']),
    ('ix_outboxitem_next_attempt_at', 'outboxitem', ['next_attempt_at']),
    ('ix_outboxitem_game_id', 'outboxitem', ['game_id']),
    ('ix_moverecord_game_id', 'moverecord', ['game_id']),
)


def upgrade() -> None:
    for name, table, _columns in DROPPED:
        op.drop_index(name, table_name=table)


def downgrade() -> None:
    for name, table, columns in DROPPED:
        op.create_index(name, table, columns, unique=False)
