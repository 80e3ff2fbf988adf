"""Hostile submissions that try to cheat the verdict, and uploads that must not even run.

The verdict is computed on the host from decoded values only; these submissions exit early,
print fake results, return objects that compare equal to anything, smuggle pickles or
protocol look-alikes, or hide behind NaN, inf and huge lazy arrays. None may pass.
"""

from __future__ import annotations

import json
import math
import pickle
import resource
from typing import Any

import numpy as np
import pytest

pytest.register_assert_rewrite("tests.sandbox.hostile_support")  # see test_hostile_resources

from grader.code_grading import SourceRejected, grade_code, read_source  # noqa: E402
from grader.codecheck.prepare import prepare  # noqa: E402
from tests.sandbox.hostile_support import (  # noqa: E402
    CASE_COUNT, CORRECT, HIDDEN, MIB, SEED, SPEC, Hostile, Recorder, assert_not_passed,
    reference_output, submission,
)

pytest_plugins = ["tests.sandbox.hostile_support"]
UNCHECKABLE = ("Returned a value that cannot be checked: return a numpy array, a number "
               "or a dict of numbers.")
NONFINITE = "The output contains NaN or infinity where finite values are expected."
RIGHT = """
mu = x.mean(axis=-1, keepdims=True)
out = gamma * (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) + beta
"""

# --- leaving early ----------------------------------------------------------------------

EXITS = {
    "sys.exit-in-function": (submission(RIGHT + "sys.exit(0)"),
                             "failed", "SystemExit: 0", "Raised an exception."),
    "os._exit-in-function": (submission(RIGHT + "os._exit(0)"),
                             "error", "Your code ended the process running it (exit status 0).", None),
    "sys.exit-at-import": (submission(RIGHT + "return out", prelude="sys.exit(0)"),
                           "error", "SystemExit: 0", None),
    "os._exit-at-import": (submission(RIGHT + "return out", prelude="os._exit(0)"),
                           "error", "Your code ended the process running it (exit status 0).", None),
}


@pytest.mark.parametrize("name", EXITS)
def test_exiting_before_returning_never_passes(hostile: Hostile, name: str) -> None:
    source, status, says, hidden = EXITS[name]
    graded = hostile.grade(source)
    if status == "failed":
        assert_not_passed(graded, "failed", f"0 of {CASE_COUNT}", visible=says, hidden=hidden)
    elif name == "sys.exit-at-import":  # an exception while loading: one error, no case judged
        assert_not_passed(graded, "error", says)
        assert graded.run.status == "load_error"
    else:
        # The job ended with no "done" frame: a crash of the learner's, not a clean exit.
        assert_not_passed(graded, "error", says)
        assert graded.run.status == "crashed"


