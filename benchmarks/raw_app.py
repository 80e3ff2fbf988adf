"""A second baseline for benchmarks/http_attempts.py: store each attempt with raw sqlite3, grade nothing.

Per request it does only the storage an attempt needs: find the token's owner, upsert the
learner's progress, insert the attempt row and commit once (WAL, synchronous=NORMAL, writers
queued as in the service). No ORM, no grading, no Flask extensions. Its throughput is a ceiling
for any Flask + SQLite service that stores every attempt before it answers, on this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from datetime import datetime, timezone

from flask import Flask, jsonify, request

from grader.sqlite_writers import QueuedWriterConnection

DATABASE = os.environ["GRADER_DATABASE_URL"].removeprefix("sqlite:///")
OWNER = "SELECT user_id FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL"
PROGRESS = (
    "INSERT INTO progress (user_id, exercise_id, best_score, attempts_used, last_attempt_at) VALUES (?, ?, 0, 1, ?) "
    "ON CONFLICT (user_id, exercise_id) DO UPDATE SET attempts_used = attempts_used + 1, "
    "last_attempt_at = excluded.last_attempt_at RETURNING attempts_used"
)
ATTEMPT = (
    "INSERT INTO attempts (user_id, exercise_id, version, seed, number, answers, parsed, results, raw_score, "
    "score, answers_hash, created_at) VALUES (?, ?, 0, 0, ?, ?, '{}', '{}', 0, 0, ?, ?) "
    "ON CONFLICT DO NOTHING RETURNING id"
)
app = Flask(__name__)
_connection: sqlite3.Connection | None = None


def connection() -> sqlite3.Connection:
    """This worker's connection, with the service's pragmas."""
    global _connection
    if _connection is None:
        _connection = sqlite3.connect(DATABASE, factory=QueuedWriterConnection)
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=10000", "synchronous=NORMAL"):
            _connection.execute(f"PRAGMA {pragma}")
    return _connection


@app.post("/api/v1/exercises/<exercise_id>/attempts")
def attempt(exercise_id: str):  # type: ignore[no-untyped-def]
    """Store the answers as an attempt of the token's owner; no grading."""
    db = connection()
    token = request.headers.get("Authorization", "").partition(" ")[2]
    owner = db.execute(OWNER, (hashlib.sha256(token.encode()).hexdigest(),)).fetchone()
    if owner is None:
        return jsonify(error="unauthorized"), 401
    answers = json.dumps((request.get_json(silent=True) or {}).get("answers", {}), sort_keys=True)
    now = datetime.now(timezone.utc).replace(tzinfo=None).isoformat(" ")
    (number,) = db.execute(PROGRESS, (owner[0], exercise_id, now)).fetchone()
    digest = hashlib.sha256(answers.encode()).hexdigest()
    stored = db.execute(ATTEMPT, (owner[0], exercise_id, number, answers, digest, now)).fetchone()
    if stored is None:
        db.rollback()
        return jsonify(outcome="repeat"), 200
    db.commit()
    return jsonify(attempt_id=stored[0], outcome="graded"), 201
