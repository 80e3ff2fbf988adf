"""WSGI entry point: gunicorn wsgi:app, flask --app wsgi ..."""

from grader import create_app

app = create_app()
