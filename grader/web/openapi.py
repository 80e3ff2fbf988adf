"""OpenAPI 3.1 built from the code: views declare themselves with @documented; shapes come from type hints.

The document is assembled from the app's url_map, so a route under the prefix that nobody documented
still appears (marked `x-undocumented`) instead of silently missing.
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from flask import Flask
from werkzeug.routing import Rule

V = TypeVar("V", bound=Callable[..., Any])
BEARER = "bearerToken"
_DOC = "_openapi_operation"
_SECURED = "_openapi_secured"
_NONE = type(None)
_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                               _NONE: "null"}  # fmt: skip
_PARAM = re.compile(r"<(?:([A-Za-z_]\w*)(?:\([^)]*\))?:)?([A-Za-z_]\w*)>")
_CONVERTERS = {"int": "integer", "float": "number"}


@dataclass(frozen=True)
class ErrorBody:
    """Every API error: a stable machine name and a message for people."""

    error: str
    message: str


@dataclass(frozen=True)
class Reply:
    """One documented response: when it happens and the shape of its body (None for no body)."""

    description: str
    shape: Any = None
    media: str = "application/json"


@dataclass(frozen=True)
class Operation:
    """What a view says about itself."""

    summary: str
    replies: Mapping[int, Reply]
    description: str | None = None
    body: Any = None
    query: type | None = None
    upload: str | None = None  # a multipart field that may carry the body's content as a file instead


def documented(summary: str, replies: Mapping[int, Reply], *, description: str | None = None,
               body: Any = None, query: type | None = None, upload: str | None = None) -> Callable[[V], V]:  # fmt: skip
    """Attach an operation's documentation to a view (put it right under the route decorator)."""

    def mark(view: V) -> V:
        setattr(view, _DOC, Operation(summary, replies, description, body, query, upload))
        return view

    return mark


def secured(view: V) -> V:
    """Mark a view as needing a bearer token (the enforcing decorator calls this, so docs follow code)."""
    setattr(view, _SECURED, True)
    return view


@dataclass
class Schemas:
    """JSON Schemas from type hints; dataclasses become named components referenced by $ref."""

    components: dict[str, dict[str, Any]] = field(default_factory=dict)

    def of(self, hint: Any) -> dict[str, Any]:
        """The schema of a type hint."""
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            return self._ref(hint)
        origin, args = get_origin(hint), get_args(hint)
        if origin in (Union, types.UnionType):
            return self._union(args)
        if origin is Literal:
            return {"enum": list(args)}
        if origin in (list, tuple):
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(args[1]) if args else {}}
        if hint is Any:
            return {}
        if hint in _PRIMITIVES:
            return {"type": _PRIMITIVES[hint]}
        raise TypeError(f"no JSON Schema for {hint!r}")

    def _union(self, args: tuple[Any, ...]) -> dict[str, Any]:
        options = [self.of(a) for a in args if a is not _NONE]
        if _NONE not in args:
            return options[0] if len(options) == 1 else {"anyOf": options}
        if len(options) == 1 and isinstance(options[0].get("type"), str):
            return {**options[0], "type": [options[0]["type"], "null"]}
        return {"anyOf": [*options, {"type": "null"}]}

    def _ref(self, cls: type) -> dict[str, Any]:
        name = cls.__name__
        if name not in self.components:
            self.components[name] = {}  # placeholder first, so a self-referencing dataclass terminates
            self.components[name] = self._object(cls)
        return {"$ref": f"#/components/schemas/{name}"}

    def _object(self, cls: type) -> dict[str, Any]:
        hints = get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        schema: dict[str, Any] = {"type": "object", "properties": {n: self.of(hints[n]) for n in names},
                                  "required": names, "additionalProperties": False}  # fmt: skip
        if cls.__doc__:
            schema["description"] = cls.__doc__.strip().splitlines()[0]
        return schema


