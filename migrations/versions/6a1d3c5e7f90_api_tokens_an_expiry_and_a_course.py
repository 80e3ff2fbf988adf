"""API tokens: an expiry, and a course a token may be bound to

Revision ID: 6a1d3c5e7f90
Revises: 7b2e4d6f8a01
Create Date: 2026-12-06 08:40:00.000000

Tokens made before this keep working as they did: a NULL expires_at never expires and a NULL
course_id acts in any of the owner's courses. Learners' tokens made on the profile page from now on
carry both an expiry and, optionally, a course.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '6a1d3c5e7f90'
down_revision = '7b2e4d6f8a01'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.add_column(sa.Column('expires_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('course_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_api_tokens_course_id'), ['course_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_api_tokens_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='CASCADE')


def downgrade():
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.drop_constraint('fk_api_tokens_course_id_courses', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_api_tokens_course_id'))
        batch_op.drop_column('course_id')
        batch_op.drop_column('expires_at')
