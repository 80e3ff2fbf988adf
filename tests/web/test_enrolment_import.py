"""Importing people into a course: the CSV and list formats, each bad row with its reason, nothing imported
until fixed (or the good rows on request), accounts made without a password, re-imports, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.course_models import INSTRUCTOR, LEARNER, TA, CourseMember
from grader.extensions import db
from grader.models import AuditEvent, User
from grader.services import accounts, courses, enrolment, password_reset
from grader.services.enrolment_rows import MAX_ROWS, ListRefused, read_csv, read_list
from tests.web.conftest import PASSWORD

BAD_FILE = (  # row 1 is the header; row 5 is blank and counts as a spreadsheet row
    "\ufeffRole;E-mail;Name\n"
    "learner;ada@example.com;Ada Lovelace\n"
    ";not-an-email;Nobody\n"
    "professor;bo@example.com;Bo\n"
    "\n"
    "ta;ADA@example.com;Ada again\n"
    "ta;\u0430lice@example.com;Alice with a Cyrillic a\n"
    "TA;cy@example.com;Cy\n"
)


def reasons(data: bytes) -> list[tuple[int, str]]:
    return [(p.number, str(p.reason)) for p in read_csv(data, accounts.new_email).bad]


def test_each_bad_row_is_listed_with_its_number_and_reason() -> None:
    rows = read_csv(BAD_FILE.encode(), accounts.new_email)
    assert [(r.number, r.email, r.role, r.role_given) for r in rows.good] == [
        (2, "ada@example.com", LEARNER, True), (8, "cy@example.com", TA, True)]
    assert reasons(BAD_FILE.encode()) == [
        (3, "Enter a valid email address."),
        (4, "unknown role professor: use instructor, ta or learner"),
        (6, "the same email as row 2"),
        (7, "This email address mixes letters of different alphabets, so it can pass for another address. "
            "Use one alphabet in each part."),
    ]


def test_a_file_without_a_header_has_the_columns_in_order_and_commas_work_too() -> None:
    rows = read_csv(b"ada@example.com,Ada,instructor\nbo@example.com\n", accounts.new_email)
    assert [(r.number, r.email, r.name, r.role, r.role_given) for r in rows.good] == [
        (1, "ada@example.com", "Ada", INSTRUCTOR, True), (2, "bo@example.com", "", LEARNER, False)]
    quoted = read_csv(b'email,name\nada@example.com,"Lovelace, Ada"\n', accounts.new_email)
    assert quoted.good[0].name == "Lovelace, Ada" and not quoted.bad


@pytest.mark.parametrize(("data", "said"), [
    (b"x" * 1_000_001, "The file is 1001 KB; at most 1000 KB are read at once."),
    (b"email\n" + b"".join(b"p%d@example.com\n" % i for i in range(MAX_ROWS + 1)),
     "There are 5001 people in it; at most 5000 are imported at once."),
    ("email\nada@example.com\n".encode("utf-16"), "The file is not UTF-8 text."),
    (b"who;name\nada@example.com;Ada\n", "The first row names no email column."),
    (b"email\nada@example.com\nbo@exa\x00mple.com\n", "The file is not UTF-8 text."),
    ("email\nada@example.com\n".encode("utf-16-le"), "The file is not UTF-8 text."),
    (b'email,name\nada@example.com,"' + b"x" * 200_000 + b"\n", "Row 2 cannot be read as CSV"),
])  # fmt: skip
def test_a_file_that_cannot_be_read_is_refused_whole(data: bytes, said: str) -> None:
    with pytest.raises(ListRefused) as refused:
        read_csv(data, accounts.new_email)
    assert str(refused.value).startswith(said)


def test_a_list_may_be_separated_by_lines_commas_semicolons_or_spaces() -> None:
    text = "ada@example.com, bo@example.com;cy@example.com\ndi@example.com  ed@example.com\n" \
           "Fay Smith <fay@example.com>; oops@"
    rows = read_list(text, accounts.new_email)
    assert [r.email for r in rows.good] == [f"{n}@example.com" for n in ("ada", "bo", "cy", "di", "ed", "fay")]
    assert [(p.number, p.given) for p in rows.bad] == [(7, "oops@")]
    assert {r.role for r in rows.good} == {LEARNER}


@pytest.fixture
def course(app: Flask) -> int:
    with app.app_context():
        courses.ensure_default().open_enrolment = False
        return courses.create("ml101", "Transformers").id


def member_roles(course_id: int) -> dict[str, str]:
    rows = db.session.execute(sa.select(User.email, CourseMember.role).join(CourseMember).where(
        CourseMember.course_id == course_id)).all()  # fmt: skip
    return dict(rows)  # type: ignore[arg-type]


def test_bad_rows_stop_the_import_until_the_good_ones_are_asked_for(app: Flask, course: int) -> None:
    with app.app_context():
        refused = enrolment.import_file(course, BAD_FILE.encode(), None)
        assert not refused.imported and len(refused.bad) == 4 and member_roles(course) == {}
        assert accounts.user_by_email("ada@example.com") is None
        done = enrolment.import_file(course, BAD_FILE.encode(), None, good_only=True)
        assert done.imported and member_roles(course) == {"ada@example.com": LEARNER, "cy@example.com": TA}
        event = db.session.scalars(sa.select(AuditEvent).where(AuditEvent.action == "members.imported")).one()
        assert event.course_id == course
        assert event.detail == {"source": "csv", "added": 2, "new_accounts": 2, "raised": 0, "unchanged": 0,
                                "skipped": 4, "by": "operator"}  # fmt: skip


def test_an_imported_account_has_no_password_until_a_reset_link_sets_one(app: Flask, course: int) -> None:
    with app.app_context():
        enrolment.import_list(course, "ada@example.com", None)
        ada = accounts.user_by_email("ada@example.com")
        assert ada is not None and ada.role == "learner"
        assert accounts.authenticate("ada@example.com", "") is None
        assert accounts.authenticate("ada@example.com", ada.password_hash) is None
        assert password_reset.resettable(ada)
        token = password_reset.reset_token(ada, app.config["SECRET_KEY"])
    client = app.test_client()
    page = client.get(f"/reset/{token}")
    assert page.status_code == 200
    from tests.web.conftest import csrf_from, login

    sent = client.post(f"/reset/{token}", data={"new": PASSWORD, "confirm": PASSWORD,
                                                 "csrf_token": csrf_from(page.get_data(as_text=True))})  # fmt: skip
    assert sent.status_code in (302, 303)
    login(app.test_client(), "ada@example.com")


def test_a_reimport_adds_nobody_twice_raises_named_roles_and_never_lowers_one(app: Flask, course: int) -> None:
    with app.app_context():
        enrolment.import_file(course, b"email,role\nada@example.com,ta\nbo@example.com\n", None)
        again = enrolment.import_file(course, b"email,role\nada@example.com,ta\nbo@example.com\n", None)
        assert (again.added, again.raised, again.unchanged) == ([], [], 2)
        changed = enrolment.import_file(course, b"email,role\nada@example.com,learner\nbo@example.com,instructor\n"
                                        b"cy@example.com\n", None)  # fmt: skip
        assert [(a["email"], a["new_account"]) for a in changed.added] == [("cy@example.com", True)]
        assert [(r["email"], r["was"], r["role"]) for r in changed.raised] == [("bo@example.com", LEARNER, INSTRUCTOR)]
        assert [(k["row"], k["email"], k["role"], k["asked"]) for k in changed.kept] == [(2, "ada@example.com", TA, LEARNER)]
        assert member_roles(course) == {"ada@example.com": TA, "bo@example.com": INSTRUCTOR, "cy@example.com": LEARNER}
        assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 3


def test_an_existing_account_is_added_as_it_is(app: Flask, course: int) -> None:
    with app.app_context():
        made = accounts.create_user("Old@Example.com", PASSWORD)
        report = enrolment.import_list(course, "old@example.com", None)
        assert [(a["user_id"], a["new_account"]) for a in report.added] == [(made.id, False)]
        assert accounts.authenticate("old@example.com", PASSWORD) is not None  # their password is untouched


def test_the_cli_imports_a_file_and_prints_the_same_report(app: Flask, course: int, tmp_path: Path) -> None:
    bad = tmp_path / "class.csv"
    bad.write_text(BAD_FILE, encoding="utf-8")
    runner = app.test_cli_runner()
    refused = runner.invoke(args=["courses", "import", "ml101", str(bad)])
    assert refused.exit_code == 1
    assert "nothing imported into ml101" in refused.output and "row 4: 'bo@example.com': unknown role professor" in refused.output
    as_json = json.loads(runner.invoke(args=["courses", "import", "ml101", str(bad), "--json"]).output)
    assert as_json["imported"] is False and [b["row"] for b in as_json["bad"]] == [3, 4, 6, 7]
    done = runner.invoke(args=["courses", "import", "ml101", str(bad), "--good-rows-only"])
    assert done.exit_code == 0 and "imported into ml101: 2 added (2 new accounts)" in done.output
    assert runner.invoke(args=["courses", "import", "nope", str(bad)]).exit_code != 0
    with app.app_context():
        assert member_roles(course) == {"ada@example.com": LEARNER, "cy@example.com": TA}
