"""Who may see and change what, over every route: site role (admin, staff, none) × course role (instructor,
TA, learner, none) × the same course or another.

Two courses, alpha and beta, use the same catalogue exercise; alpha also has an exercise written in it.
A learner of alpha (Lia) has answered in alpha with a number nobody else typed. Every GET route of the
pages and the JSON API is requested by every kind of person, with every path parameter pointed at
alpha's things (Lia, alpha's own exercise, alpha's code). Only alpha's staff, the site's admin and Lia
herself may ever get a response that shows Lia or what she typed; a route added later with a path
parameter this file cannot fill fails here until it is given one.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Iterator

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import INSTRUCTOR, LEARNER, TA
from grader.extensions import db
from grader.models import Progress, User
from grader.code_models import Submission
from grader.services import accounts, api_tokens, attempts, authoring, course_content, courses, overrides, publishing
from grader.services.courses import Seat
from tests.web.conftest import PASSWORD, csrf_from, login

SHARED = "block-residual"  # in both courses, as is block-gelu
OWN = "alpha-residual"  # written in alpha
SECRET_EMAIL = "lia-secret@example.com"
SECRET_TYPED = "7.531"  # Lia's wrong answer: no one else types it
SECRET_TITLE = "Residual kept in alpha"
SECRET_LESSON = "alpha-private-notes"  # the lesson of alpha's own exercise: no other course lists it
WRONG = "[7.531; 7.531; 7.531; 7.531]"
SKIPPED_BLUEPRINTS = ("static", "lti", "health")  # files, the LMS's own entry points (tests/lti), probes
SKIPPED = {"auth.reset"}  # a reset token's page: tested with its tokens in test_password_reset.py


@dataclass(frozen=True)
class Person:
    """One kind of person in the matrix: site role, course roles, and what they may see of alpha."""

    name: str
    site_role: str
    memberships: tuple[tuple[str, str], ...]
    sees_alpha_learners: bool = False  # alpha's instructors, TAs and the admin
    is_lia: bool = False

    @property
    def email(self) -> str:
        return SECRET_EMAIL if self.is_lia else f"{self.name}@example.com"

    @property
    def in_alpha(self) -> bool:
        return self.site_role == "admin" or any(code == "alpha" for code, _ in self.memberships)


PEOPLE = (
    Person("admin", "admin", (), sees_alpha_learners=True),
    Person("staff", "staff", ()),  # site staff (may create courses), teaches none of these
    Person("alpha-teacher", "learner", (("alpha", INSTRUCTOR),), sees_alpha_learners=True),
    Person("alpha-ta", "learner", (("alpha", TA),), sees_alpha_learners=True),
    Person("lia", "learner", (("alpha", LEARNER),), is_lia=True),
    Person("beta-teacher", "staff", (("beta", INSTRUCTOR),)),
    Person("beta-ta", "learner", (("beta", TA),)),
    Person("beta-learner", "learner", (("beta", LEARNER),)),
    Person("nobody", "learner", ()),  # an account in no course
)


def build_world(app: Flask) -> dict[str, int]:
    """Both courses, everyone in PEOPLE, alpha's own published exercise, and Lia's work in alpha."""
    ids: dict[str, int] = {}
    with app.app_context():
        courses.ensure_default().open_enrolment = False
        for code in ("alpha", "beta"):
            ids[code] = courses.create(code, f"Course {code}").id
            course_content.use_exercises(ids[code], [SHARED, "block-gelu"])
        for person in PEOPLE:
            user = accounts.create_user(person.email, PASSWORD, person.site_role)
            ids[person.name] = user.id
            for code, role in person.memberships:
                courses.add_member(courses.by_code(code), user, role)  # type: ignore[arg-type]
        _alpha_exercise(ids)
        seat = Seat(ids["alpha"], ids["lia"])
        assert attempts.submit(seat, SHARED, {"h": WRONG}).outcome == "graded"
        overrides.set_score(seat, "block-gelu", "40", "talked it through", ids["alpha-teacher"])  # audited
        db.session.add(Submission(course_id=ids["alpha"], user_id=ids["lia"], exercise_id=SHARED, version=1,
                                  seed=1, source=f"# {SECRET_TYPED}", source_hash="0" * 64))  # fmt: skip
        db.session.commit()
        ids["submission"] = db.session.scalar(sa.select(sa.func.max(Submission.id)))
    return ids


def _alpha_exercise(ids: dict[str, int]) -> None:
    from tests.web.test_learn import EXERCISES

    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
    source = source.replace(f"id: {SHARED}", f"id: {OWN}").replace("title: The first residual",
                                                                    f"title: {SECRET_TITLE}")  # fmt: skip
    source = source.replace("lesson: gpt2-block", f"lesson: {SECRET_LESSON}")
    checked, outcome = authoring.save(source, ids["alpha-teacher"], "web", new=True)
    assert outcome == "created", checked.errors
    from grader.models import Exercise

    found = db.session.get(Exercise, OWN)
    assert found is not None
    found.course_id = ids["alpha"]
    db.session.commit()
    publishing.publish(OWN, ids["alpha-teacher"])


@pytest.fixture
def world(app: Flask) -> dict[str, int]:
    return build_world(app)


def params_for(ids: dict[str, int]) -> dict[str, list[object]]:
    """Every value each path parameter is tried with: alpha's things."""
    return {"exercise_id": [SHARED, OWN], "user_id": [ids["lia"]], "code": ["alpha"],
            "name": ["solve-rates", "misconceptions-this-week", "stuck-learners", "completion",
                     "attempts-to-solve", "hints", "misconceptions"],
            "submission_id": [ids["submission"]]}  # fmt: skip


