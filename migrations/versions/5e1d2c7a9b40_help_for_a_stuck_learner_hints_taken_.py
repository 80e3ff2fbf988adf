"""Help for a stuck learner: hints taken and giving up, per learner and exercise; hints before each attempt

Revision ID: 5e1d2c7a9b40
Revises: 08bdb72eef9a
Create Date: 2026-12-02 07:05:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5e1d2c7a9b40'
down_revision = '08bdb72eef9a'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('progress', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hints_used', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('gave_up_at', sa.DateTime(), nullable=True))

    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hints_used', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_column('hints_used')

    with op.batch_alter_table('progress', schema=None) as batch_op:
        batch_op.drop_column('gave_up_at')
        batch_op.drop_column('hints_used')
