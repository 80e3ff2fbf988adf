"""LTI contexts: each LMS course (platform, deployment, context) is a course here; grade links per course

Revision ID: 5c1e7a9d3b20
Revises: 2b822edabfa7
Create Date: 2026-12-06 05:40:00.000000

Launches before this went into the `default` course, so every existing grade link is the default
course's. No context is mapped yet: the next instructor launch from each LMS course makes its course
(or the instructor links it to one they teach).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5c1e7a9d3b20'
down_revision = '2b822edabfa7'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('lti_contexts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('platform_id', sa.Integer(), nullable=False),
    sa.Column('deployment_id', sa.String(length=255), nullable=False),
    sa.Column('context_id', sa.String(length=255), nullable=False),
    sa.Column('course_id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('memberships_url', sa.String(length=500), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['course_id'], ['courses.id'], name=op.f('fk_lti_contexts_course_id_courses'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['platform_id'], ['lti_platforms.id'], name=op.f('fk_lti_contexts_platform_id_lti_platforms'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_lti_contexts')),
    sa.UniqueConstraint('platform_id', 'deployment_id', 'context_id', name='uq_lti_contexts_platform_deployment_context')
    )
    op.create_index(op.f('ix_lti_contexts_course_id'), 'lti_contexts', ['course_id'], unique=False)
    with op.batch_alter_table('lti_grade_links', schema=None) as batch_op:
        batch_op.add_column(sa.Column('course_id', sa.Integer(), nullable=True))
    connection = op.get_bind()
    default = connection.execute(sa.text("SELECT id FROM courses WHERE code = 'default'")).scalar()
    if default is not None:
        connection.execute(sa.text('UPDATE lti_grade_links SET course_id = :course'), {'course': default})
    with op.batch_alter_table('lti_grade_links', schema=None) as batch_op:
        batch_op.alter_column('course_id', existing_type=sa.Integer(), nullable=False)
        batch_op.create_index(batch_op.f('ix_lti_grade_links_course_id'), ['course_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_lti_grade_links_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='CASCADE')


def downgrade():
    with op.batch_alter_table('lti_grade_links', schema=None) as batch_op:
        batch_op.drop_constraint('fk_lti_grade_links_course_id_courses', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_lti_grade_links_course_id'))
        batch_op.drop_column('course_id')
    op.drop_index(op.f('ix_lti_contexts_course_id'), table_name='lti_contexts')
    op.drop_table('lti_contexts')
