"""gunicorn settings for `make run`: workers from the CPU count, logs to stdout/stderr."""

import multiprocessing
import os

from grader.environment import bind_address, log_level, whole_number

bind = bind_address(os.environ)
workers = whole_number(os.environ, "GRADER_WORKERS", 2 * multiprocessing.cpu_count() + 1, 1, 256)
worker_class = "sync"
timeout = whole_number(os.environ, "GRADER_WORKER_TIMEOUT", 30, 1, 3600)
graceful_timeout = 20
keepalive = 5
max_requests = 5000  # recycle workers now and then so slow leaks cannot build up
max_requests_jitter = 500
accesslog = os.environ.get("GRADER_ACCESS_LOG", "-")
errorlog = "-"
loglevel = log_level(os.environ)
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
# Workers fork from a master that has imported the app once: a recycled worker starts in
# milliseconds instead of re-importing numpy, SQLAlchemy and the catalogue (about 1 s of CPU).
# create_app opens no database connection and starts no thread, so nothing is shared by the fork.
preload_app = True
# gunicorn's control socket has one fixed path per user, so a second gunicorn on the host (a test,
# a benchmark, a blue/green switch) would take it over; nothing here uses gunicornc.
control_socket_disable = True


def on_starting(server: object) -> None:
    """Refuse to start against a database at another release's migrations (grader/schema_version.py)."""
    from grader.config import settings
    from grader.schema_version import refuse_to_start

    refuse_to_start(settings()["SQLALCHEMY_DATABASE_URI"])
