"""Accounts: registration, password checks (argon2); API tokens are grader.services.api_tokens."""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import Any, cast

import sqlalchemy as sa
from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError
import email_validator
from flask import current_app
from email_validator import EmailNotValidError, validate_email

from grader.extensions import db
from grader.models import ROLES, ApiToken, User, utcnow
from grader.services import courses, sign_ins
from grader.texts import Refusal
from grader.visible import hidden_in

MIN_PASSWORD = 10
MAX_PASSWORD = 256
# A password hash starting so matches no password (argon2 refuses it as no hash at all) until the owner sets one
# through a reset link; unlike an LMS account's (password_reset.NO_PASSWORD), a reset link may set one.
NOT_SET = "*"
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
# Japanese writes with three scripts at once, Korean with two: one family each, as Unicode's own
# mixed-script rule (UTS #39) counts them.
_SCRIPT_FAMILY = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HALFWIDTH": "CJK", "HANGUL": "CJK"}
# Cyrillic and Greek letters drawn like Latin ones (а с е о р х у ѕ і ј ӏ һ ԁ ԛ ԝ, ο ν ι κ ρ τ υ χ α),
# and digits and the hyphen, which every script shares.
_LOOK_LATIN = frozenset("асеорхуѕіјӏһԁԛԝъьпгѵѡҽοινκρτυχα0123456789-")
_real_hasher = PasswordHasher()
# Only a test app (TESTING and CHEAP_PASSWORD_HASHES, both set in code, never read from the
# environment) hashes at argon2's cheapest cost: the suite makes thousands of accounts. Hashes record
# their own parameters, so either hasher verifies both.
_cheap_hasher = PasswordHasher.from_parameters(profiles.CHEAPEST)
# A site's own private domain is an address here (the first instructor is instructor@grader.local):
# email-validator documents editing this list to allow one.
if "local" in email_validator.SPECIAL_USE_DOMAIN_NAMES:
    email_validator.SPECIAL_USE_DOMAIN_NAMES.remove("local")
# Verifying against this keeps a login for an unknown email as slow as one for a known email.
_DUMMY_HASH = _real_hasher.hash("not a password of anyone")


def _hasher() -> PasswordHasher:
    """The password hasher for this app: argon2's default cost, unless a test app asks for the cheapest."""
    config = current_app.config
    return _cheap_hasher if config.get("TESTING") and config.get("CHEAP_PASSWORD_HASHES") else _real_hasher


class AccountError(Refusal):
    """A registration or account request that cannot be carried out; the message is for the user."""


def normalise_email(email: str) -> str:
    """Trimmed, lower-cased email."""
    return email.strip().lower()


def check_email(email: str) -> None:
    """Raise AccountError unless `email` looks like an address: one @, no spaces or control characters."""
    if not _EMAIL.fullmatch(email) or len(email) > 254:
        raise AccountError("Enter a valid email address.")


def _scripts(part: str) -> set[str]:
    """The writing systems of a part's letters, from their Unicode names (LATIN, CYRILLIC, GREEK, ...)."""
    names = (unicodedata.name(char, "") for char in part if unicodedata.category(char).startswith("L"))
    return {_SCRIPT_FAMILY.get(word, word) for word in (name.split(" ", 1)[0] for name in names) if word}


def new_email(email: str) -> str:
    """A new account's email, checked and normalised; raises AccountError, saying why, for one that
    could pass for another: invisible or text-direction characters ("alice@\\u202emoc.elpmaxe" shows
    as alice@example.com), or letters of two alphabets in one part ("аlice" with a Cyrillic а).
    Syntax and the domain (IDNA) are email-validator's; accounts made before keep their emails."""
    email = normalise_email(email)
    check_email(email)
    if hidden_in(email):
        raise AccountError("This email address contains invisible or text-direction characters. Type it again "
                           "by hand.")  # fmt: skip
    try:
        checked = normalise_email(validate_email(email, check_deliverability=False).normalized)
    except EmailNotValidError:
        raise AccountError("Enter a valid email address.") from None
    parts = re.split(r"[@.]", checked)  # a punycode domain is read in its own letters by now
    if any(len(_scripts(part)) > 1 for part in parts) or _latin_in_disguise(parts):
        raise AccountError("This email address mixes letters of different alphabets, so it can pass for another "
                           "address. Use one alphabet in each part.")  # fmt: skip
    return checked


