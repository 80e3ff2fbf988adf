"""Courses: many courses on one site, their members and exercises; learner work per course; site roles

Revision ID: 2b822edabfa7
Revises: ddbbbb078bd7
Create Date: 2026-12-06 02:23:04.694237

Everything that existed goes into one course, `default`, open to every account (as the one class was):
- it uses the whole catalogue, in its order; a web exercise belongs to it;
- learners are its learners, instructors its instructors;
- progress, attempts, submissions, extensions, wrong parts and course events are its own.
Site roles replace the old one: instructors become staff (they may create courses), and the earliest
instructor, the one `users bootstrap` made, becomes the site's admin.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '2b822edabfa7'
down_revision = 'ddbbbb078bd7'
branch_labels = None
depends_on = None

# Learner work: each table gets the course it was done in.
COURSE_WORK = ('attempts', 'progress', 'submissions', 'extensions', 'wrong_parts')


def upgrade():
    _create_tables()
    default = _default_course()
    for table in COURSE_WORK + ('exercises', 'audit_events'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('course_id', sa.Integer(), nullable=True))
    _fill(default)
    _course_work_keys()
    _site_roles()


def _create_tables():
    op.create_table('courses',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('code', sa.String(length=40), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('locale', sa.String(length=16), nullable=False),
    sa.Column('starts_at', sa.DateTime(), nullable=True),
    sa.Column('ends_at', sa.DateTime(), nullable=True),
    sa.Column('join_code', sa.String(length=32), nullable=True),
    sa.Column('join_enabled', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('join_expires_at', sa.DateTime(), nullable=True),
    sa.Column('open_enrolment', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('whole_catalogue', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_courses_created_by_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_courses')),
    sa.UniqueConstraint('code', name=op.f('uq_courses_code')),
    sa.UniqueConstraint('join_code', name=op.f('uq_courses_join_code'))
    )
    op.create_table('course_members',
    sa.Column('course_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=12), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('added_by', sa.String(length=12), nullable=False),
    sa.CheckConstraint("role IN ('instructor', 'ta', 'learner')", name=op.f('ck_course_members_course_role')),
    sa.ForeignKeyConstraint(['course_id'], ['courses.id'], name=op.f('fk_course_members_course_id_courses'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_course_members_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('course_id', 'user_id', name=op.f('pk_course_members'))
    )
    op.create_index('ix_course_members_user_id', 'course_members', ['user_id'], unique=False)
    op.create_table('course_exercises',
    sa.Column('course_id', sa.Integer(), nullable=False),
    sa.Column('exercise_id', sa.String(length=80), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('opens_at', sa.DateTime(), nullable=True),
    sa.Column('due_at', sa.DateTime(), nullable=True),
    sa.Column('max_attempts', sa.Integer(), nullable=True),
    sa.Column('settings', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['course_id'], ['courses.id'], name=op.f('fk_course_exercises_course_id_courses'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['exercise_id'], ['exercises.id'], name=op.f('fk_course_exercises_exercise_id_exercises'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('course_id', 'exercise_id', name=op.f('pk_course_exercises'))
    )
    op.create_index('ix_course_exercises_exercise_id', 'course_exercises', ['exercise_id'], unique=False)


def _default_course():
    """The course every existing row moves into; returns its id."""
    connection = op.get_bind()
    columns = ('code', 'title', 'locale', 'open_enrolment', 'whole_catalogue', 'created_at')
    courses = sa.table('courses', *(sa.column(c) for c in columns))
    connection.execute(sa.insert(courses).values(code='default', title='Course', locale='en', open_enrolment=True,
                                                 whole_catalogue=True, created_at=sa.func.now()))
    return connection.execute(sa.text("SELECT id FROM courses WHERE code = 'default'")).scalar_one()


def _fill(default):
    connection = op.get_bind()
    for table in COURSE_WORK:
        connection.execute(sa.text(f'UPDATE {table} SET course_id = :course'), {'course': default})
    connection.execute(sa.text("UPDATE exercises SET course_id = :course WHERE origin = 'web'"), {'course': default})
    connection.execute(sa.text('UPDATE audit_events SET course_id = :course '
                               'WHERE exercise_id IS NOT NULL OR learner_id IS NOT NULL'), {'course': default})
    connection.execute(sa.text(
        "INSERT INTO course_members (course_id, user_id, role, created_at, added_by) "
        "SELECT :course, id, CASE WHEN role = 'instructor' THEN 'instructor' ELSE 'learner' END, created_at, 'migration' "
        "FROM users"), {'course': default})


def _course_work_keys():
    """course_id required, and part of each key and index that finds one learner's or one exercise's work."""
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.alter_column('course_id', existing_type=sa.Integer(), nullable=False)
        batch_op.drop_index('ix_attempts_exercise_latest')
        batch_op.create_index('ix_attempts_exercise_latest', ['course_id', 'exercise_id', 'id', 'user_id'], unique=False)
        batch_op.drop_constraint('uq_attempts_answers', type_='unique')
        batch_op.create_unique_constraint('uq_attempts_answers', ['user_id', 'exercise_id', 'course_id', 'version', 'answers_hash'])
        batch_op.create_foreign_key(batch_op.f('fk_attempts_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='CASCADE')
    with op.batch_alter_table('audit_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_events_course_id'), ['course_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_audit_events_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='SET NULL')
    with op.batch_alter_table('exercises', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_exercises_course_id'), ['course_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_exercises_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='SET NULL')
    for table, key in (('extensions', ['course_id', 'user_id', 'exercise_id']),
                       ('progress', ['course_id', 'user_id', 'exercise_id'])):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column('course_id', existing_type=sa.Integer(), nullable=False)
            batch_op.drop_constraint(f'pk_{table}', type_='primary')
            batch_op.create_primary_key(f'pk_{table}', key)
            batch_op.create_foreign_key(batch_op.f(f'fk_{table}_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='CASCADE')
    with op.batch_alter_table('progress', schema=None) as batch_op:
        batch_op.drop_index('ix_progress_exercise_id')
        batch_op.create_index('ix_progress_course_exercise', ['course_id', 'exercise_id'], unique=False)
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.alter_column('course_id', existing_type=sa.Integer(), nullable=False)
        batch_op.drop_index('ix_submissions_user_exercise')
        batch_op.create_index('ix_submissions_user_exercise', ['user_id', 'exercise_id', 'course_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_submissions_course_id'), ['course_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_submissions_course_id_courses'), 'courses', ['course_id'], ['id'], ondelete='CASCADE')
    with op.batch_alter_table('wrong_parts', schema=None) as batch_op:
        batch_op.alter_column('course_id', existing_type=sa.Integer(), nullable=False)
        batch_op.drop_index('ix_wrong_parts_exercise_latest')
        batch_op.create_index('ix_wrong_parts_exercise_latest', ['course_id', 'exercise_id', 'attempt_id', 'user_id', 'misconception', 'part', 'typed'], unique=False)


def _site_roles():
    """learner/instructor becomes learner/staff, and the earliest instructor the admin."""
    connection = op.get_bind()
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_constraint('role', type_='check')
    first = connection.execute(sa.text("SELECT min(id) FROM users WHERE role = 'instructor'")).scalar()
    connection.execute(sa.text("UPDATE users SET role = 'staff' WHERE role = 'instructor'"))
    if first is not None:
        connection.execute(sa.text("UPDATE users SET role = 'admin' WHERE id = :id"), {'id': first})
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.create_check_constraint('role', "role IN ('learner', 'staff', 'admin')")


def downgrade():
    """Only while a site still has its one course: each row's course is dropped, roles go back."""
    connection = op.get_bind()
    if connection.execute(sa.text('SELECT count(*) FROM courses')).scalar() > 1:
        raise RuntimeError('this site has more than one course: its work cannot be folded back into one class')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_constraint('role', type_='check')
    connection.execute(sa.text("UPDATE users SET role = 'instructor' WHERE role IN ('staff', 'admin')"))
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.create_check_constraint('role', "role IN ('learner', 'instructor')")
    with op.batch_alter_table('wrong_parts', schema=None) as batch_op:
        batch_op.drop_index('ix_wrong_parts_exercise_latest')
        batch_op.create_index('ix_wrong_parts_exercise_latest', ['exercise_id', 'attempt_id', 'user_id', 'misconception', 'part', 'typed'], unique=False)
        batch_op.drop_column('course_id')
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.drop_constraint('fk_submissions_course_id_courses', type_='foreignkey')
        batch_op.drop_index('ix_submissions_course_id')
        batch_op.drop_index('ix_submissions_user_exercise')
        batch_op.create_index('ix_submissions_user_exercise', ['user_id', 'exercise_id'], unique=False)
        batch_op.drop_column('course_id')
    with op.batch_alter_table('progress', schema=None) as batch_op:
        batch_op.drop_index('ix_progress_course_exercise')
        batch_op.create_index('ix_progress_exercise_id', ['exercise_id'], unique=False)
    for table in ('progress', 'extensions'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(f'fk_{table}_course_id_courses', type_='foreignkey')
            batch_op.drop_constraint(f'pk_{table}', type_='primary')
            batch_op.create_primary_key(f'pk_{table}', ['user_id', 'exercise_id'])
            batch_op.drop_column('course_id')
    for table in ('exercises', 'audit_events'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(f'fk_{table}_course_id_courses', type_='foreignkey')
            batch_op.drop_index(f'ix_{table}_course_id')
            batch_op.drop_column('course_id')
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_constraint('fk_attempts_course_id_courses', type_='foreignkey')
        batch_op.drop_constraint('uq_attempts_answers', type_='unique')
        batch_op.create_unique_constraint('uq_attempts_answers', ['user_id', 'exercise_id', 'version', 'answers_hash'])
        batch_op.drop_index('ix_attempts_exercise_latest')
        batch_op.create_index('ix_attempts_exercise_latest', ['exercise_id', 'id', 'user_id'], unique=False)
        batch_op.drop_column('course_id')
    op.drop_index('ix_course_exercises_exercise_id', table_name='course_exercises')
    op.drop_table('course_exercises')
    op.drop_index('ix_course_members_user_id', table_name='course_members')
    op.drop_table('course_members')
    op.drop_table('courses')
