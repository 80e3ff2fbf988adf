"""Indexes for class analytics: attempts by time (the class's latest), progress by exercise

Revision ID: 7c3a9e2f4d10
Revises: b3d9f1a27c55
Create Date: 2026-12-02 10:30:00.000000

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '7c3a9e2f4d10'
down_revision = 'b3d9f1a27c55'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('ix_attempts_created_at', 'attempts', ['created_at'], unique=False)
    op.create_index('ix_progress_exercise_id', 'progress', ['exercise_id'], unique=False)


def downgrade():
    op.drop_index('ix_progress_exercise_id', table_name='progress')
    op.drop_index('ix_attempts_created_at', table_name='attempts')
