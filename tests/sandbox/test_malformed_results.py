"""Whatever bytes come back from a sandbox, the host builds a RunResult and never raises.

Learner code runs in the process that writes the result pipe, so it can write any frames it
likes. These tests feed the decoder and the interpreter (`outcome.assemble`, exactly what
`SandboxPool.run` calls on the collected bytes) with generated malformed streams: every one
must come out as the one malformed verdict, `crashed`, and every log line about it must be a
single escaped line of bounded length. The same attacks through a real sandbox are in
test_hostile_protocol.py.
"""

from __future__ import annotations

import json
import logging
import math
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grader.sandbox import Limits, codec, outcome
from grader.sandbox.collector import JobOutcome
from grader.sandbox.results import RunResult

CASES = 3
LIMITS = Limits()
# What the zygote reports after a job that exited normally.
CLEAN_EXIT = {"op": "done", "exit_code": 0, "signal": None, "timed_out": False,
              "cpu_seconds": 0.1, "maxrss_bytes": 1 << 20, "wall_seconds": 0.1, "clean": True}
KNOWN_KINDS = {"case", "stopped", "done", "internal_error", "compiled", "syntax_error", *outcome.LOAD_STATUS}
TAG_SETS = [{"__dict__"}, {"__tuple__"}, {"__float__"}, set(codec._ARRAY_KEYS)]


def _raw_frame(header: Any, data: bytes = b"") -> bytes:
    """One frame whose JSON header is exactly `header`, as hostile code could write it."""
    head = json.dumps(header).encode()
    return codec.frame(struct.pack(">I", len(head)) + head + data)


def _case_header(at: int, **fields: Any) -> dict[str, Any]:
    """The wire header of a well-formed frame for case `at`, with `fields` replaced."""
    body = {"kind": "case", "index": at, "status": "ok", "value": 1.5, "error": None,
            "duration_ms": 1.0}
    body.update(fields)
    return {"__dict__": body}


def _good_cases(start: int, stop: int) -> bytes:
    return b"".join(_raw_frame(_case_header(i)) for i in range(start, stop))


DONE = _raw_frame({"__dict__": {"kind": "done"}})
COMPILED = _raw_frame({"__dict__": {"kind": "compiled"}})  # the runner's first frame, before learner code runs


def _assemble(results: bytes, compiled: bool = True) -> RunResult:
    """What the host makes of `results` sent by the learner's code, after the runner's compile report."""
    job = JobOutcome(results=(COMPILED if compiled else b"") + results, done=dict(CLEAN_EXIT))
    return outcome.assemble(job, CASES, LIMITS, 5.0)


