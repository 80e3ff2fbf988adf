"""Vectors, matrices, shapes and index sets as learners type them.

Separators in lists of numbers (nothing ambiguous is guessed):
- ';' always separates, and so does whitespace ('41 943 040' in a list is three numbers).
  With ';' separators, commas are always inside numbers ('[0,5; 1,234,567]').
- Without ';', commas are inside numbers when no comma touches whitespace and every
  whitespace-separated word reads as a number: '0,5 0,7' is [0.5, 0.7] and '0,5' is [0.5].
- Otherwise commas separate ('1.2, 3.4', '1.5,2.5') -- unless some comma could also be a decimal
  comma ('0,5, 0,7', '1,5,2', '1,2,3,4'): that is ambiguous and the learner is asked to use ';'.
  The expected count is never used to pick a reading; a wrong count is reported instead.
- Each entry is a real number, so a single comma inside it is a decimal comma ('[-1,239; 0,911]').
Shapes and index sets hold whole numbers only, so there ',' always separates.
"""

from __future__ import annotations

import re

from grader.answers.numbers import (
    AnswerFormatError,
    Number,
    normalize,
    parse_integer,
    parse_number,
    quote,
)
from grader.texts import Text, say, say_n

MAX_ANSWER_CHARS = 20_000
USE_SEMICOLONS = say("separate the numbers with ';', e.g. 0,5; 0,7")
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = {close: open_ for open_, close in _OPENERS.items()}
# Spaces a learner puts inside one number ('1.5 M', '66.7 %', '1.2 × 10^-3') must not split it.
_GLUE = (
    (re.compile(r"\s+(?=%)"), ""),
    (re.compile(r"(?<=[0-9.])\s+(?=(?:[kKMBGT]|(?i:thousand|million|billion|trillion))\b)"), ""),
    (re.compile(r"\s*([·⋅∙*×/])\s*"), r"\1"),
    (re.compile(r"(?<=[0-9.])\s*([xX])\s*(?=10)"), r"\1"),
    (re.compile(r"(?<=10)\s*(\^|\*\*)\s*"), r"\1"),
)
_SPACED_COMMA = re.compile(r"\s,|,\s|^,|,$")
_WHOLE = re.compile(r"\+?[0-9]{1,30}")


def _prepare(text: str, keep_newlines: bool, empty: Text) -> str:
    """The normalised answer; `empty` says what to enter when there is nothing."""
    body = normalize(text, keep_newlines).strip()
    if not body:
        raise AnswerFormatError(empty)
    if len(body) > MAX_ANSWER_CHARS:
        raise AnswerFormatError(say("the answer is too long"))
    return body


def _spans(text: str) -> list[tuple[int, int]]:
    """Top-level bracket pairs (start, end), after checking that every bracket is matched."""
    stack: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for i, ch in enumerate(text):
        if ch in _OPENERS:
            stack.append((i, ch))
        elif ch in _CLOSERS:
            if not stack:
                opener = _CLOSERS[ch]
                raise AnswerFormatError(say("'%(char)s' at position %(at)d has no matching '%(opener)s'",
                                            char=ch, at=i + 1, opener=opener))  # fmt: skip
            start, opener = stack.pop()
            if _OPENERS[opener] != ch:
                raise AnswerFormatError(say("'%(opener)s' at position %(start)d is closed by '%(char)s' at position %(at)d",
                                            opener=opener, start=start + 1, char=ch, at=i + 1))  # fmt: skip
            if not stack:
                spans.append((start, i))
    if stack:
        start, opener = stack[0]
        raise AnswerFormatError(say("'%(opener)s' at position %(start)d is never closed", opener=opener,
                                    start=start + 1))  # fmt: skip
    return spans


def _unwrap(body: str) -> tuple[str, bool]:
    """Drop one pair of brackets around the whole answer, if there is one."""
    if _spans(body) == [(0, len(body) - 1)]:
        return body[1:-1].strip(), True
    return body, False


def _bracket_in(text: str) -> str | None:
    """The first bracket in text, which may not hold any."""
    return next((ch for ch in text if ch in _OPENERS or ch in _CLOSERS), None)


def _glue(text: str) -> str:
    for pattern, replacement in _GLUE:
        text = pattern.sub(replacement, text)
    return text


def _possible(word: str) -> bool:
    """Whether the word reads as a number."""
    try:
        parse_number(word)
    except AnswerFormatError:
        return False
    return True


