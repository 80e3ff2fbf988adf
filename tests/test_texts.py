"""Translatable sentences: English as before, any language through gettext, stored and read back."""

from __future__ import annotations

import json

import numpy as np

from grader.answers.kinds import grade_part
from grader.answers.results import ExerciseResult, PartResult, Target
from grader.answers.tolerance import Tolerance
from grader.texts import Refusal, Text, say, say_n

PIG = {"entry %(label)s": "ENTRY %(label)s", "%(where)s is empty": "EMPTY: %(where)s"}


def pig_gettext(text: str) -> str:
    return PIG.get(text, text)


def three_forms(singular: str, plural: str, num: int) -> str:
    return f"[{'one' if num == 1 else 'few' if num < 5 else 'many'}] " + plural


def test_a_sentence_reads_in_english_by_default() -> None:
    text = say("%(where)s is empty", where=say("entry %(label)s", label="3"))
    assert str(text) == "entry 3 is empty"


def test_nested_sentences_are_each_translated() -> None:
    text = say("%(where)s is empty", where=say("entry %(label)s", label="3"))
    assert text.render(pig_gettext) == "EMPTY: ENTRY 3"


def test_counts_pick_the_languages_plural_form() -> None:
    text = say_n("expected %(num)d number, got %(got)d", "expected %(num)d numbers, got %(got)d", 1, got=2)
    assert str(text) == "expected 1 number, got 2"
    assert str(say_n("%(num)d figure", "%(num)d figures", 3)) == "3 figures"
    assert text.render(ngettext=three_forms) == "[one] expected 1 numbers, got 2"


def test_a_literal_percent_sign_survives() -> None:
    assert str(say("±%(percent)s %%", percent="5")) == "±5 %"
    assert str(say("66.7 %")) == "66.7 %"  # no values: the template is shown as written


def test_sentences_round_trip_through_json() -> None:
    text = say("%(where)s: %(problem)s", where=say("entry %(label)s", label="2"),
               problem=say_n("%(num)d figure", "%(num)d figures", 2))  # fmt: skip
    again = Text.from_json(json.loads(json.dumps(text.to_json())))
    assert again == text and str(again) == "entry 2: 2 figures"


def test_a_graded_part_keeps_its_sentence_through_storage() -> None:
    result = grade_part("vector", "[1; 2; 3]", Target((np.array([1.0, 2.0, 3.0, 4.0]),)), Tolerance("abs", 0.0005))
    assert result.status == "invalid" and result.message == "expected 4 numbers, got 3"
    stored = json.loads(json.dumps({"p": result.to_record()}))
    back = ExerciseResult.from_json(stored).parts["p"]
    assert back == result and back.text == result.text
    assert "text" not in result.to_json()  # the CLI/API shape is unchanged


def test_results_stored_before_sentences_still_read() -> None:
    old = {"status": "correct", "score": 1.0, "message": "Correct.", "misconception": None, "hint": None,
           "wrong_entries": []}  # fmt: skip
    part = PartResult.from_json(old)
    assert part.message == "Correct." and part.text is None


def test_a_refusal_says_why_in_english_and_keeps_its_sentence() -> None:
    error = Refusal("The file is larger than %(size)d KB.", size=256)
    assert str(error) == "The file is larger than 256 KB."
    assert error.text == say("The file is larger than %(size)d KB.", size=256)


def test_a_figure_takes_the_readers_decimal_mark_and_survives_storage() -> None:
    described = Tolerance(kind="abs", value=0.0005).describe()
    assert str(described) == "±0.0005" and described.render(decimal=",") == "±0,0005"
    stored = Text.from_json(json.loads(json.dumps(described.to_json())))
    assert stored == described and stored.render(decimal=",") == "±0,0005"
    assert Tolerance(kind="rel", value=0.025).describe().render(decimal=",") == "±2,5 %"