def get_urls(app: Flask, ids: dict[str, int]) -> Iterator[tuple[str, str]]:
    """(endpoint, URL) for every GET route, each path parameter filled with each of alpha's values."""
    values = params_for(ids)
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint.split(".")[0] in SKIPPED_BLUEPRINTS:
            continue
        if rule.endpoint in SKIPPED:
            continue
        missing = [a for a in rule.arguments if a not in values]
        assert not missing, f"{rule.rule}: give the matrix a value for {missing} (tests/web/{__name__}.py)"
        names = sorted(rule.arguments)
        for combination in itertools.product(*(values[n] for n in names)):
            with app.test_request_context():
                yield rule.endpoint, app.url_for(rule.endpoint, **dict(zip(names, combination)))


def signed_in(app: Flask, person: Person) -> FlaskClient:
    """The person's browser, working in alpha when they may; asking for alpha otherwise is a 404."""
    client = app.test_client()
    login(client, person.email)
    token = csrf_from(client.get("/profile").get_data(as_text=True))
    chose = client.post("/courses/use", data={"id": "alpha", "csrf_token": token})
    assert chose.status_code == (303 if person.in_alpha else 404), person.name
    return client


def bearer(app: Flask, person: Person) -> dict[str, str]:
    with app.app_context():
        user = accounts.user_by_email(person.email)
        assert user is not None
        return {"Authorization": f"Bearer {api_tokens.create_token(user)}"}


def shows_lia(body: str) -> list[str]:
    """What of Lia's a response shows: her email, what she typed, alpha's own exercise and its lesson."""
    return [s for s in (SECRET_EMAIL, SECRET_TYPED, SECRET_TITLE, SECRET_LESSON) if s in body]


def responses(app: Flask, ids: dict[str, int], person: Person) -> Iterator[tuple[str, str, int, str]]:
    """(endpoint, URL, status, body) of every GET route for this person, pages and API, in alpha."""
    client = signed_in(app, person)
    headers = bearer(app, person)
    for endpoint, url in get_urls(app, ids):
        if endpoint.startswith("api."):
            response = client.get(url, query_string={"course": "alpha"}, headers=headers)
        else:
            response = client.get(url)
        yield endpoint, url, response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize("person", PEOPLE, ids=lambda p: p.name)
def test_nobody_outside_alpha_s_staff_sees_a_learner_of_alpha(app: Flask, world: dict[str, int],
                                                            person: Person) -> None:  # fmt: skip
    """The matrix: every GET route, for every kind of person; a 5xx anywhere fails too."""
    seen: list[str] = []
    for endpoint, url, status, body in responses(app, world, person):
        assert status < 500, f"{person.name} {url}: {status}"
        leaked = shows_lia(body)
        if person.sees_alpha_learners:
            continue
        if person.is_lia:  # her own work and her course's exercise, never another learner's page about her
            if endpoint.startswith("teach.") or endpoint == "api.course_gradebook_csv":
                assert status in (403, 404), f"lia reached {url} ({status})"
            continue
        assert not leaked, f"{person.name} saw {leaked} at {url} ({status})"
        seen.append(f"{status} {url}")
    if not person.sees_alpha_learners and not person.is_lia:
        assert seen, "no route was tried"


