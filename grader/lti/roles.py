"""LTI roles: what a launch's or a roster's roles claim makes someone in its course, and nothing more.

Only context membership roles count (LTI 1.3 core, A.2.3), matched exactly: the full URIs of the
membership vocabulary, the simple names LTI core allows for them (Moodle's roster sends these), and
the TeachingAssistant sub-role. Institution and system roles, and anything else a platform makes up,
never give rights here: a school's staff member is not a teacher of every course.
"""

from __future__ import annotations

from typing import Literal

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
TEACHING_ASSISTANT = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
CONTEXT_ROLES = frozenset({"Administrator", "ContentDeveloper", "Instructor", "Learner", "Mentor", "Manager",
                           "Member", "Officer"})  # fmt: skip
TEACHING = frozenset({"Administrator", "ContentDeveloper"})  # course instructors, TA or not
CourseRole = Literal["instructor", "ta", "learner"]


def context_roles(roles: object) -> set[str]:
    """The context membership roles in a roles claim, by simple name ("Instructor", "TeachingAssistant", ...)."""
    found: set[str] = set()
    for role in roles if isinstance(roles, list) else []:
        if not isinstance(role, str):
            continue
        name = role.removeprefix(MEMBERSHIP) if role.startswith(MEMBERSHIP) else role
        if name in CONTEXT_ROLES:
            found.add(name)
        elif role == TEACHING_ASSISTANT:
            found.add("TeachingAssistant")
    return found


def course_role(roles: object) -> CourseRole:
    """The role in the launch's course: instructor, ta or learner (the default, whatever else is claimed).

    A TA's launch carries Instructor too (LTI sends a sub-role with its principal role), so the
    sub-role decides, unless the member also administers or writes the course's content."""
    found = context_roles(roles)
    if found & TEACHING:
        return "instructor"
    if "TeachingAssistant" in found:
        return "ta"
    return "instructor" if "Instructor" in found else "learner"


def is_learner(roles: object) -> bool:
    """Whether a roster member is a learner of the course."""
    return "Learner" in context_roles(roles)
