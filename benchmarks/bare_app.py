"""The baseline for benchmarks/http_attempts.py: a bare Flask JSON endpoint, same gunicorn settings."""

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/api/v1/exercises/<exercise_id>/attempts")
def attempt(exercise_id: str):  # type: ignore[no-untyped-def]
    """Parse the JSON body and answer, doing no grading and no storage."""
    body = request.get_json(silent=True) or {}
    return jsonify(exercise=exercise_id, parts=len(body.get("answers", {}))), 201


@app.get("/page")
def page():  # type: ignore[no-untyped-def]
    """A small HTML page, the baseline of benchmarks/class_scale.py."""
    return "<!doctype html><title>bare</title><p>" + "bare Flask " * 100 + "</p>"
