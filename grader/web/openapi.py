"""OpenAPI 3.1 built from the code: views declare themselves with @documented; shapes come from type hints.

The document is assembled from the app's url_map, so a route under the prefix that nobody documented
still appears (marked `x-undocumented`) instead of silently missing.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints
from urllib.parse import quote

from flask import Flask
from werkzeug.routing import Rule

V = TypeVar("V", bound=Callable[..., Any])
BEARER = "bearerToken"
_DOC = "_openapi_operation"
_SECURED = "_openapi_secured"
_NONE = type(None)
_KEYWORDS = "json_schema"
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


def constrained(**schema: Any) -> dict[str, Any]:
    """Field metadata that adds JSON Schema keywords to the field's schema: `field(metadata=constrained(minLength=1))`."""
    return {_KEYWORDS: schema}


@dataclass(frozen=True)
class PerValue:
    """An operation documented once per value of a path parameter, each with its own body fields:
    for a body whose keys depend on the resource (the part ids of each exercise). `fields` gives, per
    value, the schema of each body field that differs from the body dataclass's."""

    parameter: str
    fields: Callable[[], Mapping[str, Mapping[str, dict[str, Any]]]]


@dataclass(frozen=True)
class Operation:
    """What a view says about itself."""

    summary: str
    replies: Mapping[int, Reply]
    description: str | None = None
    body: Any = None
    query: type | None = None
    upload: str | None = None  # a multipart field that may carry the body's one field as a file instead
    per_value: PerValue | None = None


