"""Drafts: an exercise is a draft, published or unpublished, and its newest version may be ahead of
the one learners get; every exercise stored so far stays published as it is

Revision ID: b3d9f1a27c55
Revises: 5e1d2c7a9b40
Create Date: 2026-12-02 09:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b3d9f1a27c55'
down_revision = '5e1d2c7a9b40'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('exercises', schema=None) as batch_op:
        batch_op.add_column(sa.Column('latest_version', sa.Integer(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('status', sa.String(length=12), server_default='published', nullable=False))
        batch_op.create_check_constraint(op.f('ck_exercises_status'), "status IN ('draft', 'published', 'unpublished')")
    # Until now the current version was the newest one: no exercise has a draft waiting.
    op.execute("UPDATE exercises SET latest_version = current_version")


def downgrade():
    with op.batch_alter_table('exercises', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_exercises_status'), type_='check')
        batch_op.drop_column('status')
        batch_op.drop_column('latest_version')
