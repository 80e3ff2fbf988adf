"""Wrong parts: the incorrect parts of each attempt, one narrow row each, for the class figures; attempts'
latest-first index also carries user_id

Revision ID: ddbbbb078bd7
Revises: a8c4e6f1b2d3
Create Date: 2026-12-02 13:14:55.291609


Fills the table from the stored verdicts of every attempt (in batches, keyed by attempt id). Its own copy
of the rows' rule (grader.wrong_parts), as a migration must keep doing what it did when it was written.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'ddbbbb078bd7'
down_revision = 'a8c4e6f1b2d3'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('wrong_parts',
    sa.Column('attempt_id', sa.Integer(), nullable=False),
    sa.Column('part', sa.String(length=80), nullable=False),
    sa.Column('exercise_id', sa.String(length=80), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('typed', sa.String(length=201), nullable=False),
    sa.Column('misconception', sa.String(length=80), nullable=True),
    sa.ForeignKeyConstraint(['attempt_id'], ['attempts.id'], name=op.f('fk_wrong_parts_attempt_id_attempts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('attempt_id', 'part', name=op.f('pk_wrong_parts'))
    )
    with op.batch_alter_table('wrong_parts', schema=None) as batch_op:
        batch_op.create_index('ix_wrong_parts_exercise_latest',
                              ['exercise_id', 'attempt_id', 'user_id', 'misconception', 'part', 'typed'], unique=False)
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_index('ix_attempts_exercise_latest')
        batch_op.create_index('ix_attempts_exercise_latest', ['exercise_id', 'id', 'user_id'], unique=False)
    _fill()


BATCH = 2000
TYPED_CHARS = 200


def _text(typed):
    text = " ".join(str(typed if typed is not None else "").split())
    return text if len(text) <= TYPED_CHARS else text[:TYPED_CHARS] + "\u2026"


def _fill():
    """One row per incorrect part of every stored attempt."""
    connection = op.get_bind()
    attempts = sa.table("attempts", sa.column("id", sa.Integer), sa.column("user_id", sa.Integer),
                        sa.column("exercise_id", sa.String), sa.column("answers", sa.JSON),
                        sa.column("results", sa.JSON))
    wrong = sa.table("wrong_parts", *(sa.column(name) for name in
                                      ("attempt_id", "part", "exercise_id", "user_id", "typed", "misconception")))
    last = 0
    while True:
        batch = connection.execute(sa.select(attempts).where(attempts.c.id > last)
                                   .order_by(attempts.c.id).limit(BATCH)).all()
        if not batch:
            return
        rows = [{"attempt_id": a.id, "part": part, "exercise_id": a.exercise_id, "user_id": a.user_id,
                 "typed": _text((a.answers or {}).get(part)), "misconception": verdict.get("misconception") or None}
                for a in batch for part, verdict in (a.results or {}).items()
                if isinstance(verdict, dict) and verdict.get("status") == "incorrect"]
        if rows:
            connection.execute(sa.insert(wrong), rows)
        last = batch[-1].id


def downgrade():
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_index('ix_attempts_exercise_latest')
        batch_op.create_index('ix_attempts_exercise_latest', ['exercise_id', 'id'], unique=False)
    with op.batch_alter_table('wrong_parts', schema=None) as batch_op:
        batch_op.drop_index('ix_wrong_parts_exercise_latest')

    op.drop_table('wrong_parts')
