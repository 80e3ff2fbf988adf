"""Baselines for benchmarks/http_attempts.py: an attempt with raw sqlite3, with or without grading.

RAW_GRADE unset (store-only): per request, find the token's owner, upsert the learner's progress,
insert the attempt row and commit once (WAL, synchronous=FULL and the busy timeout, as the
service). RAW_GRADE=1 (grade + store): also read the exercise's current version and the learner's
seed, grade the answers with grader.catalog as the service does, and store the verdicts.

No ORM, no Flask extensions, no layering: what is left is the storage (and the grading) an attempt
needs, so these bound what a Flask + SQLite service can reach on this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from flask import Flask, jsonify, request

from grader.catalog.catalog import check_answers
from grader.catalog.loader import spec_from_text
from grader.catalog.variants import Variant, make_variant
from grader.web.app import SQLITE_PRAGMAS

DATABASE = os.environ["GRADER_DATABASE_URL"].removeprefix("sqlite:///")
GRADE = os.environ.get("RAW_GRADE") == "1"
OWNER = "SELECT user_id FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL"
CURRENT = (
    "SELECT v.source_hash, v.source, s.seed FROM exercises e "
    "JOIN exercise_versions v ON v.exercise_id = e.id AND v.version = e.current_version "
    "LEFT JOIN variants s ON s.exercise_id = e.id AND s.user_id = ? WHERE e.id = ?"
)
PROGRESS = (
    "INSERT INTO progress (user_id, exercise_id, best_score, attempts_used, last_attempt_at) VALUES (?, ?, ?, 1, ?) "
    "ON CONFLICT (user_id, exercise_id) DO UPDATE SET attempts_used = attempts_used + 1, "
    "best_score = max(best_score, excluded.best_score), last_attempt_at = excluded.last_attempt_at "
    "RETURNING attempts_used"
)
ATTEMPT = (
    "INSERT INTO attempts (user_id, exercise_id, version, seed, number, answers, parsed, results, raw_score, "
    "score, answers_hash, created_at) VALUES (?, ?, 0, ?, ?, ?, '{}', ?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING RETURNING id"
)
app = Flask(__name__)
_connection: sqlite3.Connection | None = None


def connection() -> sqlite3.Connection:
    """This worker's connection, with the service's pragmas."""
    global _connection
    if _connection is None:
        _connection = sqlite3.connect(DATABASE)
        for pragma in SQLITE_PRAGMAS:
            _connection.execute(f"PRAGMA {pragma}")
    return _connection


@lru_cache(maxsize=4096)
def variant(source_hash: str, source: str, seed: int) -> Variant:
    """The variant, made once per version and seed (as the service caches it)."""
    spec, errors = spec_from_text(source, "stored")
    assert spec is not None, errors
    return make_variant(spec, seed)


def grade(db: sqlite3.Connection, user_id: int, exercise_id: str, answers: dict[str, Any]) -> tuple[int, float, str]:
    """The seed, score and per-part verdicts (JSON) of the answers; nothing graded without RAW_GRADE."""
    if not GRADE:
        return 0, 0.0, "{}"
    source_hash, source, seed = db.execute(CURRENT, (user_id, exercise_id)).fetchone()
    result = check_answers(variant(source_hash, source, seed or 1), answers)
    return seed or 1, result.score, json.dumps(result.to_json()["parts"])


@app.post("/api/v1/exercises/<exercise_id>/attempts")
def attempt(exercise_id: str):  # type: ignore[no-untyped-def]
    """Store the answers as an attempt of the token's owner, graded with RAW_GRADE=1."""
    db = connection()
    token = request.headers.get("Authorization", "").partition(" ")[2]
    owner = db.execute(OWNER, (hashlib.sha256(token.encode()).hexdigest(),)).fetchone()
    if owner is None:
        return jsonify(error="unauthorized"), 401
    answers = (request.get_json(silent=True) or {}).get("answers", {})
    seed, score, verdicts = grade(db, owner[0], exercise_id, answers)
    typed = json.dumps(answers, sort_keys=True)
    now = datetime.now(timezone.utc).replace(tzinfo=None).isoformat(" ")
    (number,) = db.execute(PROGRESS, (owner[0], exercise_id, score, now)).fetchone()
    digest = hashlib.sha256(typed.encode()).hexdigest()
    row = (owner[0], exercise_id, seed, number, typed, verdicts, score, score, digest, now)
    stored = db.execute(ATTEMPT, row).fetchone()
    if stored is None:
        db.rollback()
        return jsonify(outcome="repeat"), 200
    db.commit()
    return jsonify(attempt_id=stored[0], outcome="graded", score=score, parts=json.loads(verdicts)), 201