def documented(summary: str, replies: Mapping[int, Reply], *, description: str | None = None, body: Any = None,
               query: type | None = None, upload: str | None = None,
               per_value: PerValue | None = None) -> Callable[[V], V]:  # fmt: skip
    """Attach an operation's documentation to a view (put it right under the route decorator)."""

    def mark(view: V) -> V:
        setattr(view, _DOC, Operation(summary, replies, description, body, query, upload, per_value))
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
            return {"type": _PRIMITIVES[type(args[0])], "enum": list(args)}
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

    def _object(self, cls: type, replaced: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        hints = get_type_hints(cls)
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        properties = {f.name: {**self.of(hints[f.name]), **f.metadata.get(_KEYWORDS, {})} for f in fields}
        properties.update(replaced or {})
        # A field with a default may be left out (a body's); a reply's fields have none, so all are given.
        required = [f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required,
                                  "additionalProperties": False}  # fmt: skip
        if cls.__doc__:
            schema["description"] = cls.__doc__.strip().splitlines()[0]
        return schema

    def inline(self, cls: type, replaced: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        """The schema of a dataclass written out (not a $ref), with some fields' schemas replaced."""
        return self._object(cls, replaced)


def document(app: Flask, prefix: str, title: str, version: str) -> dict[str, Any]:
    """The OpenAPI document for every route under `prefix`, documented or not."""
    schemas = Schemas()
    paths: dict[str, dict[str, Any]] = {}
    per_value: dict[tuple[str, str], Operation] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.rule != prefix and not rule.rule.startswith(prefix + "/"):
            continue
        view = app.view_functions[rule.endpoint]
        methods = sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
        template = _PARAM.sub(r"{\2}", rule.rule)
        item = paths.setdefault(template, {})
        for method in methods:
            item[method.lower()] = _operation(view, rule, method.lower() if len(methods) > 1 else "", schemas)
            op: Operation | None = getattr(view, _DOC, None)
            if op is not None and op.per_value is not None:
                per_value[template, method.lower()] = op
    _per_value(paths, per_value, schemas)
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


def _per_value(paths: dict[str, dict[str, Any]], per_value: dict[tuple[str, str], Operation], schemas: Schemas) -> None:
    """Each operation with a `per_value` parameter written out under one concrete path per value, with that
    value's body, and the other operations of its path beside it. The templated path stays for any other
    value (an unknown id, say), which its parameter's schema now excludes the listed ones from."""
    for (template, method), op in sorted(per_value.items()):
        assert op.per_value is not None
        name, values = op.per_value.parameter, op.per_value.fields()
        for value, fields in sorted(values.items()):
            item = paths.setdefault(template.replace("{" + name + "}", quote(value, safe="")), {})
            for other, operation in paths[template].items():
                concrete = copy.deepcopy(operation)
                concrete["operationId"] += "_" + re.sub(r"\W", "_", value)
                concrete["parameters"] = [p for p in concrete["parameters"] if p["name"] != name]
                if not concrete["parameters"]:
                    del concrete["parameters"]
                if other == method:
                    concrete["requestBody"]["content"] = {"application/json": {"schema": schemas.inline(op.body, fields)}}
                if other == method or other not in item:  # another per-value method may have written it
                    item[other] = concrete
        for operation in paths[template].values():
            for parameter in operation["parameters"]:
                if parameter["name"] == name and values:
                    parameter["schema"] = {**parameter["schema"], "not": {"enum": sorted(values)}}


def _described(op: Operation, is_secured: bool, schemas: Schemas) -> dict[str, Any]:
    out: dict[str, Any] = {"summary": op.summary}
    if op.description:
        out["description"] = op.description
    if op.body is not None:
        body = {"application/json": {"schema": schemas.of(op.body)}}
        if op.upload:
            body["multipart/form-data"] = {"schema": _upload(op.body, op.upload, schemas)}
        out["requestBody"] = {"required": True, "content": body}
    out["responses"] = _responses(op, is_secured, schemas)
    return out


def _upload(body: type, name: str, schemas: Schemas) -> dict[str, Any]:
    """The multipart form that carries the body's one field as a file: the same constraints on its text."""
    [only] = schemas.inline(body, {})["properties"].values()
    return {"type": "object", "properties": {name: {**only, "contentMediaType": "text/x-python"}},
            "required": [name], "additionalProperties": False}  # fmt: skip


def _or(own: Reply | None, why: str) -> Reply:
    """A view's own reply for a status, with one more reason the machinery adds; or that reason alone."""
    return Reply(f"{own.description.rstrip('.')}, or {why}" if own else why[0].upper() + why[1:],
                 own.shape if own else ErrorBody)  # fmt: skip


def _responses(op: Operation, is_secured: bool, schemas: Schemas) -> dict[str, Any]:
    # Errors that come from the machinery rather than the view are added here, so no view forgets them.
    replies = dict(op.replies)
    if is_secured:
        replies.setdefault(401, Reply("No token, a malformed header, or a revoked or expired token (the message "
                                      "says which, and when).", ErrorBody))  # fmt: skip
        # Every call acts in one of the caller's courses (?course=CODE, else the token's or their first).
        replies[404] = _or(replies.get(404), "you are in no course with the ?course= code given (or in no course yet).")
        replies[403] = _or(replies.get(403), "the token is bound to another course than the ?course= given.")
    if op.body is not None:
        replies.setdefault(400, Reply("The body is not JSON of the documented shape (an unknown field included), "
                                      "or the query string holds a NUL character.", ErrorBody))
        replies.setdefault(413, Reply("The body is larger than the service accepts.", ErrorBody))
    replies.setdefault(400, Reply("The query string holds a NUL character.", ErrorBody))
    replies.setdefault(500, Reply("An unexpected fault, logged; nothing half-written is kept.", ErrorBody))
    replies.setdefault(503, Reply("The database is unreachable, read-only or full, or the exercise cannot make its "
                                  "numbers until an instructor fixes it; nothing was saved.", ErrorBody))
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
        schema = {**schemas.of(hint), **f.metadata.get(_KEYWORDS, {})}  # constrained() keywords, as in bodies
        out.append({"name": f.name, "in": "query", "required": False, "schema": schema})
    return out
