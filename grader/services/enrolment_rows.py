"""Reading a list of people to enrol: a CSV file or a pasted list of emails, checked row by row.

Pure: bytes or text in, rows and problems out. Whether an email is a good one for a new account is the
caller's check (`check_email`), so the registration rules live in one place (services/accounts).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Callable

from grader.course_models import COURSE_ROLES, LEARNER
from grader.texts import Refusal, Text, say

MAX_BYTES = 1_000_000  # 1 MB: a class of 5,000 with long names fits in a fifth of it
MAX_ROWS = 5_000
MAX_NAME = 200
COLUMNS = ("email", "name", "role")
# "Ada Lovelace <ada@example.com>", as mail programs copy addresses: the part in brackets is the address.
_BRACKETED = re.compile(r"[^<>,;\n]*<([^<>\s]+)>")
_LIST_SEPARATORS = re.compile(r"[\s,;]+")


class ListRefused(Refusal):
    """A whole file or list that cannot be read (too large, too long, not UTF-8, no email column)."""


@dataclass(frozen=True)
class Row:
    """A good row: the checked email, the name given (may be empty), the role, and whether the row named it."""

    number: int
    email: str
    name: str
    role: str
    role_given: bool


@dataclass(frozen=True)
class Problem:
    """A bad row: its number (a spreadsheet's row number, or the entry's place in a pasted list), what it said
    and why it is refused."""

    number: int
    given: str
    reason: Text


@dataclass
class Rows:
    """What a file or list held: the good rows and the bad ones, each with its number."""

    good: list[Row] = field(default_factory=list)
    bad: list[Problem] = field(default_factory=list)
    rows_of: dict[str, int] = field(default_factory=dict, repr=False)  # each good email's row number


EmailCheck = Callable[[str], str]  # the email normalised, or a Refusal saying why it is not an address


def _decode(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise ListRefused("The file is %(size)d KB; at most %(limit)d KB are read at once. Split it into smaller "
                          "files.", size=-(-len(data) // 1000), limit=MAX_BYTES // 1000)  # fmt: skip
    try:
        text = data.decode("utf-8-sig")  # Excel's "CSV UTF-8" starts with a byte order mark
    except UnicodeDecodeError:
        text = "\x00"
    if "\x00" in text:  # no text file holds one; UTF-16 without its byte order mark is full of them
        raise ListRefused("The file is not UTF-8 text. In a spreadsheet, save it as \"CSV UTF-8\".")
    return text


def _separator(first_line: str) -> str:
    """The commonest of comma, semicolon and tab in the first line (Excel writes semicolons where the decimal
    mark is a comma, as in pt and ru)."""
    return max(",;\t", key=first_line.count) if any(c in first_line for c in ",;\t") else ","


def _header(cells: list[str]) -> dict[str, int] | None:
    """Where each known column is, from a header row; None when the first row is data (it holds an address)."""
    names = [cell.strip().lower().replace("-", "") for cell in cells]
    if any("@" in name for name in names):
        return None
    found = {name: names.index(name) for name in COLUMNS if name in names}
    if "email" not in found:
        raise ListRefused("The first row names no email column. Name the columns email, name and role, or "
                          "leave out the header and put the email first.")  # fmt: skip
    return found


def read_csv(data: bytes, check_email: EmailCheck) -> Rows:
    """The rows of a CSV file: a header naming email (required), name and role, or no header and the columns in
    that order. Raises ListRefused for a file that cannot be read at all."""
    text = _decode(data)
    lines = text.splitlines()
    reader = csv.reader(io.StringIO(text), delimiter=_separator(lines[0] if lines else ""))
    try:
        records = list(reader)
    except csv.Error:  # a cell over the csv module's limit: a quote left open
        raise ListRefused("Row %(row)d cannot be read as CSV: a quote is left open. Save the file from a "
                          "spreadsheet as \"CSV UTF-8\".", row=reader.line_num) from None
    columns = _header(records[0]) if records else None
    start = 1 if columns is not None else 0
    _check_count(sum(1 for record in records[start:] if any(cell.strip() for cell in record)))
    places = columns or {name: i for i, name in enumerate(COLUMNS)}
    rows = Rows()
    for number, record in enumerate(records[start:], start=start + 1):
        cell = {name: record[i].strip() if i < len(record) else "" for name, i in places.items()}
        if any(value for value in record if value.strip()):
            _add(rows, number, cell.get("email", ""), cell.get("name", ""), cell.get("role", ""), check_email)
    return rows


def read_list(text: str, check_email: EmailCheck) -> Rows:
    """The addresses of a pasted list, separated by new lines, commas, semicolons or spaces; each is a learner."""
    if "\x00" in text:
        raise ListRefused("The list holds a NUL character, which no address has.")
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ListRefused("The list is longer than %(limit)d KB. Import it in parts.", limit=MAX_BYTES // 1000)
    entries = [e for e in _LIST_SEPARATORS.split(_BRACKETED.sub(r" \1 ", text)) if e]
    _check_count(len(entries))
    rows = Rows()
    for number, entry in enumerate(entries, start=1):
        _add(rows, number, entry, "", "", check_email)
    return rows


def _check_count(count: int) -> None:
    if count > MAX_ROWS:
        raise ListRefused("There are %(count)d people in it; at most %(limit)d are imported at once. Split it.",
                          count=count, limit=MAX_ROWS)  # fmt: skip


def _add(rows: Rows, number: int, email: str, name: str, role: str, check_email: EmailCheck) -> None:
    """Check one row and put it with the good or the bad ones."""
    given = email or name
    reason: Text | None = None
    checked = ""
    if not email:
        reason = say("no email")
    elif role and role.lower() not in COURSE_ROLES:
        reason = say("unknown role %(role)s: use instructor, ta or learner", role=role[:40])
    elif len(name) > MAX_NAME:
        reason = say("a name longer than %(count)d characters", count=MAX_NAME)
    else:
        try:
            checked = check_email(email)
        except Refusal as refused:
            reason = refused.text
    if reason is None and checked in rows.rows_of:
        reason = say("the same email as row %(row)d", row=rows.rows_of[checked])
    if reason is not None:
        rows.bad.append(Problem(number, given[:254], reason))
        return
    rows.rows_of[checked] = number
    rows.good.append(Row(number, checked, name, role.lower() or LEARNER, bool(role)))
