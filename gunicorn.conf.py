"""gunicorn settings for `make run`: workers from the CPU count, logs to stdout/stderr."""

import multiprocessing
import os

bind = os.environ.get("GRADER_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("GRADER_WORKERS", 2 * multiprocessing.cpu_count() + 1))
worker_class = "sync"
timeout = int(os.environ.get("GRADER_WORKER_TIMEOUT", 30))
graceful_timeout = 20
keepalive = 5
max_requests = 5000  # recycle workers now and then so slow leaks cannot build up
max_requests_jitter = 500
accesslog = os.environ.get("GRADER_ACCESS_LOG", "-")
errorlog = "-"
loglevel = os.environ.get("GRADER_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
