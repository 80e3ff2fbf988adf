"""Why the runner refuses a returned value or a signature: each reason worded once, for both sides.

Inside the sandbox the runner fills these templates (this module is copied into the runtime beside
runner.py: stdlib only). On the host, `recognise` reads a reason back into its template and values,
so the learner reads it in the page's language. Learner code can write frames of its own, so a
text that fits no template is simply shown as it came.
"""

from __future__ import annotations

import re


def N_(text: str) -> str:  # noqa: N802 - marks a text for translation, as grader.texts.N_ does
    """The text itself; pybabel extracts it for the page's translations."""
    return text


# What the function returned (outgoing.py, runner.py).
NESTED_TOO_DEEP = N_("the result is nested more than %(depth)s levels deep")
INTEGER_TOO_LARGE = N_("an integer in the result does not fit in 64 bits")
NDARRAY_SUBCLASS = N_("returned a %(type)s (an ndarray subclass); return np.ndarray")
DICT_KEYS = N_("dict keys in the result must be strings")
RETURNED_NONE = N_("the function returned None (is a `return` missing?)")
WRONG_TYPE = N_("returned a %(type)s; expected a numpy array, a number, or a list, tuple or dict of those")
OBJECT_ARRAY = N_("object arrays are not allowed; return numbers")
WRONG_DTYPE = N_("arrays of dtype %(dtype)s are not allowed; use float64")
BAD_SHAPE = N_("returned %(problem)s")
ARRAY_TOO_LARGE = N_("the result is too large: an array of %(size)s bytes, over the %(limit)s bytes allowed")
RESULT_TOO_LARGE = N_("the result is too large: %(why)s")
# The function's parameters (runner.signature_problem).
UNREADABLE_SIGNATURE = N_("cannot read the parameters of %(name)s")
WRONG_SIGNATURE = N_("expected the signature %(expected)s, found %(found)s")
EXTRA_WITHOUT_DEFAULTS = N_("expected the signature %(expected)s, found %(found)s (extra parameters need defaults)")
NEEDS_DEFAULT = N_("found %(found)s: %(names)s needs a default value, because some calls leave it out")

# Most specific first: a text that fits two templates is read as the first.
TEMPLATES = (NESTED_TOO_DEEP, INTEGER_TOO_LARGE, NDARRAY_SUBCLASS, DICT_KEYS, RETURNED_NONE, WRONG_TYPE,
             OBJECT_ARRAY, WRONG_DTYPE, ARRAY_TOO_LARGE, RESULT_TOO_LARGE, BAD_SHAPE, UNREADABLE_SIGNATURE,
             EXTRA_WITHOUT_DEFAULTS, WRONG_SIGNATURE, NEEDS_DEFAULT)  # fmt: skip
_PLACEHOLDER = re.compile(r"%\\\(([a-z]+)\\\)s")
_PATTERNS = [(t, re.compile(_PLACEHOLDER.sub(r"(?P<\1>.+?)", re.escape(t)), re.DOTALL)) for t in TEMPLATES]


def recognise(text: str) -> tuple[str, dict[str, str]] | None:
    """The template `text` was filled from, and the values it was filled with; None for any other text."""
    for template, pattern in _PATTERNS:
        found = pattern.fullmatch(text)
        if found:
            return template, found.groupdict()
    return None
