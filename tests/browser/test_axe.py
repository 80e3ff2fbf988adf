"""axe-core on every page state the browser tests reach, in English, Portuguese and Russian, at
1280 px and at 320 px (a phone, and 1280 px at 400 % zoom): zero violations.

One server for the module; the learner's work (attempts, hints, a give-up, graded code) is made once
through the services, so each state is one visit. Each language gets its own browser contexts (a
visitor, a learner and an instructor, each signed in once); each state is one test that runs axe at
both widths. How to add a state: docs/development/accessibility.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

from grader.models import User
from grader.extensions import db
from grader.sandbox import default_pool
from grader.services import attempts, help, password_reset, submissions
from tests.browser.axe import describe, violations
from tests.browser.conftest import TIMEOUT_MS, LiveServer, expected, fmt, login, mistake
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.web.conftest import make_user, seat

LANGUAGES = {"en": "en-US", "pt": "pt-PT", "ru": "ru-RU"}
WIDTHS: dict[str, ViewportSize] = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 320, "height": 640}}
LEARNER, INSTRUCTOR = "axe-learner@example.com", "axe-teacher@example.com"

NUMERIC = "block-layernorm"  # a wrong attempt, then an unreadable one sent from the page
SOLVED = "block-gelu"  # a right attempt, then practice
FRESH = "block-residual"  # never answered
GIVEN_UP = "attention-by-hand"  # the learner gave up: the worked solution shows
CODE = "code-layer-norm"  # a passing and a failing run
CODE_FRESH = "code-gelu"
CODE_HINTS = "code-swiglu"  # two hints taken


@dataclass(frozen=True)
class World:
    """What the states visit: the server, the learner's id and the work made for them."""

    base: str
    learner: int
    wrong: int  # attempt ids
    right: int
    passed: int  # submission ids
    failed: int
    reset_token: str


@dataclass(frozen=True)
class People:
    """One language's pages: a visitor's, the signed-in learner's and the signed-in instructor's."""

    lang: str
    public: Page
    learner: Page
    instructor: Page


def _graded(app_learner: int, exercise: str, source: str) -> int:
    made = submissions.create(seat(app_learner), exercise, source).submission.id
    graded = submissions.grade_safely(made, default_pool)
    assert graded is not None and graded.status != "pending"
    return made


@pytest.fixture(scope="module")
def world(live_server: LiveServer) -> World:
    """The learner's work on the exercises the states show, made through the services."""
    app = live_server.app
    learner = make_user(app, LEARNER)
    make_user(app, INSTRUCTOR, "instructor")
    right = expected(app, LEARNER, NUMERIC)
    wrong = {part: fmt(value) for part, value in right.items()}
    wrong["sigma"] = fmt(mistake(app, LEARNER, NUMERIC, "sigma", "sample-variance"))
    solved = {part: fmt(value) for part, value in expected(app, LEARNER, SOLVED).items()}
    with app.app_context():
        wrong_id = attempts.submit(seat(learner), NUMERIC, wrong).attempt
        right_id = attempts.submit(seat(learner), SOLVED, solved).attempt
        assert wrong_id is not None and right_id is not None
        for _ in range(2):
            assert help.take_hint(seat(learner), CODE_HINTS, available=3)
        assert help.give_up(seat(learner), GIVEN_UP)
        passed, failed = _graded(learner, CODE, GOOD), _graded(learner, CODE, NO_EPS)
        token = password_reset.reset_token(db.session.get_one(User, learner), app.config["SECRET_KEY"])
    return World(live_server.url, learner, wrong_id.id, right_id.id, passed, failed, token)


@pytest.fixture(scope="module", params=list(LANGUAGES))
def people(request: pytest.FixtureRequest, browser: Browser, world: World) -> Iterator[People]:
    """One language's three pages, signed in once. The contexts bypass the page's CSP, which would
    refuse the inline <script> that add_script_tag writes (axe.py)."""
    contexts: list[BrowserContext] = []

    def page() -> Page:
        context = browser.new_context(locale=LANGUAGES[request.param], bypass_csp=True, viewport=WIDTHS["desktop"])
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    found = People(request.param, page(), page(), page())
    for signed_in, email in ((found.learner, LEARNER), (found.instructor, INSTRUCTOR)):
        login(signed_in, world.base, email)
        # Signing in brings back the language the account chose last (another language's run): choose again.
        signed_in.select_option("#language-choice", request.param)
        signed_in.locator("form.language button").click()
        signed_in.wait_for_load_state()
    yield found
    for context in contexts:
        context.close()


