"""Attempts: index (exercise_id, id) in place of (exercise_id), so an exercise's latest attempts are read
along the index, newest first, without sorting all of its rows (PostgreSQL spilled that sort to disk)

Revision ID: a8c4e6f1b2d3
Revises: 61c33c3edee8
Create Date: 2026-12-02 11:20:00.000000

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = 'a8c4e6f1b2d3'
down_revision = '61c33c3edee8'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.create_index('ix_attempts_exercise_latest', ['exercise_id', 'id'], unique=False)
        batch_op.drop_index(batch_op.f('ix_attempts_exercise_id'))


def downgrade():
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_attempts_exercise_id'), ['exercise_id'], unique=False)
        batch_op.drop_index('ix_attempts_exercise_latest')