STAFF_PAGES = ("/teach/gradebook", "/teach/gradebook.csv", "/teach/exercises/{shared}/analytics",
               "/teach/gradebook/{lia}/{shared}", "/teach/exercises/{shared}/attempts.csv")


@pytest.mark.parametrize("person", [p for p in PEOPLE if p.sees_alpha_learners], ids=lambda p: p.name)
def test_alpha_s_staff_and_the_admin_see_its_learners(app: Flask, world: dict[str, int], person: Person) -> None:
    client = signed_in(app, person)
    for page in STAFF_PAGES:
        url = page.format(shared=SHARED, lia=world["lia"])
        response = client.get(url)
        assert response.status_code == 200, url
        assert SECRET_EMAIL in response.get_data(as_text=True) or "attempts.csv" in url or "analytics" in url, url
    api = client.get("/api/v1/courses/alpha/gradebook.csv", headers=bearer(app, person))
    assert api.status_code == 200 and SECRET_EMAIL in api.get_data(as_text=True)


def test_the_matrix_counts_what_it_tries(app: Flask, world: dict[str, int]) -> None:
    """Each person meets every route (so a route added later is in the matrix without editing it)."""
    urls = list(get_urls(app, world))
    endpoints = {endpoint for endpoint, _ in urls}
    assert {"teach.learner_work", "teach.gradebook_csv", "api.course_gradebook_csv", "api.show_submission",
            "learn.exercise", "teach.exercise_csv"} <= endpoints  # fmt: skip
    assert len(urls) > len(endpoints)  # parameters tried with each of alpha's values


# Changes: each POST route that changes alpha's learners' grades or alpha's content, from someone of
# another course (or none): refused with 403 or 404, and nothing changes.
CHANGES = (
    ("/teach/gradebook/{lia}/{shared}/score", {"score": "100", "reason": "x"}),
    ("/teach/gradebook/{lia}/{shared}/due", {"due": "2030-01-01T00:00"}),
    ("/teach/exercises/{own}/regrade", {}),
    ("/teach/exercises/{own}/unpublish", {}),
    ("/teach/exercises/{own}/publish", {}),
    ("/teach/exercises/{own}/edit", {"source": "id: x"}),
)


def _progress(app: Flask, ids: dict[str, int]) -> list[tuple[object, ...]]:
    with app.app_context():
        rows = db.session.execute(sa.select(Progress.best_score, Progress.override_score).where(
            Progress.user_id == ids["lia"])).all()  # fmt: skip
        return [tuple(r) for r in rows]


@pytest.mark.parametrize("person", [p for p in PEOPLE if not p.sees_alpha_learners and not p.is_lia]
                         + [p for p in PEOPLE if p.is_lia], ids=lambda p: p.name)  # fmt: skip
def test_nobody_outside_alpha_s_staff_changes_its_grades_or_content(app: Flask, world: dict[str, int],
                                                                   person: Person) -> None:  # fmt: skip
    client = signed_in(app, person)
    token = csrf_from(client.get("/profile").get_data(as_text=True))
    before = _progress(app, world)
    for path, form in CHANGES:
        url = path.format(lia=world["lia"], shared=SHARED, own=OWN)
        response = client.post(url, data={**form, "csrf_token": token})
        assert response.status_code in (403, 404), f"{person.name} {url}: {response.status_code}"
    assert _progress(app, world) == before
    learner_view = client.get(f"/exercises/{OWN}")
    assert (learner_view.status_code == 200) == person.is_lia, person.name
    if not person.is_lia:
        assert not re.search(SECRET_TITLE, client.get("/").get_data(as_text=True))


def test_the_audit_trail_is_the_course_s(app: Flask, world: dict[str, int]) -> None:
    """A score set by hand for Lia in alpha is in alpha's trail, not in beta's (nor the rest of the site's
    events: those are the admin's)."""
    by_name = {p.name: p for p in PEOPLE}
    trail = signed_in(app, by_name["alpha-teacher"]).get("/teach/audit").get_data(as_text=True)
    assert SECRET_EMAIL in trail and "talked it through" in trail
    other = signed_in(app, by_name["beta-teacher"]).get("/teach/audit")
    assert other.status_code == 200 and "talked it through" not in other.get_data(as_text=True)


