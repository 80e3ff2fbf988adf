"""What leaves the sandbox from a case: the function's return value, checked before it is sent out,
and what the function printed (kept per case, and reported when a time limit stops the case).

A value the host's decoder would refuse becomes one case's bad_result here, with a message the
learner can act on, instead of a crashed job. Copied into the runtime beside codec.py, like
runner.py (stdlib + numpy only).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

try:
    from . import codec
    from . import reasons as why
except ImportError:  # inside the sandbox this file is a top-level module beside codec.py
    import codec  # type: ignore[import-not-found, no-redef]
    import reasons as why  # type: ignore[import-not-found, no-redef]

MAX_VALUE_DEPTH = 16
# The host decodes one case's frame with at most this many bytes (Limits.result_bytes).
DEFAULT_MAX_BYTES = 64 * 2**20
# What one case may print that is kept for the learner; the host holds frames to the same figure.
MAX_PRINTED_CHARS = 4000


class BadResult(Exception):
    """The function returned something that may not leave the sandbox."""


def check_value(value: Any, depth: int = 0, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """Return `value` in a form the codec carries, or raise BadResult saying what is wrong.

    Arrays are held to the host decoder's own limits (codec.shape_problem, and `max_bytes` per
    array), so a value the host would refuse is one case's bad_result, not a crashed job.
    """
    if depth > MAX_VALUE_DEPTH:
        raise BadResult(why.NESTED_TOO_DEEP % {"depth": MAX_VALUE_DEPTH})
    kind = type(value)
    if kind is bool or kind is float:
        return value
    if kind is int:
        if not codec.INT64_MIN <= value <= codec.INT64_MAX:
            raise BadResult(why.INTEGER_TOO_LARGE)
        return value
    if kind is np.ndarray:
        return _check_array(value, max_bytes)
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        # Explicit conversions: .item() keeps np.longdouble as it is.
        code = value.dtype.kind
        plain = bool(value) if code == "b" else float(value) if code == "f" else int(value)
        return check_value(plain, depth + 1, max_bytes)
    if isinstance(value, np.ndarray):
        raise BadResult(why.NDARRAY_SUBCLASS % {"type": kind.__name__})
    if kind is list or kind is tuple:
        items = [check_value(item, depth + 1, max_bytes) for item in value]
        return items if kind is list else tuple(items)
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise BadResult(why.DICT_KEYS)
        return {key: check_value(item, depth + 1, max_bytes) for key, item in value.items()}
    if value is None:
        raise BadResult(why.RETURNED_NONE)
    raise BadResult(why.WRONG_TYPE % {"type": kind.__name__})


def _check_array(array: np.ndarray[Any, Any], max_bytes: int) -> np.ndarray[Any, Any]:
    """`array` in a wire dtype, or BadResult if the host's decoder would refuse it."""
    kind = array.dtype.kind
    if kind == "O":
        raise BadResult(why.OBJECT_ARRAY)
    wire = codec.wire_dtype(array.dtype)
    if wire is None and kind not in "fiu":
        raise BadResult(why.WRONG_DTYPE % {"dtype": array.dtype})
    problem = codec.shape_problem(array.shape)
    if problem is not None:
        raise BadResult(why.BAD_SHAPE % {"problem": problem})
    # Other floats and integers go as float64 and int64: 8 bytes an item on the wire.
    nbytes = array.size * (codec.ALLOWED_DTYPES[wire].itemsize if wire else 8)
    if nbytes > max_bytes:
        raise BadResult(why.ARRAY_TOO_LARGE % {"size": nbytes, "limit": max_bytes})
    if wire is not None:
        return array
    if kind == "f":
        return array.astype(np.float64)
    if array.size and array.max() > codec.INT64_MAX:  # an "i" or "u" array from here on
        raise BadResult(why.INTEGER_TOO_LARGE)
    return array.astype(np.int64)


class Printed(io.TextIOBase):
    """What one case writes to sys.stdout or sys.stderr: the first `limit` characters, the rest counted."""

    def __init__(self, limit: int = MAX_PRINTED_CHARS) -> None:
        super().__init__()
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        """Always: print() may write here."""
        return True

    def write(self, text: str) -> int:
        """Keep what fits, count the rest."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        piece = str.__getitem__(text, slice(0, max(0, self.limit - self.kept)))
        self.parts.append(piece)
        self.kept += len(piece)
        self.dropped += str.__len__(text) - len(piece)
        return str.__len__(text)

    def report(self) -> dict[str, Any]:
        """The case frame's fields: the text kept and how many characters were not."""
        return {"printed": "".join(self.parts), "printed_dropped": self.dropped}


def printed_report(printed: Printed) -> dict[str, Any]:
    """The case's printed output; nothing if the function broke the object it printed to (sys.stdout)."""
    try:
        return printed.report()
    except BaseException:  # noqa: BLE001 - its attributes were the learner's to change
        return {}


@contextlib.contextmanager
def capture(printed: Printed) -> Iterator[None]:
    """Send what the function prints, and its warnings, to `printed` while it runs."""
    # Leaving catch_warnings resets which warnings were shown, so each case shows its own (numpy's
    # "overflow encountered in exp" says a lot about a softmax); the learner's own filters still apply.
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), warnings.catch_warnings():
        yield


@contextlib.contextmanager
def reported_if_stopped(printed: Printed, index: int, send: Callable[[dict[str, Any]], None]) -> Iterator[None]:
    """While the case runs, SIGXCPU (the CPU soft limit, or the zygote's wall-clock deadline) sends what
    it printed so far in a `stopped` frame, then ends the job with that signal as before."""

    def report_and_die(signum: int, _frame: Any) -> None:
        # Blocked while it reports: a second SIGXCPU (the limit's and the zygote's together) would
        # run this again in the middle of the frame, and two frames interleaved are malformed.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signum})
        with contextlib.suppress(BaseException):  # the job ends here whatever the learner broke
            send({"kind": "stopped", "index": index, **printed_report(printed)})
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})  # the pending one ends the process

    previous = signal.signal(signal.SIGXCPU, report_and_die)
    try:
        yield
    finally:
        signal.signal(signal.SIGXCPU, previous)