def _latin_in_disguise(parts: list[str]) -> bool:
    """A part written only in Cyrillic or Greek letters that look Latin (аррӏе), beside Latin parts: the
    whole-script look-alike that browsers refuse in domain names too."""
    latin = any(_scripts(part) == {"LATIN"} for part in parts)
    return latin and any(_scripts(part) in ({"CYRILLIC"}, {"GREEK"}) and set(part) <= _LOOK_LATIN for part in parts)


def _check_new(email: str, password: str, role: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("Use a password of at least %(count)d characters.", count=MIN_PASSWORD)
    if role not in ROLES:
        raise AccountError("Role must be one of %(roles)s.", roles=", ".join(ROLES))


def create_user(email: str, password: str, role: str = "learner", locale: str = "en") -> User:
    """Create a user with a site role (ROLES); raises AccountError for a bad, deceptive or taken email or a weak
    password. Someone with no site role joins every course open to all accounts."""
    email = new_email(email)
    _check_new(email, password, role)
    taken = AccountError("An account with this email already exists.")
    if db.session.scalar(sa.select(User.id).where(User.email == email)) is not None:
        raise taken
    user = User(email=email, password_hash=_hasher().hash(password), role=role, locale=locale)
    db.session.add(user)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:  # the same email registered at the same moment (a double click)
        db.session.rollback()
        raise taken from None
    if role == "learner":
        courses.seat_in_open_courses(user.id, courses.open_course_ids())
        db.session.commit()
    return user


def add_unset_accounts(emails: list[str], open_ids: list[int], locale: str = "en") -> dict[str, User]:
    """New learner accounts, by email, for addresses already checked by `new_email` and not taken, with no
    password yet (each owner sets one through a password reset link), learners of the courses `open_ids` as
    registered ones are. Added to the session and flushed together, not committed: an import commits its
    accounts with its enrolments."""
    made = {email: User(email=email, password_hash=NOT_SET + secrets.token_urlsafe(16), role="learner",
                        locale=locale) for email in emails}  # fmt: skip
    db.session.add_all(made.values())
    db.session.flush()
    for user in made.values():
        courses.seat_in_open_courses(user.id, open_ids)
    return made


def authenticate(email: str, password: str) -> User | None:
    """The user with this email and password, or None."""
    user = db.session.scalar(sa.select(User).where(User.email == normalise_email(email)))
    try:
        _hasher().verify(user.password_hash if user else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    return user


def password_matches(user: User, password: str) -> bool:
    """True when the password is the user's."""
    try:
        return _hasher().verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def change_password(user: User, current: str, new: str) -> int:
    """Set a new password after checking the current one; returns the API tokens revoked. Raises AccountError."""
    if not password_matches(user, current):
        raise AccountError("Your current password is not right.")
    return set_password(user, new)


def set_password(user: User, new: str) -> int:
    """Replace the user's password (length checked, argon2id-hashed), end every sign-in of theirs, copied
    cookies included, and revoke their API tokens, in one transaction; commits. Returns the tokens revoked.

    A new password is how someone locks out whoever knew the old one, who could have made a token
    with it. A browser that should go on signs in anew.
    """
    if not MIN_PASSWORD <= len(new) <= MAX_PASSWORD:
        raise AccountError("Use a password of at least %(count)d characters.", count=MIN_PASSWORD)
    user.password_hash = _hasher().hash(new)
    sign_ins.end_all(user)
    revoked = cast(sa.CursorResult[Any], db.session.execute(
        sa.update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None)).values(revoked_at=utcnow())
    )).rowcount  # fmt: skip
    db.session.commit()
    return int(revoked)


def set_locale(user: User, locale: str) -> None:
    """Keep the user's choice of page language; commits."""
    user.locale = locale
    db.session.commit()


def user_by_email(email: str) -> User | None:
    """The user with this email."""
    return db.session.scalar(sa.select(User).where(User.email == normalise_email(email)))