def test_a_regrade_in_one_course_leaves_the_other_s_learners_alone(app: Flask, world: dict[str, int]) -> None:
    """Both courses use the shared exercise; beta's regrade is beta's, and so is its audit event."""
    from grader.models import AuditEvent
    from grader.services.regrade import regrade

    with app.app_context():
        in_beta = regrade(SHARED, world["beta-teacher"], world["beta"])
        everywhere = regrade(SHARED)  # an operator's, course by course
        events = db.session.execute(sa.select(AuditEvent.actor_id, AuditEvent.course_id).where(
            AuditEvent.action == "regrade").order_by(AuditEvent.id)).all()  # fmt: skip
    assert in_beta.learners == set() and everywhere.learners == {world["lia"]}
    assert [tuple(e) for e in events] == [(world["beta-teacher"], world["beta"]), (None, world["alpha"])]


def test_only_site_staff_change_the_shared_catalogue(app: Flask, world: dict[str, int]) -> None:
    """A change to a catalogue exercise reaches every course that uses it: alpha's instructor (no site role)
    may not edit, publish or import over one; alpha's own exercise is theirs to edit."""
    import io

    teacher = signed_in(app, next(p for p in PEOPLE if p.name == "alpha-teacher"))
    assert teacher.get(f"/teach/exercises/{SHARED}/edit").status_code == 404
    assert teacher.get(f"/teach/exercises/{OWN}/edit").status_code == 200
    token = csrf_from(teacher.get("/teach/import").get_data(as_text=True))
    from tests.web.test_learn import EXERCISES

    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_bytes().replace(b"The first residual", b"Mine")
    sent = teacher.post("/teach/import", data={"csrf_token": token, "upload": (io.BytesIO(source), "x.yaml")},
                        content_type="multipart/form-data")  # fmt: skip
    assert sent.status_code == 422 and "already taken" in sent.get_data(as_text=True)
    with app.app_context():
        from grader.services.exercises import latest_version

        assert b"Mine" not in (latest_version(SHARED).source or "").encode()  # type: ignore[union-attr]


def test_no_reset_link_for_someone_who_teaches_another_course(app: Flask, world: dict[str, int]) -> None:
    """Beta's TA (no site role), added to alpha as a learner, is still beta's: a reset link made by alpha's staff
    would hand beta's learners over to them."""
    with app.app_context():
        courses.add_member(courses.by_code("alpha"), db.session.get(User, world["beta-ta"]), LEARNER)  # type: ignore[arg-type]
    for name in ("alpha-teacher", "alpha-ta"):
        client = signed_in(app, next(p for p in PEOPLE if p.name == name))
        token = csrf_from(client.get("/teach/reset-link").get_data(as_text=True))
        page = client.post("/teach/reset-link", data={"csrf_token": token, "email": "beta-ta@example.com"})
        assert "There is no learner with that email." in page.get_data(as_text=True) and "/reset/" not in \
            page.get_data(as_text=True), name  # fmt: skip
    made = client.post("/teach/reset-link", data={"csrf_token": token, "email": SECRET_EMAIL}).get_data(as_text=True)
    assert "/reset/" in made  # a learner who teaches nowhere gets one


def test_another_course_s_own_exercise_stays_off_this_trail(app: Flask, world: dict[str, int]) -> None:
    """A draft written in beta is saved (and unpublished) on beta's trail only."""
    from tests.web.test_learn import EXERCISES

    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
    with app.app_context():
        checked, outcome = authoring.save(source.replace(f"id: {SHARED}", "id: beta-secret"), world["beta-teacher"],
                                          "web", new=True, course_id=world["beta"])  # fmt: skip
        assert outcome == "created", checked.errors
        publishing.publish("beta-secret", world["beta-teacher"])
        publishing.unpublish("beta-secret", world["beta-teacher"])
    by_name = {p.name: p for p in PEOPLE}
    assert "beta-secret" not in signed_in(app, by_name["alpha-ta"]).get("/teach/audit").get_data(as_text=True)
    assert "beta-secret" in signed_in(app, by_name["beta-teacher"]).get("/teach/audit").get_data(as_text=True)


def test_a_ta_does_not_pull_the_roster(app: Flask, world: dict[str, int]) -> None:
    """The roster adds people to the course: instructors only, as on the People page."""
    client = signed_in(app, next(p for p in PEOPLE if p.name == "alpha-ta"))
    token = csrf_from(client.get("/teach/gradebook").get_data(as_text=True))
    assert client.post("/lti/roster", data={"csrf_token": token}).status_code == 403
