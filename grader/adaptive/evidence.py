"""What an answer, a hint or a give-up says about a learner's skills, as observations for grader.adaptive.model."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from grader.adaptive.model import ATTEMPT, CODE, Observation
from grader.catalog.skills import MISTAKE_SKILLS, distinct
from grader.catalog.spec import ExerciseSpec
from grader.codecheck.results import CodeResult
from grader.codecheck.spec import CodeExerciseSpec

ANSWERED = ("correct", "incorrect")  # an unreadable or unchecked part says nothing about a skill


def exercise_skills(spec: ExerciseSpec | CodeExerciseSpec) -> tuple[str, ...]:
    """Every skill an exercise practises: its parts' (typed answers) or its own (code)."""
    if isinstance(spec, CodeExerciseSpec):
        return distinct(spec.skills)
    return distinct([s for part in spec.parts for s in spec.part_skills(part.id)])


def of_results(spec: ExerciseSpec, results: Mapping[str, Mapping[str, Any]], at: datetime,
               source: str = ATTEMPT) -> list[Observation]:  # fmt: skip
    """One observation per answered part and skill: a named mistake counts against the mistake's skills."""
    found: list[Observation] = []
    for part, verdict in results.items():
        if verdict.get("status") not in ANSWERED:
            continue
        correct = verdict["status"] == "correct"
        mistake = None if correct else verdict.get("misconception") or None
        skills = spec.mistake_skills(part, mistake) if mistake else spec.part_skills(part)
        found.extend(Observation(skill, correct, at, source, mistake, part) for skill in skills)
    return found


def of_help(spec: ExerciseSpec | CodeExerciseSpec, at: datetime, source: str) -> list[Observation]:
    """A hint (no answer) or a give-up (a wrong answer) on each of the exercise's skills."""
    correct = None if source == "hint" else False
    return [Observation(skill, correct, at, source) for skill in exercise_skills(spec)]


def of_code(spec: CodeExerciseSpec, result: CodeResult, at: datetime) -> list[Observation]:
    """A graded code submission on the exercise's skills: passed is right; a named mistake is wrong on the mistake's
    skills (the catalogue's, else the exercise's); any other failure is wrong. Code that was not graded (a syntax
    error, no sandbox, a starved host) says nothing about a skill."""
    if not result.counted:
        return []
    if result.status == "passed":
        return [Observation(skill, True, at, CODE) for skill in exercise_skills(spec)]
    mistake = result.misconception or None
    skills = (MISTAKE_SKILLS.get(mistake) if mistake else None) or exercise_skills(spec)
    return [Observation(skill, False, at, CODE, mistake) for skill in skills]
