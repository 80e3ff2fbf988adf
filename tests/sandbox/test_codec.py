"""The boundary codec: faithful round trips, and strict rejection of everything else."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.sandbox import codec, outgoing
from grader.sandbox.codec import CodecError, decode, encode


class _Subclass(np.ndarray):
    """An ndarray subclass: may carry behaviour, so it never crosses the boundary."""


def _blob(header: Any, data: bytes = b"") -> bytes:
    head = json.dumps(header).encode()
    return struct.pack(">I", len(head)) + head + data


def _array_tag(dtype: str, shape: list[Any], nbytes: int, index: Any = 0,
               offset: int = 0) -> dict[str, Any]:
    return {"__array__": index, "dtype": dtype, "shape": shape, "offset": offset, "nbytes": nbytes}


def test_nested_round_trip_keeps_types_and_values() -> None:
    value = {
        "x": np.arange(12.0).reshape(3, 4),
        "f32": np.ones(3, dtype=np.float32),
        "i32": np.array([[1, -2]], dtype=np.int32),
        "i64": np.arange(5),
        "mask": np.array([True, False]),
        "empty": np.zeros((0, 3)),
        "scalars": [1, -2.5, True, None, float("nan"), float("inf"), float("-inf")],
        "pair": (np.float64(1.5).item(), "text"),
        "nested": {"deeper": [({"a": 1},)]},
    }
    back = decode(encode(value))
    assert set(back) == set(value)
    for key in ("x", "f32", "i32", "i64", "mask", "empty"):
        expected = value[key]
        assert isinstance(expected, np.ndarray)
        assert back[key].dtype == expected.dtype and back[key].shape == expected.shape
        np.testing.assert_array_equal(back[key], expected)
    scalars = back["scalars"]
    assert scalars[:4] == [1, -2.5, True, None] and type(scalars[2]) is bool
    assert math.isnan(scalars[4]) and scalars[5] == math.inf and scalars[6] == -math.inf
    assert back["pair"] == (1.5, "text") and back["nested"] == {"deeper": [({"a": 1},)]}


def test_decoded_arrays_are_writable_copies() -> None:
    back = decode(encode(np.arange(4.0)))
    back[0] = 9.0
    assert back.flags.owndata or back.base is not None
    assert back[0] == 9.0


def test_non_contiguous_and_big_endian_arrays_are_normalised() -> None:
    strided = np.arange(20.0).reshape(4, 5)[:, ::2].T
    swapped = np.arange(3, dtype=">i8")
    back_strided, back_swapped = decode(encode([strided, swapped]))
    np.testing.assert_array_equal(back_strided, strided)
    np.testing.assert_array_equal(back_swapped, swapped)
    assert back_swapped.dtype == np.dtype("int64")


def test_dict_keys_that_look_like_tags_stay_data() -> None:
    value = {"__array__": 0, "dtype": "<f8", "shape": [1], "offset": 0, "nbytes": 8}
    assert decode(encode(value)) == value
    assert decode(encode({"__float__": "nan"})) == {"__float__": "nan"}


@pytest.mark.parametrize("bad", [
    np.array([1, "a"], dtype=object),
    np.ones(2, dtype=complex),
    np.array(["text"]),
    np.eye(2).view(_Subclass),
    np.ma.masked_array([1.0]),
    {1: "non-str key"},
    {"s": {1, 2}},
    2**70,
    b"bytes",
])
def test_encode_rejects_values_outside_the_allowlist(bad: Any) -> None:
    with pytest.raises(CodecError):
        encode(bad)


def test_encode_and_decode_enforce_the_byte_cap() -> None:
    big = np.zeros(1000)
    with pytest.raises(CodecError):
        encode(big, max_bytes=4000)
    blob = encode(big)
    with pytest.raises(CodecError):
        decode(blob, max_bytes=4000)


@pytest.mark.parametrize("header,data", [
    (_array_tag("|O", [1], 8), b"\0" * 8),            # object dtype
    (_array_tag("<c16", [1], 16), b"\0" * 16),        # complex
    (_array_tag("<f8", [3], 16), b"\0" * 16),         # shape says 24 bytes
    (_array_tag("<f8", [-1], 8), b"\0" * 8),          # negative dimension
    (_array_tag("<f8", [1.5], 8), b"\0" * 8),         # fractional dimension
    (_array_tag("<f8", [2], 16), b"\0" * 8),          # runs past the data
    (_array_tag("<f8", [1], 8), b"\0" * 16),          # trailing bytes
    (_array_tag("<f8", [1], 8, index=1), b"\0" * 8),  # out of order
    (_array_tag("<f8", [1], 8, index=True), b"\0" * 8),  # bool smuggled as an index
    ({"__pickle__": "gASV"}, b""),                    # unknown tag
    ({"__float__": "1.0"}, b""),                      # finite floats are plain JSON
    ({"__dict__": {}, "extra": 1}, b""),              # tag with extra keys
    (2**64, b""),                                      # integer beyond 64 bits
    # Each of these raised TypeError or ValueError, not CodecError, and escaped pool.run.
    ({"__float__": ["nan"]}, b""),                    # unhashable tag value
    ({"__float__": {"__dict__": {}}}, b""),
    (_array_tag("<f8", [2**70, 0], 0), b""),          # zero-size, but no array has that
    (_array_tag("<f8", [2**40, 2**40, 0], 0), b""),   # ... nor that: reshape fails
    (_array_tag("<f8", [1] * 33, 8), b"\0" * 8),      # more dimensions than allowed
    (_array_tag(["<f8"], [1], 8), b"\0" * 8),         # unhashable dtype
])
def test_decode_rejects_malformed_input(header: Any, data: bytes) -> None:
    with pytest.raises(CodecError):
        decode(_blob(header, data))


def test_decode_rejects_broken_framing_and_json() -> None:
    for blob in (b"", b"\0\0", struct.pack(">I", 100) + b"{}", struct.pack(">I", 3) + b"NaN",
                 struct.pack(">I", 2) + b"\xff\xfe", _blob([[[]]])[:-1],
                 struct.pack(">I", 5) + b"1e999",  # infinite: only a __float__ tag may say so
                 struct.pack(">I", 5000) + b"9" * 5000):  # past int()'s digit limit
        with pytest.raises(CodecError):
            decode(blob)


def test_decode_rejects_deep_nesting() -> None:
    deep: Any = 1
    for _ in range(codec.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(CodecError):
        decode(_blob(deep))
    with pytest.raises(CodecError):
        decode(struct.pack(">I", 200_001) + b"[" * 100_000 + b"]" * 100_001)


@pytest.mark.parametrize("shape", [(1,) * 33, (2**41, 0), (2**21, 2**21, 0)])
def test_encode_refuses_shapes_the_decoder_would_refuse(shape: tuple[int, ...]) -> None:
    with pytest.raises(CodecError):
        encode(np.zeros(shape))


def test_encode_checks_the_byte_cap_before_copying_a_broadcast_view() -> None:
    # 80 GB seen through zero strides: copying it first would be a MemoryError, or worse.
    with pytest.raises(CodecError, match="exceed"):
        encode(np.broadcast_to(np.float64(1.0), (10**5, 10**5)))


def test_frames_split_and_detect_truncation() -> None:
    stream = codec.frame(b"one") + codec.frame(b"") + codec.frame(b"three")
    assert [bytes(f) for f in codec.split_frames(stream)] == [b"one", b"", b"three"]
    with pytest.raises(CodecError):
        codec.split_frames(stream[:-1])
    assert [bytes(f) for f in codec.split_frames(stream[:-1], partial_ok=True)] == [b"one", b""]


@given(hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32, np.bool_]),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
))
def test_round_trip_property(array: np.ndarray) -> None:
    back = decode(encode({"a": array, "t": (array,)}))
    for got in (back["a"], back["t"][0]):
        assert got.dtype == array.dtype and got.shape == array.shape
        np.testing.assert_array_equal(got, array)


# Shapes with at most 4096 elements, any number of dimensions up to numpy's 64, and huge
# dimensions only next to a zero (so the arrays are cheap to make).
small_or_empty_shapes = st.one_of(
    st.lists(st.integers(0, 2), max_size=12),
    st.lists(st.integers(0, 2), min_size=13, max_size=63).map(lambda dims: [*dims, 0]),
    # Products up to 2**56 elements: numpy makes those (empty), the wire stops at 2**40.
    st.lists(st.integers(0, 2**28), max_size=2).map(lambda dims: [*dims, 0]),
    st.integers(0, 2**56).map(lambda n: [n, 0]),
    st.lists(st.just(1), min_size=28, max_size=64),
)


@given(shape=small_or_empty_shapes, dtype=st.sampled_from(["<f8", "<f4", "<i8", "|b1"]))
def test_the_runner_accepts_exactly_the_arrays_the_host_decodes(shape: list[int],
                                                                dtype: str) -> None:
    """outgoing.check_value refuses an array (one case's bad_result) iff the host's decoder would
    refuse its wire form (which would make the whole job crashed)."""
    array = np.zeros(shape, dtype=dtype)
    raw = _blob(_array_tag(dtype, shape, array.nbytes), array.tobytes())
    try:
        checked = outgoing.check_value(array)
    except outgoing.BadResult:
        with pytest.raises(CodecError):
            decode(raw)
        with pytest.raises(CodecError):
            encode(array)
    else:
        assert decode(raw).shape == tuple(shape)
        assert decode(encode(checked)).shape == tuple(shape)


def test_the_runner_refuses_arrays_over_the_byte_budget_without_copying() -> None:
    view = np.broadcast_to(np.float64(1.0), (10**5, 10**5))
    with pytest.raises(outgoing.BadResult, match="the result is too large"):
        outgoing.check_value(view)
    with pytest.raises(outgoing.BadResult, match="the result is too large"):
        outgoing.check_value([np.zeros(100, dtype=np.float16)], max_bytes=799)
    sent = outgoing.check_value([np.zeros(100, dtype=np.float16)], max_bytes=800)  # float64 on the wire
    assert sent[0].dtype == np.float64