def document(app: Flask, prefix: str, title: str, version: str) -> dict[str, Any]:
    """The OpenAPI document for every route under `prefix`, documented or not."""
    schemas = Schemas()
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.rule != prefix and not rule.rule.startswith(prefix + "/"):
            continue
        view = app.view_functions[rule.endpoint]
        methods = sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
        item = paths.setdefault(_PARAM.sub(r"{\2}", rule.rule), {})
        for method in methods:
            item[method.lower()] = _operation(view, rule, method.lower() if len(methods) > 1 else "", schemas)
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "paths": paths,
        "components": {
            "schemas": schemas.components,
            "securitySchemes": {BEARER: {"type": "http", "scheme": "bearer",
                                         "description": "An API token made on your profile page."}},
        },
    }  # fmt: skip


def _operation(view: Callable[..., Any], rule: Rule, suffix: str, schemas: Schemas) -> dict[str, Any]:
    op: Operation | None = getattr(view, _DOC, None)
    is_secured = getattr(view, _SECURED, False)
    # One view serving several methods needs one operationId per method.
    name = rule.endpoint.rsplit(".", 1)[-1] + (f"_{suffix}" if suffix else "")
    out: dict[str, Any] = {"operationId": name}
    if op is None:
        out.update(summary="Undocumented", responses={"default": {"description": "Not documented yet."}})
        out["x-undocumented"] = True
    else:
        out.update(_described(op, is_secured, schemas))
    parameters = _path_parameters(rule) + (_query_parameters(op.query, schemas) if op and op.query else [])
    if parameters:
        out["parameters"] = parameters
    if is_secured:
        out["security"] = [{BEARER: []}]
    return out


def _described(op: Operation, is_secured: bool, schemas: Schemas) -> dict[str, Any]:
    out: dict[str, Any] = {"summary": op.summary}
    if op.description:
        out["description"] = op.description
    if op.body is not None:
        body = {"application/json": {"schema": schemas.of(op.body)}}
        if op.upload:
            file = {"type": "object", "properties": {op.upload: {"type": "string", "contentMediaType": "text/x-python"}},
                    "required": [op.upload]}  # fmt: skip
            body["multipart/form-data"] = {"schema": file}
        out["requestBody"] = {"required": True, "content": body}
    out["responses"] = _responses(op, is_secured, schemas)
    return out


def _responses(op: Operation, is_secured: bool, schemas: Schemas) -> dict[str, Any]:
    # Errors that come from the machinery rather than the view are added here, so no view forgets them.
    replies = dict(op.replies)
    if is_secured:
        replies.setdefault(401, Reply("No token, a malformed header, or a revoked token.", ErrorBody))
    if op.body is not None:
        replies.setdefault(400, Reply("The body is not JSON of the documented shape (an unknown field included), "
                                      "or the query string holds a NUL character.", ErrorBody))
        replies.setdefault(413, Reply("The body is larger than the service accepts.", ErrorBody))
    replies.setdefault(400, Reply("The query string holds a NUL character.", ErrorBody))
    replies.setdefault(500, Reply("An unexpected fault, logged; nothing half-written is kept.", ErrorBody))
    replies.setdefault(503, Reply("The database is unreachable, read-only or full; nothing was saved.", ErrorBody))
    out: dict[str, Any] = {}
    for status in sorted(replies):
        reply = replies[status]
        out[str(status)] = {"description": reply.description}
        if reply.shape is not None:
            out[str(status)]["content"] = {reply.media: {"schema": schemas.of(reply.shape)}}
    return out


def _path_parameters(rule: Rule) -> list[dict[str, Any]]:
    found = _PARAM.findall(rule.rule)
    return [{"name": name, "in": "path", "required": True,
             "schema": {"type": _CONVERTERS.get(conv or "", "string")}} for conv, name in found]  # fmt: skip


def _query_parameters(query: type, schemas: Schemas) -> list[dict[str, Any]]:
    hints = get_type_hints(query)
    out = []
    for f in dataclasses.fields(query):  # type: ignore[arg-type]
        # A query string has no null: document the non-null part of an optional field.
        hint = hints[f.name]
        if get_origin(hint) in (Union, types.UnionType):
            hint = next(a for a in get_args(hint) if a is not _NONE)
        out.append({"name": f.name, "in": "query", "required": False, "schema": schemas.of(hint)})
    return out
