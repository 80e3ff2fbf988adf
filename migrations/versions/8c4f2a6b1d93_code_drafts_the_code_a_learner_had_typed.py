"""Code drafts: the code a learner had typed when they asked for a hint or gave up

Revision ID: 8c4f2a6b1d93
Revises: 6a1d3c5e7f90
Create Date: 2026-12-06 11:45:00.000000

One row per learner, course and code exercise: the editor's text when a help button was pressed, so the
page shows it again after the hint or the solution. A new table; nothing existing changes, and going back
drops the drafts (code sent for grading is in submissions, untouched).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '8c4f2a6b1d93'
down_revision = '6a1d3c5e7f90'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('code_drafts',
    sa.Column('course_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('exercise_id', sa.String(length=80), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['course_id'], ['courses.id'], name=op.f('fk_code_drafts_course_id_courses'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['exercise_id'], ['exercises.id'], name=op.f('fk_code_drafts_exercise_id_exercises'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_code_drafts_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('course_id', 'user_id', 'exercise_id', name=op.f('pk_code_drafts'))
    )


def downgrade():
    op.drop_table('code_drafts')