def _split_row(text: str) -> list[str]:
    """Entries of a list without ';', applying the comma rules in the module docstring."""
    text = _glue(text).strip()
    words = text.split()
    if "," not in text:
        return words
    spaced = bool(_SPACED_COMMA.search(text))
    if not spaced and all(map(_possible, words)):
        return words
    segments = text.split(",")
    pieces = [w for seg in segments for w in (seg.split() or [""])]
    if not spaced and not all(map(_possible, pieces)):
        return words  # neither reading works: report the whitespace reading's bad entry
    for left, right in zip(segments, segments[1:]):
        tight = left[-1:].strip() and right[:1].strip()
        if tight and _possible(left.split()[-1] + "," + right.split()[0]):
            raise AnswerFormatError(say("ambiguous commas in %(answer)s: %(advice)s", answer=quote(text),
                                        advice=USE_SEMICOLONS))  # fmt: skip
    return pieces


def _split_entries(text: str) -> list[str]:
    """Entries of a list that may use ';' separators (then commas belong to numbers)."""
    text = _glue(text).strip()
    if ";" not in text:
        return _split_row(text)
    chunks = text.split(";")
    if not chunks[-1].strip():
        chunks.pop()  # a trailing ';' ends the list, as in MATLAB
    words: list[str] = []
    for chunk in chunks:
        if _SPACED_COMMA.search(chunk.strip()):
            raise AnswerFormatError(say("both ';' and ',' separate numbers in %(answer)s: %(advice)s",
                                        answer=quote(text), advice=USE_SEMICOLONS))  # fmt: skip
        words.extend(chunk.split() or [""])
    return words


def _read_all(words: list[str], labels: list[Text]) -> list[Number]:
    """Parse every entry, naming the entry in any error."""
    numbers: list[Number] = []
    for word, label in zip(words, labels):
        if not word:
            raise AnswerFormatError(say("%(where)s is empty", where=label))
        try:
            numbers.append(parse_number(word))
        except AnswerFormatError as error:
            raise AnswerFormatError(say("%(where)s: %(problem)s", where=label, problem=error.text)) from None
    return numbers


def entry(label: object) -> Text:
    """'entry 3' (or 'entry (2, 1)' in a matrix), naming where in an answer something is."""
    return say("entry %(label)s", label=str(label))


def _count_message(expected: int, got: int, text: str) -> Text:
    counted = say_n("expected %(num)d number, got %(got)d", "expected %(num)d numbers, got %(got)d", expected,
                    got=got)  # fmt: skip
    if got < expected and re.search(r"[0-9],[0-9]", text) and ";" not in text:
        return say("%(problem)s (a comma between digits reads as a decimal comma; separate numbers with ', ' or ';')",
                   problem=counted)  # fmt: skip
    return counted


def parse_vector(text: str, length: int | None = None) -> list[Number]:
    """Parse a list of numbers such as '[a; b; c]', '(a, b, c)' or 'a b c'."""
    body = _prepare(text, False, say("enter the numbers, e.g. [1.5; -2; 0.25]"))
    inner, _ = _unwrap(body)
    if bracket := _bracket_in(inner):
        raise AnswerFormatError(say("unexpected '%(char)s' inside the list", char=bracket))
    words = _split_entries(inner) if inner else []
    numbers = _read_all(words, [entry(i) for i in range(1, len(words) + 1)])
    if length is not None and len(numbers) != length:
        raise AnswerFormatError(_count_message(length, len(numbers), inner))
    return numbers


def _bracketed_rows(inner: str) -> list[list[str]]:
    rows: list[list[str]] = []
    cursor = 0
    for start, end in [*_spans(inner), (len(inner), len(inner))]:
        gap = inner[cursor:start].strip(" \n,;")
        if gap:
            last = start == len(inner)
            if last:
                raise AnswerFormatError(say("unexpected %(text)s after row %(row)d", text=quote(gap), row=len(rows)))
            raise AnswerFormatError(say("unexpected %(text)s before row %(row)d", text=quote(gap), row=len(rows) + 1))
        if start < len(inner):
            content = inner[start + 1 : end]
            if bracket := _bracket_in(content):
                raise AnswerFormatError(say("unexpected '%(char)s' inside row %(row)d", char=bracket,
                                            row=len(rows) + 1))  # fmt: skip
            rows.append(_split_entries(content))
        cursor = end + 1
    return rows


def _matrix_rows(inner: str) -> list[list[str]]:
    """Entry words per row: bracketed rows, one row per line, or rows separated by ';'."""
    if _spans(inner):
        return _bracketed_rows(inner)
    if "\n" in inner:
        lines = [line.strip().rstrip(";,") for line in inner.split("\n")]
        return [_split_entries(line) for line in lines if line.strip()]
    parts = inner.split(";")
    if len(parts) > 1 and not parts[-1].strip():
        parts.pop()
    return [_split_row(part) for part in parts]


