"""Plain-bytes codec for values crossing the sandbox boundary (no pickle, strict decoding).

Layout: 4-byte big-endian header length, a UTF-8 JSON header, then the raw bytes of every
array back to back. In the header a JSON object is always a one-purpose tag, so nothing a
learner returns can be mistaken for one:

    {"__array__": i, "dtype": "<f8", "shape": [2, 3], "offset": o, "nbytes": n}
    {"__float__": "nan" | "inf" | "-inf"}     non-finite floats, which JSON cannot hold
    {"__tuple__": [...]}                        tuples (lists stay JSON arrays)
    {"__dict__": {...}}                         dicts with str keys

This module is copied into the sandbox runtime and imported there as a top-level module,
so it must depend on nothing but the standard library and numpy.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

HEADER_LEN = struct.Struct(">I")
FRAME_LEN = struct.Struct(">I")
# Little-endian on the wire whatever the host; bool has no byte order.
ALLOWED_DTYPES: dict[str, np.dtype[Any]] = {
    "<f8": np.dtype("<f8"),
    "<f4": np.dtype("<f4"),
    "<i8": np.dtype("<i8"),
    "<i4": np.dtype("<i4"),
    "|b1": np.dtype("|b1"),
}
MAX_DEPTH = 32
MAX_NDIM = 32
# An empty array may have any dimensions numpy can hold; bounding the product of the non-zero
# ones keeps size * itemsize far below what numpy (and reshape) can represent.
MAX_ELEMENTS = 2**40
MAX_NODES = 200_000
MAX_HEADER_BYTES = 8 * 2**20
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_ARRAY_KEYS = {"__array__", "dtype", "shape", "offset", "nbytes"}


class CodecError(ValueError):
    """Raised when a value cannot be encoded or a byte string is not a valid encoding."""


def wire_dtype(dtype: np.dtype[Any]) -> str | None:
    """The allowlisted wire name for `dtype`, or None if it may not cross the boundary."""
    if dtype.kind == "b":
        return "|b1"
    name = dtype.newbyteorder("<").str
    return name if name in ALLOWED_DTYPES else None


def shape_problem(shape: Sequence[Any]) -> str | None:
    """Why an array of `shape` may not cross the boundary, or None if it may."""
    if len(shape) > MAX_NDIM:
        return f"an array with {len(shape)} dimensions (at most {MAX_NDIM} are allowed)"
    if not all(type(n) is int and n >= 0 for n in shape):
        return "an array whose shape is not a list of non-negative integers"
    # The first test spares math.prod a product of 32 enormous integers.
    if any(n > MAX_ELEMENTS for n in shape) or math.prod(n for n in shape if n) > MAX_ELEMENTS:
        return f"an array whose shape spans more than {MAX_ELEMENTS} elements"
    return None


def _scalar(value: bool | str | float | None) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise CodecError("integer does not fit in 64 bits")
        return int(value)
    return float(value) if math.isfinite(value) else {"__float__": repr(float(value))}


class _Encoder:
    """Walks a value once, building the JSON tree and collecting array buffers."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.chunks: list[bytes] = []
        self.offset = 0
        self.nodes = 0

    def tree(self, value: Any, depth: int) -> Any:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise CodecError(f"value nested deeper than {MAX_DEPTH} or over {MAX_NODES} items")
        if value is None or isinstance(value, (bool, str, int, float)):
            return _scalar(value)
        if type(value) is np.ndarray:
            return self.array(value)
        if isinstance(value, list):
            return [self.tree(item, depth + 1) for item in value]
        if isinstance(value, tuple):
            return {"__tuple__": [self.tree(item, depth + 1) for item in value]}
        if isinstance(value, dict):
            return {"__dict__": self.mapping(value, depth)}
        raise CodecError(f"cannot encode a value of type {type(value).__name__}")

    def mapping(self, value: dict[Any, Any], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise CodecError("dict keys must be strings")
            out[key] = self.tree(item, depth + 1)
        return out

    def array(self, value: np.ndarray[Any, Any]) -> dict[str, Any]:
        name = wire_dtype(value.dtype)
        if name is None:
            raise CodecError(f"array dtype {value.dtype} is not allowed")
        problem = shape_problem(value.shape)
        if problem is not None:
            raise CodecError(f"cannot encode {problem}")
        # Checked before copying: a broadcast view can stand for gigabytes it does not hold.
        if self.offset + value.size * ALLOWED_DTYPES[name].itemsize > self.max_bytes:
            raise CodecError(f"encoded arrays exceed {self.max_bytes} bytes")
        raw = np.ascontiguousarray(value, dtype=ALLOWED_DTYPES[name]).tobytes()
        tag = {"__array__": len(self.chunks), "dtype": name, "shape": list(value.shape),
               "offset": self.offset, "nbytes": len(raw)}
        self.chunks.append(raw)
        self.offset += len(raw)
        return tag


def encode(value: Any, max_bytes: int = 64 * 2**20) -> bytes:
    """Encode a nested value as header length + JSON header + raw array bytes."""
    encoder = _Encoder(max_bytes)
    header = json.dumps(encoder.tree(value, 0), allow_nan=False, separators=(",", ":"))
    head = header.encode("utf-8")
    if len(head) > MAX_HEADER_BYTES or len(head) + encoder.offset > max_bytes:
        raise CodecError(f"encoded value exceeds {max_bytes} bytes")
    return HEADER_LEN.pack(len(head)) + head + b"".join(encoder.chunks)


def _reject_constant(name: str) -> Any:
    raise CodecError(f"bare {name} is not valid in the header")


def _finite_float(text: str) -> float:
    """A JSON number as a float; "1e999" would be inf, which only a __float__ tag may carry."""
    value = float(text)
    if not math.isfinite(value):
        raise CodecError("a bare number in the header is not finite")
    return value


class _Decoder:
    """Rebuilds a value from a parsed header, checking every tag against the data section."""

    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.next_index = 0
        self.next_offset = 0
        self.nodes = 0

    def value(self, node: Any, depth: int) -> Any:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise CodecError("value nested too deeply or too large")
        if node is None or isinstance(node, (bool, str, float)):
            return node
        if isinstance(node, int):
            if not INT64_MIN <= node <= INT64_MAX:
                raise CodecError("integer does not fit in 64 bits")
            return node
        if isinstance(node, list):
            return [self.value(item, depth + 1) for item in node]
        if isinstance(node, dict):
            return self.tagged(node, depth)
        raise CodecError(f"unexpected JSON value of type {type(node).__name__}")

    def tagged(self, node: dict[str, Any], depth: int) -> Any:
        keys = set(node)
        if keys == {"__dict__"} and isinstance(node["__dict__"], dict):
            return {key: self.value(item, depth + 1) for key, item in node["__dict__"].items()}
        if keys == {"__tuple__"} and isinstance(node["__tuple__"], list):
            return tuple(self.value(item, depth + 1) for item in node["__tuple__"])
        # isinstance first: a list or dict tag value is unhashable and would raise TypeError.
        special = node.get("__float__")
        if keys == {"__float__"} and isinstance(special, str) and special in _NONFINITE:
            return _NONFINITE[special]
        if keys == _ARRAY_KEYS:
            return self.array(node)
        raise CodecError(f"unknown tag with {len(keys)} key(s)")

    def array(self, node: dict[str, Any]) -> np.ndarray[Any, Any]:
        name = node["dtype"]
        dtype = ALLOWED_DTYPES.get(name) if isinstance(name, str) else None
        if dtype is None:
            raise CodecError("array dtype is not allowed")
        shape = node["shape"]
        if not isinstance(shape, list) or shape_problem(shape) is not None:
            raise CodecError("array shape is not a short list of non-negative integers in range")
        count = math.prod(shape)
        nbytes, offset = node["nbytes"], node["offset"]
        if type(node["__array__"]) is not int or type(offset) is not int:
            raise CodecError("array index and offset must be integers")
        if node["__array__"] != self.next_index or offset != self.next_offset:
            raise CodecError("arrays are out of order or overlap")
        if type(nbytes) is not int or nbytes != count * dtype.itemsize:
            raise CodecError("array byte length does not match its shape and dtype")
        if offset + nbytes > len(self.data):
            raise CodecError("array runs past the end of the data")
        self.next_index += 1
        self.next_offset += nbytes
        flat = np.frombuffer(self.data, dtype=dtype, count=count, offset=offset)
        # A copy owns its memory and is writable, so callers may mutate it freely.
        return flat.reshape(shape).astype(dtype.newbyteorder("="), copy=True)


def decode(blob: bytes | bytearray | memoryview, max_bytes: int = 64 * 2**20) -> Any:
    """Decode and validate bytes produced by `encode`; raise CodecError on anything else."""
    view = memoryview(blob).cast("B")
    if len(view) > max_bytes:
        raise CodecError(f"encoded value exceeds {max_bytes} bytes")
    if len(view) < HEADER_LEN.size:
        raise CodecError("truncated header length")
    (head_len,) = HEADER_LEN.unpack(view[: HEADER_LEN.size])
    end = HEADER_LEN.size + head_len
    if head_len > MAX_HEADER_BYTES or end > len(view):
        raise CodecError("header length is out of range")
    try:
        text = bytes(view[HEADER_LEN.size : end]).decode("utf-8")
        tree = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CodecError(f"header is not valid JSON: {exc}") from None
    decoder = _Decoder(view[end:])
    try:
        value = decoder.value(tree, 0)
    except RecursionError:
        raise CodecError("value nested too deeply") from None
    if decoder.next_offset != len(view) - end:
        raise CodecError("data section has bytes no array accounts for")
    return value


def frame(blob: bytes) -> bytes:
    """Prefix `blob` with its 4-byte big-endian length, for a stream of several blobs."""
    return FRAME_LEN.pack(len(blob)) + blob


def iter_frames(data: bytes | bytearray | memoryview, partial_ok: bool = False) -> Iterator[memoryview]:
    """The frames of a stream one at a time, so a reader that stops early never touches the rest.

    A truncated last frame is dropped or, by default, an error.
    """
    view = memoryview(data).cast("B")
    position = 0
    while position < len(view):
        start = position + FRAME_LEN.size
        size = FRAME_LEN.unpack(view[position:start])[0] if start <= len(view) else None
        if size is None or start + size > len(view):
            if partial_ok:
                return
            raise CodecError("truncated frame")
        position = start + size
        yield view[start:position]


def split_frames(data: bytes | bytearray | memoryview, partial_ok: bool = False) -> list[memoryview]:
    """Every frame of a stream (see iter_frames)."""
    return list(iter_frames(data, partial_ok))