@contextmanager
def _logged() -> Iterator[list[logging.LogRecord]]:
    """The records the outcome module logs meanwhile (caplog is function-scoped; hypothesis
    runs many examples per test)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger(outcome.__name__)
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


def _assert_malformed(result: RunResult, records: list[logging.LogRecord]) -> None:
    assert result.status == "crashed" and result.message == outcome.MALFORMED, result.message
    assert result.facts == {"cause": "malformed"}
    assert len(result.cases) == CASES
    assert {case.status for case in result.cases} == {"exception"}
    _assert_log_lines_are_safe(records)


def _assert_log_lines_are_safe(records: list[logging.LogRecord]) -> None:
    for record in records:
        line = record.getMessage()
        assert "\n" not in line and "\r" not in line, line[:200]
        assert len(line) < outcome.MAX_LOGGED + 300, len(line)


# --- strategies -------------------------------------------------------------------------

json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**90), max_value=2**90),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["__dict__", "__tuple__", "__float__", "__array__",
                                       "dtype", "shape", "kind", "x"]), inner, max_size=5),
    max_leaves=16,
)
not_a_status = json_values.filter(lambda v: not (isinstance(v, str) and v in outcome.CASE_STATUSES))
not_index_zero = json_values.filter(lambda v: not (type(v) is int and v == 0))
not_a_duration = json_values.filter(
    lambda v: not (isinstance(v, (int, float)) and 0 <= v < math.inf))
not_text = json_values.filter(lambda v: v is not None and not isinstance(v, str))

bad_dims = st.one_of(
    st.integers(max_value=-1), st.integers(min_value=codec.MAX_ELEMENTS + 1),
    st.floats(), st.text(max_size=3), st.none(), st.booleans(), st.lists(st.integers(), max_size=2),
)
bad_shapes = st.one_of(
    st.lists(st.integers(0, 3), min_size=codec.MAX_NDIM + 1, max_size=codec.MAX_NDIM + 40),
    st.tuples(st.lists(st.integers(0, 4), max_size=3), bad_dims,
              st.lists(st.integers(0, 4), max_size=3)).map(lambda t: [*t[0], t[1], *t[2]]),
    # Zero-size, so nbytes 0 matches, but dimensions no array could have: 2**70, or 2**40 * 2**40.
    st.lists(st.integers(2**20 + 1, 2**80), min_size=2, max_size=4).map(lambda dims: [*dims, 0]),
    json_values.filter(lambda v: not isinstance(v, list)),
)


def _array_tag(**fields: Any) -> dict[str, Any]:
    tag = {"__array__": 0, "dtype": "<f8", "shape": [0], "offset": 0, "nbytes": 0}
    tag.update(fields)
    return tag


bad_values = st.one_of(
    st.builds(lambda shape: _array_tag(shape=shape), bad_shapes),
    st.builds(lambda dtype: _array_tag(dtype=dtype),
              json_values.filter(lambda v: not (isinstance(v, str) and v in codec.ALLOWED_DTYPES))),
    st.builds(lambda index: _array_tag(__array__=index), not_index_zero),
    st.builds(lambda offset: _array_tag(offset=offset), not_index_zero),
    st.builds(lambda nbytes: _array_tag(nbytes=nbytes), not_index_zero),
    st.builds(lambda special: {"__float__": special},
              json_values.filter(lambda v: not (isinstance(v, str) and v in codec._NONFINITE))),
    st.dictionaries(st.text(max_size=10), json_values, max_size=4)
    .filter(lambda tag: set(tag) not in TAG_SETS),
    st.builds(lambda digits: {"__tuple__": [int("9" * digits)]}, st.integers(20, 4000)),
)
# One bad field of a case frame (the frame's index is filled in by the test).
bad_case_fields = st.one_of(
    st.builds(lambda v: {"status": v}, not_a_status),
    st.builds(lambda v: {"index": v}, json_values),
    st.builds(lambda v: {"duration_ms": v}, not_a_duration),
    st.builds(lambda v: {"error": v}, not_text),
    st.builds(lambda v: {"printed": v}, json_values.filter(lambda v: not isinstance(v, str))),
    st.builds(lambda v: {"printed_dropped": v},
              json_values.filter(lambda v: not (type(v) is int and 0 <= v <= codec.INT64_MAX))),
    st.builds(lambda v: {"value": v}, bad_values),
    st.builds(lambda v: {"value": [1.0, {"__dict__": {"deep": v}}]}, bad_values),
)
malformed_other_frames = st.one_of(
    json_values.filter(lambda v: not isinstance(v, dict)),  # not a tagged object at all
    st.builds(lambda kind: {"__dict__": {"kind": kind}}, not_text),
    st.builds(lambda kind: {"__dict__": {"kind": kind}},
              st.text(max_size=40).filter(lambda k: k not in KNOWN_KINDS)),
    st.builds(lambda m: {"__dict__": {"kind": "syntax_error", "message": m, "line": 1}}, not_text),
    st.builds(lambda n: {"__dict__": {"kind": "syntax_error", "message": "m", "line": n}},
              json_values.filter(lambda v: v is not None and type(v) is not int)),
    st.builds(lambda e: {"__dict__": {"kind": "load_error", "error": e}},
              json_values.filter(lambda v: not isinstance(v, str))),
    st.just({"__dict__": {"kind": "done"}}),  # before all the cases
    # What the case a limit stopped had printed: text, for the case that is running (never a later one).
    st.builds(lambda text: {"__dict__": {"kind": "stopped", "index": 0, "printed": text, "printed_dropped": 0}},
              json_values.filter(lambda v: not isinstance(v, str))),
    st.builds(lambda index: {"__dict__": {"kind": "stopped", "index": index, "printed": "x", "printed_dropped": 0}},
              json_values.filter(lambda v: not (type(v) is int and 0 <= v < CASES))),
)


# --- properties -------------------------------------------------------------------------

@settings(max_examples=500, deadline=None)
@given(fields=bad_case_fields, at=st.integers(0, CASES - 1))
def test_a_malformed_case_frame_gives_the_malformed_verdict(fields: dict[str, Any], at: int
                                                            ) -> None:
    index = fields.get("index")
    assume(not (type(index) is int and index == at))  # the one index that would be right
    stream = (_good_cases(0, at) + _raw_frame(_case_header(at, **fields))
              + _good_cases(at + 1, CASES) + DONE)
    with _logged() as records:
        result = _assemble(stream)
    _assert_malformed(result, records)


@settings(max_examples=300, deadline=None)
@given(frame=malformed_other_frames, at=st.integers(0, CASES - 1))
def test_a_malformed_frame_of_any_kind_gives_the_malformed_verdict(frame: Any, at: int) -> None:
    stream = _good_cases(0, at) + _raw_frame(frame) + _good_cases(at, CASES) + DONE
    with _logged() as records:
        result = _assemble(stream)
    _assert_malformed(result, records)


@settings(max_examples=300, deadline=None)
@given(header=st.binary(max_size=64), data=st.binary(max_size=64))
def test_headers_of_random_bytes_give_the_malformed_verdict(header: bytes, data: bytes) -> None:
    blob = struct.pack(">I", len(header)) + header + data
    with _logged() as records:
        result = _assemble(codec.frame(blob) + _good_cases(0, CASES) + DONE)
    _assert_malformed(result, records)


@settings(max_examples=300, deadline=None)
@given(noise=st.binary(max_size=512), flips=st.lists(st.tuples(st.integers(0, 10**6),
                                                               st.integers(1, 255)), max_size=6))
def test_random_and_bit_flipped_streams_never_raise(noise: bytes, flips: list[tuple[int, int]]
                                                    ) -> None:
    valid = b"".join(codec.frame(codec.encode(
        {"kind": "case", "index": i, "status": "ok", "value": np.arange(3.0) * i, "error": None,
         "duration_ms": 1.0})) for i in range(CASES))
    mutated = bytearray(valid + codec.frame(codec.encode({"kind": "done"})))
    for position, mask in flips:
        mutated[position % len(mutated)] ^= mask
    for stream in (noise, bytes(mutated)):
        with _logged() as records:
            result = _assemble(stream)
        # A flip inside array data can leave a valid stream; anything else is a crash.
        assert result.status in ("completed", "crashed"), result
        assert len(result.cases) == CASES
        assert all(case.status in outcome.CASE_STATUSES for case in result.cases)
        _assert_log_lines_are_safe(records)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(json_leaves.filter(lambda v: not isinstance(v, int) or
                                          codec.INT64_MIN <= v <= codec.INT64_MAX),
                       min_size=CASES, max_size=CASES))
def test_well_formed_streams_still_complete(values: list[Any]) -> None:
    # The generators above are not so strict that good frames fail too.
    frames = [{"kind": "case", "index": i, "status": "ok", "value": v, "error": None,
               "duration_ms": 2.0} for i, v in enumerate(values)]
    stream = b"".join(codec.frame(codec.encode(f)) for f in [*frames, {"kind": "done"}])
    result = _assemble(stream)
    assert result.status == "completed", result.message
    assert [case.value for case in result.cases] == values


# --- the audit's exact frames, and what reaches the log ----------------------------------

AUDIT_FRAMES = {
    "status-as-list": _case_header(0, status=["ok"]),
    "float-tag-as-list": {"__float__": ["nan"]},
    "shape-2**70": _case_header(0, value=_array_tag(shape=[2**70, 0])),
    "shape-2**40-squared": _case_header(0, value=_array_tag(shape=[2**40, 2**40, 0])),
}


def test_the_audit_frames_give_the_malformed_verdict() -> None:
    huge_literal = b'{"__tuple__":[' + b"9" * 5000 + b"]}"  # past int()'s digit limit
    streams = [_raw_frame(frame) for frame in AUDIT_FRAMES.values()]
    streams.append(codec.frame(struct.pack(">I", len(huge_literal)) + huge_literal))
    for stream in streams:
        with _logged() as records:
            result = _assemble(stream + _good_cases(0, CASES) + DONE)
        _assert_malformed(result, records)


def test_an_unexpected_exception_while_interpreting_is_malformed_and_logged(
        monkeypatch: Any) -> None:
    # Defence in depth: a bug of ours in reading the frames must not escape pool.run either.
    def broken(frame: dict[str, Any], expected_index: int) -> Any:
        raise RuntimeError("forged\nCRITICAL line")

    monkeypatch.setattr(outcome, "_case", broken)
    with _logged() as records:
        result = _assemble(_good_cases(0, CASES) + DONE)
    _assert_malformed(result, records)
    assert [r.levelno for r in records] == [logging.ERROR]
    # Where it was raised (here, the stand-in) and what, escaped onto one line.
    assert "RuntimeError" in records[0].getMessage() and __file__ in records[0].getMessage()


def test_an_internal_error_frame_ends_the_run_and_is_logged_escaped() -> None:
    forged = "x\n2030-01-01 00:00:00 CRITICAL grader.security: admin password reset"
    failed = _raw_frame({"__dict__": {"kind": "internal_error", "error": forged}})
    stream = _good_cases(0, 1) + failed + _good_cases(1, CASES) + DONE
    with _logged() as records:
        result = _assemble(stream)
    assert result.status == "crashed" and result.message == outcome.RUNNER_FAILED
    assert [case.status for case in result.cases] == ["ok", "exception", "exception"]
    (record,) = records
    assert record.levelno == logging.ERROR
    assert repr(forged) in record.getMessage() and "\n" not in record.getMessage()


def test_a_huge_internal_error_is_cut_in_the_log() -> None:
    error = "\x00" * 10**6 + "the end"
    with _logged() as records:
        _assemble(_raw_frame({"__dict__": {"kind": "internal_error", "error": error}}))
    (record,) = records
    assert record.getMessage().endswith("the end'")
    _assert_log_lines_are_safe(records)


def _setup_frame(kind: str) -> bytes:
    return _raw_frame({"__dict__": {"kind": kind, "message": "x=[0.25, 0.5]", "error": "x=[0.25, 0.5]", "line": 1}})


@pytest.mark.parametrize("kind", ["syntax_error", *sorted(outcome.LOAD_STATUS)])
def test_a_setup_frame_after_a_case_is_malformed_not_shown(kind: str) -> None:
    # Code running in a hidden case could otherwise carry that case's inputs out as a load error.
    with _logged() as records:
        result = _assemble(_good_cases(0, 1) + _setup_frame(kind) + _good_cases(1, CASES) + DONE)
    _assert_malformed(result, records)
    if kind in outcome.LOAD_STATUS:  # right after the compile report, where the runner sends it
        first = _assemble(_setup_frame(kind))
        assert first.status == outcome.LOAD_STATUS[kind] and first.message == "x=[0.25, 0.5]"


def test_a_syntax_error_counts_only_as_the_runners_first_frame() -> None:
    real = _assemble(_setup_frame("syntax_error"), compiled=False)  # no learner code ran before it
    assert real.status == "syntax_error" and real.message == "x=[0.25, 0.5]"
    with _logged() as records:  # code that compiled, then ran, and claims it did not compile
        forged = _assemble(_setup_frame("syntax_error"))
    _assert_malformed(forged, records)


@pytest.mark.parametrize("first", [b"", _good_cases(0, 1), DONE])
def test_a_job_that_does_not_start_with_the_compile_report_is_malformed(first: bytes) -> None:
    with _logged() as records:
        result = _assemble(first + _good_cases(0 if not first else 1, CASES) + DONE, compiled=False)
    _assert_malformed(result, records)


# --- a flooded result pipe costs the host only the frames it reads ---------------------------


def _counting_decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the frames the host decodes from here on."""
    calls: list[int] = []
    decode = codec.decode

    def counted(blob: Any, **kwargs: Any) -> Any:
        calls.append(len(blob))
        return decode(blob, **kwargs)

    monkeypatch.setattr(codec, "decode", counted)
    return calls


def test_frames_after_the_done_frame_are_never_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded = _counting_decodes(monkeypatch)
    flood = _raw_frame(_case_header(0)) * 200_000  # what code still running at exit could add
    result = _assemble(_good_cases(0, CASES) + DONE + flood)
    assert result.status == "completed"
    assert len(decoded) == 1 + CASES + 1  # compiled, the cases, done


def test_a_pipe_full_of_empty_frames_is_read_up_to_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    split: list[int] = []
    iter_frames = codec.iter_frames

    def counted(*args: Any, **kwargs: Any) -> Iterator[memoryview]:
        for blob in iter_frames(*args, **kwargs):
            split.append(len(blob))
            yield blob

    monkeypatch.setattr(codec, "iter_frames", counted)
    with _logged() as records:
        result = _assemble(bytes(16 << 20))  # 4 million zero-length frames, as an audit's submission wrote
    _assert_malformed(result, records)
    assert split == [len(COMPILED) - 4, 0]  # the runner's report, then the first empty frame only