# ---- the page states ---------------------------------------------------------------------------


Visit = Callable[[Page, World], None]


def go(path: str) -> Visit:
    """A state that is one address (formatted with the world's fields)."""
    return lambda page, world: _goto(page, world.base + path.format(w=world))


def _goto(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")  # live previews and background checks have answered


def register_mismatched(page: Page, world: World) -> None:
    _goto(page, world.base + "/register")
    page.fill("#email", "someone@example.com")
    page.fill("#password", "long enough password")
    page.fill("#confirm", "another password here")
    page.click("button.primary")
    page.wait_for_load_state("networkidle")


def unreadable_answers(page: Page, world: World) -> None:
    _goto(page, f"{world.base}/exercises/{NUMERIC}")
    page.fill("#part-mu", "0,1")
    page.fill("#part-sigma", "what")
    page.fill("#part-u", "[0,100; -0,200")
    page.click("button.primary")
    page.wait_for_load_state("networkidle")


def practice_checked(page: Page, world: World) -> None:
    _goto(page, f"{world.base}/exercises/{SOLVED}/practice")
    for field in page.locator("form.answers .part :is(input, textarea)").all():
        field.fill("1,000")
    page.click("button.primary")
    page.wait_for_load_state("networkidle")


STATES: dict[str, tuple[str, Visit]] = {
    # public
    "home, signed out": ("public", go("/")),
    "log in": ("public", go("/login")),
    "register": ("public", go("/register")),
    "register, with an error": ("public", register_mismatched),
    "forgotten password": ("public", go("/forgot")),
    "password reset": ("public", go("/reset/{w.reset_token}")),
    "page not found": ("public", go("/no-such-page")),
    # learner
    "dashboard": ("learner", go("/")),
    "profile": ("learner", go("/profile")),
    "exercise, before an answer": ("learner", go(f"/exercises/{FRESH}")),
    "exercise, after a wrong answer": ("learner", go(f"/exercises/{NUMERIC}?attempt={{w.wrong}}&outcome=graded")),
    "exercise, after an unreadable answer": ("learner", unreadable_answers),
    "exercise, after a right answer": ("learner", go(f"/exercises/{SOLVED}?attempt={{w.right}}&outcome=graded")),
    "exercise, given up (solution)": ("learner", go(f"/exercises/{GIVEN_UP}")),
    "practice": ("learner", go(f"/exercises/{SOLVED}/practice")),
    "practice, checked": ("learner", practice_checked),
    "code, before a run": ("learner", go(f"/exercises/{CODE_FRESH}")),
    "code, hints shown": ("learner", go(f"/exercises/{CODE_HINTS}")),
    "code, passed": ("learner", go(f"/exercises/{CODE}?submission={{w.passed}}")),
    "code, failed": ("learner", go(f"/exercises/{CODE}?submission={{w.failed}}")),
    # instructor
    "exercise list": ("instructor", go("/teach/exercises")),
    "exercise statistics": ("instructor", go(f"/teach/exercises/{NUMERIC}")),
    "code statistics": ("instructor", go(f"/teach/exercises/{CODE}")),
    "editor, new": ("instructor", go("/teach/exercises/new")),
    "editor, an exercise": ("instructor", go(f"/teach/exercises/{NUMERIC}/edit")),
    "editor, a code exercise": ("instructor", go(f"/teach/exercises/{CODE}/edit")),
    "import": ("instructor", go("/teach/import")),
    "gradebook": ("instructor", go("/teach/gradebook")),
    "learner work": ("instructor", go(f"/teach/gradebook/{{w.learner}}/{NUMERIC}")),
    "learner code": ("instructor", go(f"/teach/gradebook/{{w.learner}}/{CODE}")),
    "audit": ("instructor", go("/teach/audit")),
}


@pytest.mark.parametrize("state", list(STATES))
def test_no_axe_violations(people: People, world: World, state: str) -> None:
    who, visit = STATES[state]
    page: Page = getattr(people, who)
    page.set_viewport_size(WIDTHS["desktop"])
    visit(page, world)
    assert page.evaluate("document.documentElement.lang") == people.lang  # the page is in the language tested
    found = {}
    for width, size in WIDTHS.items():
        page.set_viewport_size(size)
        found[width] = violations(page)
    report = "\n".join(f"at {WIDTHS[w]['width']} px:\n{describe(v)}" for w, v in found.items() if v)
    assert not report, f"axe found violations on {state!r} ({page.url}):\n{report}"