def parse_matrix(text: str, shape: tuple[int, int] | None = None) -> list[list[Number]]:
    """Parse a matrix: rows on lines, rows separated by ';', or nested lists '[[1, 2], [3, 4]]'."""
    body = _prepare(text, True, say("enter a matrix, e.g. [[1, 2], [3, 4]]"))
    inner, _ = _unwrap(body)
    rows = _matrix_rows(inner) if inner else []
    if not rows:  # nothing, or only separators (",\r;")
        raise AnswerFormatError(say("the matrix is empty: enter at least one row"))
    words: list[str] = []
    labels: list[Text] = []
    for r, row in enumerate(rows, 1):
        if not row:
            raise AnswerFormatError(say("row %(row)d is empty", row=r))
        words += row
        labels += [say("row %(row)d, entry %(entry)d", row=r, entry=c) for c in range(1, len(row) + 1)]
    numbers = iter(_read_all(words, labels))
    matrix = [[next(numbers) for _ in row] for row in rows]
    for r, parsed_row in enumerate(matrix[1:], 2):
        if len(parsed_row) != len(matrix[0]):
            raise AnswerFormatError(say("row %(row)d has %(got)d numbers, row 1 has %(first)d", row=r,
                                        got=len(parsed_row), first=len(matrix[0])))  # fmt: skip
    got = (len(matrix), len(matrix[0]))
    if shape is not None and got != tuple(shape):
        raise AnswerFormatError(say("expected a %(rows)d×%(columns)d matrix, got %(got_rows)d×%(got_columns)d",
                                    rows=shape[0], columns=shape[1], got_rows=got[0], got_columns=got[1]))  # fmt: skip
    return matrix


def _whole(piece: str, label: Text) -> int:
    if _WHOLE.fullmatch(piece):
        return int(piece)
    try:
        return int(parse_integer(piece).value)
    except AnswerFormatError as error:
        raise AnswerFormatError(say("%(where)s: %(problem)s", where=label, problem=error.text)) from None


def parse_shape(text: str) -> tuple[int, ...]:
    """Parse a tensor shape such as '(2, 5, 4)', '2×5×4' or '(5,)'; '()' is a scalar's shape."""
    body = _prepare(text, False, say("enter a shape, e.g. (2, 5, 4)"))
    inner, wrapped = _unwrap(body)
    if bracket := _bracket_in(inner):
        raise AnswerFormatError(say("unexpected '%(char)s' inside the shape", char=bracket))
    if not inner and wrapped:
        return ()
    if not re.search(r"[0-9]", inner):  # 'xyz' would otherwise split on its x and report an empty dimension
        raise AnswerFormatError(say("could not read '%(text)s' as a shape: write the size of each dimension, "
                                    "e.g. (2, 5, 4)", text=text.strip()))  # fmt: skip
    if inner.endswith(",") and len(inner) > 1:
        inner = inner[:-1].rstrip()  # Python writes a one-dimensional shape as '(5,)'
    sizes = []
    for i, piece in enumerate(re.split(r"\s*[×xX*·,;]\s*|\s+", inner), 1):
        if not piece:
            raise AnswerFormatError(say("dimension %(i)d is empty", i=i))
        size = _whole(piece, say("dimension %(i)d", i=i))
        if size < 1:
            raise AnswerFormatError(say("dimension %(i)d is %(size)d; sizes must be whole numbers of at least 1",
                                        i=i, size=size))  # fmt: skip
        sizes.append(size)
    return tuple(sizes)


def parse_index_set(text: str) -> frozenset[int]:
    """Parse a set of non-negative indices such as '{1, 3}' or '[1 3]'; '{}' or '∅' is empty."""
    body = _prepare(text, False, say("enter the indices, e.g. {1, 3}, or {} for none"))
    if body == "∅":
        return frozenset()
    inner, _ = _unwrap(body)
    if bracket := _bracket_in(inner):
        raise AnswerFormatError(say("unexpected '%(char)s' inside the set", char=bracket))
    if not inner:
        return frozenset()
    seen: set[int] = set()
    for i, piece in enumerate(re.split(r"\s*[,;]\s*|\s+", inner), 1):
        # "item", not "entry": a question about sets of inputs calls the inputs entries.
        item = say("item %(i)d", i=i)
        if not piece:
            raise AnswerFormatError(say("%(where)s is empty", where=item))
        index = _whole(piece, item)
        if index < 0:
            raise AnswerFormatError(say("%(where)s: indices start at 0, got %(index)d", where=item, index=index))
        if index in seen:
            raise AnswerFormatError(say("index %(index)d appears twice", index=index))
        seen.add(index)
    return frozenset(seen)
