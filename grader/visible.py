"""Characters nobody can see, or that reorder text, written so that they show ("Trojan Source").

Learner code, what it printed and what learners typed reach instructors' and learners' pages, the
CLI and the CSV exports. A right-to-left override can make code read differently from how it
runs, and make two addresses look the same; an ESC can rewrite a terminal. Every display path
writes such text through `visible` (pages through the `visible` filter in grader/web/filters.py,
which marks each one), so each hidden character appears as its escape, \\u202e, as in JSON.
"""

from __future__ import annotations

import json
import re
import unicodedata

# Controls (tab and newline aside), format characters (bidi controls, zero-width ones), line and
# paragraph separators, private-use and unassigned code points, and lone surrogates (which UTF-8 cannot
# even encode): nothing a reader sees as what it is.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})
# A quick first pass: printable ASCII, tab and newline are never hidden, and most text is only those.
_SUSPECT = re.compile(r"[^\t\n\x20-\x7e]")


def is_hidden(char: str) -> bool:
    """True for one character that does not show as itself: a control but tab and newline, a bidi or
    other format character, a line separator, a private-use or unassigned code point, a lone surrogate."""
    return char not in "\t\n" and unicodedata.category(char) in HIDDEN_CATEGORIES


def escape(char: str) -> str:
    """The character as a JSON-style escape: \\u202e, or \\U0001d173 beyond the first plane."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def describe(char: str) -> str:
    """U+202E RIGHT-TO-LEFT OVERRIDE: what a hidden character is, for a tooltip."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r" and match.string.startswith("\n", match.end()):
        return char  # a Windows line end is a line end
    return escape(char) if is_hidden(char) else char


def visible(text: str) -> str:
    """`text` with every hidden character (see `is_hidden`) written as its escape; the rest as it was."""
    return _SUSPECT.sub(_shown, text)


def split(text: str) -> list[tuple[str, bool]]:
    """`text` cut into runs of shown text and single hidden characters, in order, each with whether it
    is a hidden one (for marking them up)."""
    pieces: list[tuple[str, bool]] = []
    start = 0
    for match in _SUSPECT.finditer(text):
        if _shown(match) != match.group():
            pieces += [(text[start:match.start()], False), (match.group(), True)]
            start = match.end()
    return [(piece, is_hidden) for piece, is_hidden in [*pieces, (text[start:], False)] if piece]


def hidden_in(text: str) -> list[str]:
    """The hidden characters in `text`, in order, a Windows line end's CR aside."""
    return [m.group() for m in _SUSPECT.finditer(text) if _shown(m) != m.group()]


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if not is_hidden(char):
        return char
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON has no \U: a pair of surrogate escapes
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def visible_json(data: object, indent: int | None = 2) -> str:
    """`data` as JSON that parses, with every hidden character (a lone surrogate too) as a JSON escape.

    `visible` on JSON text would write \\U0001d173 inside its strings, which no JSON parser reads;
    here the escapes are JSON's own (a surrogate pair beyond the first plane). Outside strings JSON
    text is ASCII, so every escape lands inside a string.
    """
    return _SUSPECT.sub(_json_escape, json.dumps(data, ensure_ascii=False, indent=indent))