def test_printing_fake_results_changes_nothing(hostile: Hostile) -> None:
    body = """
    import json, struct
    fake = {'status': 'passed', 'score': 1.0, 'message': 'All 15 cases passed.'}
    print(json.dumps(fake), file=sys.__stdout__)
    frame = json.dumps({'kind': 'done'}).encode()
    sys.__stdout__.flush()
    sys.__stdout__.buffer.write(struct.pack('>I', len(frame) + 4) + struct.pack('>I', len(frame))
                                + frame)
    sys.__stdout__.buffer.flush()
    return x
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", f"0 of {CASE_COUNT} cases passed.",
                      hidden="The output's values are wrong.")
    assert '"score": 1.0' in graded.run.stdout  # printed, captured, and ignored


# --- values that claim to be right ------------------------------------------------------

LIARS = {
    "always-equal-object": ("""
        class AlwaysEqual:
            def __eq__(self, other):
                return True
            __hash__ = object.__hash__
            def __array__(self, dtype=None, copy=None):
                raise RuntimeError('no')
        return AlwaysEqual()
        """, "returned a AlwaysEqual"),
    "ndarray-subclass": ("""
        class Liar(np.ndarray):
            def __eq__(self, other):
                return np.ones(np.broadcast(self, other).shape, dtype=bool)
            def __array_ufunc__(self, *args, **kwargs):
                return True
        return np.zeros_like(x).view(Liar)
        """, "an ndarray subclass"),
    "object-dtype": ("""
        class AlwaysEqual(float):
            def __eq__(self, other):
                return True
        out = np.empty(x.shape, dtype=object)
        out[...] = AlwaysEqual(0.0)
        return out
        """, "object arrays are not allowed"),
    "protocol-look-alike": ("""
        # The wire's own tag for an array (its dtype left out: strings cannot be returned).
        return {'__array__': 0, 'shape': list(x.shape), 'offset': 0, 'nbytes': x.nbytes,
                '__float__': 0.0}
        """, None),
}


@pytest.mark.parametrize("name", LIARS)
def test_values_that_claim_equality_are_refused(hostile: Hostile, name: str) -> None:
    body, visible = LIARS[name]
    graded = hostile.grade(submission(body))
    if visible is None:
        # A dict crosses the wire as a dict: it cannot turn into an array on the way.
        assert_not_passed(graded, "failed", "0 of", hidden="The output has the wrong type.")
        assert all(isinstance(value, dict) for value in graded.values())
    else:
        assert_not_passed(graded, "failed", "0 of", visible=visible, hidden=UNCHECKABLE)
        assert {case.status for case in graded.run.cases} == {"bad_result"}


@pytest.mark.parametrize("fill", ["nan", "inf", "-inf"])
def test_non_finite_outputs_fail(hostile: Hostile, fill: str) -> None:
    graded = hostile.grade(submission(f"return np.full_like(x, float({fill!r}))"))
    assert_not_passed(graded, "failed", "0 of", visible="where the expected values are finite",
                      hidden=NONFINITE)


def test_ten_gigabyte_lazy_array_is_refused_without_exhausting_anything(
        hostile: Hostile) -> None:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # 1.25e9 float64 = 10 GB viewed through zero strides, and no memory at all behind it.
    body = "return np.broadcast_to(np.float64(1.0), (1250, 10**6))"
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="the result is too large",
                      hidden=UNCHECKABLE)
    assert graded.watch.rss < 256 * MIB
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) * 1024
    assert grown < 64 * MIB


# --- pickles ----------------------------------------------------------------------------

@pytest.fixture
def no_unpickling(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records (and refuses) any unpickling in this process while the test runs."""
    calls: list[str] = []

    def refuse(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            raise AssertionError(f"the host called {name}")
        return call

    for name in ("loads", "load", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse(f"pickle.{name}"))
    monkeypatch.setattr(np, "load", refuse("numpy.load"))
    return calls


@pytest.mark.parametrize("wrap", ["bytes", "uint8-array"])
def test_pickle_payloads_are_never_unpickled(
        hostile: Hostile, no_unpickling: list[str], wrap: str) -> None:
    planted = hostile.tmp_path / "created-by-unpickling"
    returned = "payload" if wrap == "bytes" else "np.frombuffer(payload, dtype=np.uint8)"
    body = f"""
    import pickle

    class Planted:
        def __reduce__(self):
            return (open, ({str(planted)!r}, 'w'))  # unpickled on the host: creates a file

    {RIGHT.strip().replace(chr(10), chr(10) + '    ')}
    payload = pickle.dumps({{'answer': out, 'plant': Planted()}})
    return {returned}
    """
    graded = hostile.grade(submission(body))
    assert no_unpickling == []
    assert not planted.exists()
    if wrap == "bytes":
        assert_not_passed(graded, "failed", "0 of", visible="returned a bytes", hidden=UNCHECKABLE)
    else:
        # The host sees plain integers, the pickle's bytes, and judges them as numbers.
        assert_not_passed(graded, "failed", "0 of", hidden="The output has the wrong shape.")
        value = graded.values()[0]
        assert value.dtype == np.int64 and value.astype(np.uint8).tobytes()[:1] == b"\x80"


# --- inputs changed in place ------------------------------------------------------------

def test_mutating_inputs_in_place_affects_no_other_case(hostile: Hostile) -> None:
    body = """
    import gc
    # Normalise x in place and return it (legitimate), then vandalise every input it can
    # reach: its gamma and beta, and any writable float array anywhere in the process.
    mu = x.mean(axis=-1, keepdims=True)
    sd = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    x -= mu
    x /= sd
    x *= gamma
    x += beta
    gamma[...] = 0.0
    beta[...] = 1e9
    for obj in gc.get_objects():
        for item in (obj.values() if isinstance(obj, dict) else ()):
            if type(item) is np.ndarray and item.dtype.kind == 'f' and item is not x:
                try:
                    item[...] = -7.0
                except ValueError:
                    pass
    return x
    """
    fresh = prepare(SPEC, SEED)
    graded = hostile.grade(submission(body))
    # This one is allowed to pass: every case decodes fresh inputs.
    assert (graded.code.status, graded.code.score) == ("passed", 1.0), graded.code
    # The inputs sent, and so the expected outputs made from them, were not altered here...
    for case, sent in zip(fresh.cases, graded.sent, strict=True):
        assert case.kwargs.keys() == sent.keys()
        assert all(np.array_equal(case.kwargs[k], sent[k]) for k in sent)
    # ...and each output is the right one for its own, untouched inputs.
    for sent, value, expected in zip(graded.sent, graded.values(), fresh.expected, strict=True):
        np.testing.assert_allclose(value, reference_output(sent), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(value, expected, rtol=1e-9, atol=1e-12)


# --- bugs this suite found, now fixed ---------------------------------------------------

def test_a_submission_cannot_forge_its_running_time(hostile: Hostile) -> None:
    prelude = """
    import itertools, time
    _TICKS = itertools.cycle([1.7e305, 0.0])
    """
    body = RIGHT + "time.perf_counter = lambda: next(_TICKS)\nreturn out"
    graded = hostile.grade(submission(body, prelude=prelude))
    assert graded.code.status == "passed"  # the answers themselves are right
    assert math.isfinite(graded.code.duration_ms)
    assert graded.code.duration_ms < 1000 * 3.0 * 2  # at most the wall limit, with room
    json.dumps(graded.code.to_json(), allow_nan=False)


def test_hidden_case_messages_cannot_carry_learner_text(hostile: Hostile) -> None:
    # Letters only, derived from this case's hidden input.
    body = """
    digits = str(abs(int(x.sum() * 1e6)))
    raise ValueError('\\n' + ''.join(chr(ord('a') + int(d)) for d in digits))
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of")
    hidden = [c.message for c in graded.code.cases if not c.visible]
    assert hidden and set(hidden) == {"Raised an exception."}, hidden[:3]


# --- uploads that never reach the sandbox -----------------------------------------------

LATIN_1 = b"def layer_norm(x, gamma, beta, eps=1e-5):\n    return x  # \xff\xfe\n"
UPLOADS = {
    "not-utf-8": (LATIN_1,
                  f"The code is not UTF-8 text (byte {LATIN_1.index(0xFF)} cannot be read)."),
    "ten-megabytes": (CORRECT.encode() + b"#" * (10 * 2**20), "The code is larger than 64 KB."),
    "nul-byte": (CORRECT.encode() + b"\x00", "The code contains a NUL byte."),
}


@pytest.mark.parametrize("name", UPLOADS)
def test_bad_uploads_are_rejected_before_any_run(hostile: Hostile, name: str) -> None:
    raw, message = UPLOADS[name]
    recorder = Recorder(hostile.pool)
    with pytest.raises(SourceRejected) as rejected:
        grade_code(SPEC, read_source(raw), SEED, recorder)
    assert str(rejected.value) == message
    assert recorder.calls == []


def test_text_upload_with_a_lone_surrogate_is_rejected(hostile: Hostile) -> None:
    recorder = Recorder(hostile.pool)
    with pytest.raises(SourceRejected):
        grade_code(SPEC, read_source(CORRECT + "# \ud800\n"), SEED, recorder)
    assert recorder.calls == []


def test_the_suite_reads_the_first_case_as_visible_and_the_last_as_hidden() -> None:
    cases = prepare(SPEC, SEED).cases
    assert cases[0].visible and not cases[HIDDEN].visible and len(cases) == CASE_COUNT

