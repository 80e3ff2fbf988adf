"""MkDocs hook: the API reference page, and openapi.json beside it, generated at build time.

The document is the one the service serves at /api/v1/openapi.json (grader/web/openapi.py builds it
from the code), taken from an app on an empty throwaway database, so these pages cannot drift from
the API. Exercise-specific paths (one per exercise that takes typed answers) need exercises in the
database; with none, the reference shows each call once, under its templated path.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
PAGE = "api/reference.md"
METHODS = ("get", "put", "post", "patch", "delete")
CONSTRAINTS = {"minLength": "at least {} characters", "maxLength": "at most {} characters",
               "minimum": "at least {}", "maximum": "at most {}", "minProperties": "at least {} entries",
               "minItems": "at least {} items", "maxItems": "at most {} items", "pattern": "matches `{}`",
               "contentMediaType": "a file of type `{}`", "format": "format `{}`"}  # fmt: skip


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document as GET /api/v1/openapi.json serves it, from a fresh empty app."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from grader import create_app
    from grader.extensions import db

    with tempfile.TemporaryDirectory(prefix="grader-docs-") as scratch:
        app = create_app({"INSTANCE_PATH": f"{scratch}/instance", "TESTING": True, "RATELIMIT_ENABLED": False,
                          "SQLALCHEMY_DATABASE_URI": f"sqlite:///{scratch}/docs.db"})  # fmt: skip
        with app.app_context():
            db.create_all()
            reply = app.test_client().get("/api/v1/openapi.json")
            document: dict[str, Any] = reply.get_json()
            db.engine.dispose()
    assert reply.status_code == 200, reply.status_code
    return document


def schema_text(schema: dict[str, Any]) -> str:
    """One schema in a few words of Markdown: its type, linked components, its constraints."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#schema-{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(schema_text(option) for option in schema["anyOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        text = " or ".join(kind)
    elif kind == "array":
        text = f"array of {schema_text(schema.get('items', {}))}"
    elif kind == "object" and isinstance(schema.get("additionalProperties"), dict) and "properties" not in schema:
        text = f"object of {schema_text(schema['additionalProperties'])}" if schema["additionalProperties"] else "object"
    elif kind == "object" and "properties" in schema:
        fields = ", ".join(f"`{name}`: {schema_text(inner)}" for name, inner in schema["properties"].items())
        text = f"object {{{fields}}}"
    else:
        text = kind or "any JSON value"
    notes = [CONSTRAINTS[key].format(value) for key, value in schema.items() if key in CONSTRAINTS]
    if "enum" in schema:
        notes.append("one of " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"]))
    if "not" in schema and "enum" in schema["not"]:
        notes.append("not one of " + ", ".join(f"`{v}`" for v in schema["not"]["enum"]))
    return text + (f" ({'; '.join(notes)})" if notes else "")


def operation_lines(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    """One call: summary, description, token, parameters, body and replies."""
    lines = [f"## `{method.upper()} {path}`", "", f"**{operation.get('summary', '')}.**"]
    if operation.get("description"):
        lines += ["", operation["description"]]
    token = "needed: `Authorization: Bearer <token>`" if operation.get("security") else "not needed"
    lines += ["", f"Token: {token}."]
    if operation.get("parameters"):
        lines += ["", "**Parameters**", ""]
        for parameter in operation["parameters"]:
            needed = "required" if parameter.get("required") else "optional"
            lines.append(f"- `{parameter['name']}` ({parameter['in']}, {needed}): {schema_text(parameter['schema'])}")
    if operation.get("requestBody"):
        lines += ["", "**Request body**", ""]
        for media, content in operation["requestBody"]["content"].items():
            lines.append(f"- `{media}`: {schema_text(content['schema'])}")
    lines += ["", "**Responses**", ""]
    for status, reply in operation["responses"].items():
        bodies = [f"`{media}` {schema_text(c['schema'])}" for media, c in reply.get("content", {}).items()]
        lines.append(f"- `{status}`: {reply['description']}" + (f" Body: {'; '.join(bodies)}." if bodies else ""))
    return lines + [""]


def component_lines(name: str, schema: dict[str, Any]) -> list[str]:
    """One named schema: its description and a line per field."""
    lines = [f"### {name} {{#schema-{name.lower()}}}", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    required = set(schema.get("required", []))
    for field, inner in schema.get("properties", {}).items():
        needed = "" if field in required else ", optional"
        about = f" — {inner['description']}" if inner.get("description") else ""
        lines.append(f"- `{field}`{needed}: {schema_text(inner)}{about}")
    if schema.get("additionalProperties") is False and schema.get("properties"):
        lines += ["", "No other fields are accepted."]
    return lines + [""]


def reference_page(document: dict[str, Any]) -> str:
    """The whole reference page in Markdown."""
    lines = ["# API reference", "",
             "Generated from the OpenAPI document when this site is built, so it says what the code does. "
             "The running service serves the same document at `/api/v1/openapi.json` and shows it at "
             "`/api/v1/docs`; a copy is here: [openapi.json](openapi.json). How to authenticate, errors and "
             "limits are described in [JSON API](index.md).", ""]  # fmt: skip
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                lines += operation_lines(path, method, item[method])
    lines += ["## Schemas", ""]
    for name, schema in sorted(document["components"]["schemas"].items()):
        lines += component_lines(name, schema)
    return "\n".join(lines)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated reference page and the document itself to the site."""
    document = openapi_document()
    files.append(File.generated(config, PAGE, content=reference_page(document)))
    files.append(File.generated(config, "api/openapi.json", content=json.dumps(document, indent=2)))
    return files
