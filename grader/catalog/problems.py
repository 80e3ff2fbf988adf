"""Validation problems as sentences in the reader's language: pydantic's own, and our validators'.

The English of each template is pydantic's own wording, so files, the CLI and logs read as before;
the editor shows the sentence translated. A type not listed here stays in pydantic's English.
"""

from __future__ import annotations

from typing import Any, Mapping

from grader.texts import N_, Text, say_from

# pydantic error type: (template with %(name)s for its context values, the names it needs)
TEMPLATES: dict[str, tuple[str, tuple[str, ...]]] = {
    "missing": (N_("Field required"), ()),
    "extra_forbidden": (N_("Extra inputs are not permitted"), ()),
    "string_type": (N_("Input should be a valid string"), ()),
    "int_type": (N_("Input should be a valid integer"), ()),
    "int_parsing": (N_("Input should be a valid integer, unable to parse string as an integer"), ()),
    "int_from_float": (N_("Input should be a valid integer, got a number with a fractional part"), ()),
    "float_type": (N_("Input should be a valid number"), ()),
    "float_parsing": (N_("Input should be a valid number, unable to parse string as a number"), ()),
    "finite_number": (N_("Input should be a finite number"), ()),
    "bool_type": (N_("Input should be a valid boolean"), ()),
    "bool_parsing": (N_("Input should be a valid boolean, unable to interpret input"), ()),
    "greater_than": (N_("Input should be greater than %(gt)s"), ("gt",)),
    "greater_than_equal": (N_("Input should be greater than or equal to %(ge)s"), ("ge",)),
    "less_than": (N_("Input should be less than %(lt)s"), ("lt",)),
    "less_than_equal": (N_("Input should be less than or equal to %(le)s"), ("le",)),
    "string_pattern_mismatch": (N_("String should match pattern '%(pattern)s'"), ("pattern",)),
    "string_too_short": (N_("String should have at least %(min_length)s characters"), ("min_length",)),
    "string_too_long": (N_("String should have at most %(max_length)s characters"), ("max_length",)),
    "list_type": (N_("Input should be a valid list"), ()),
    "dict_type": (N_("Input should be a valid dictionary"), ()),
}
VALUE_ERROR = "Value error, "


def problem_text(error: Mapping[str, Any]) -> Text:
    """One pydantic error as a sentence: a validator's own (a Refusal's), a known type's, or as given."""
    context = error.get("ctx") or {}
    told = getattr(context.get("error"), "text", None)
    if isinstance(told, Text):
        return told
    known = TEMPLATES.get(str(error.get("type")))
    said = say_from(*known, context) if known else None
    return said or Text(str(error.get("msg", "")).removeprefix(VALUE_ERROR))
