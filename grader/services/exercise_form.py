"""The no-code exercise form, mapped to and from the YAML of exercises/."""

from __future__ import annotations

import json

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

import yaml

from grader.catalog.loader import SpecError, parse_yaml
from grader.texts import N_, say


PARAM_ROWS = 6
PART_ROWS = 8
TOP_KEYS = ("id", "title", "lesson", "position", "model", "params", "prompt", "parts", "solution", "opens",
            "max_attempts", "penalty", "due", "late_credit", "offer_hints", "hint_penalty", "solution_after",
            "translations", "skills")  # fmt: skip
TRANSLATION_KEYS = ("title", "prompt", "solution", "labels")
_TRANSLATION_FIELD = re.compile(r"translation-([a-z]{2})-(title|prompt|solution)")
_LABEL_FIELD = re.compile(r"translation-([a-z]{2})-label-(\d{1,3})")  # by part row; bounded, as int() reads it
PARAM_KEYS = {"shape", "random", "page", "show"}
RANDOM_KEYS = {"low", "high", "decimals", "choices", "exclude_zero"}
PART_KEYS = {"id", "label", "type", "quantity", "tolerance", "misconceptions", "partial_credit", "weight",
             "entry", "skills"}  # fmt: skip
MISTAKE_KEYS = {"name", "optional", "reason"}  # a mistake's own skills: the YAML editor holds them
TOLERANCE_KINDS = ("exact", "abs", "rel", "sigfigs")
Values = dict[str, Any]


@dataclass
class Draft:
    """Exercise data from the form, problems found on the way, and each param's and part's form row."""

    data: dict[str, Any]
    problems: list[SpecError] = field(default_factory=list)
    param_rows: dict[str, int] = field(default_factory=dict)
    part_rows: list[int] = field(default_factory=list)


# ---- form -> data -------------------------------------------------------------------------------


def _scalar(text: str) -> Any:
    # A typo stays text, so the spec validation reports it at its field like in a file. So does what
    # parse_yaml refuses (a self-referential alias, deep nesting, a 5000-digit number): a YAMLError too.
    if not text:
        return None
    try:
        return parse_yaml(text)
    except yaml.YAMLError:
        return text


def _listy(text: str) -> Any:
    return _scalar(text if not text or text.startswith("[") else f"[{text}]")


def _numeric(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_numeric(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _dropped_none(mapping: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if v is not None}


def _problem(field: str, sentence: str) -> SpecError:
    """A problem the form found at one of its fields, in the reader's language where it is translated."""
    return SpecError("form", field, sentence, say(sentence))


def _param(form: Mapping[str, Any], i: int, draft: Draft) -> None:
    def get(key: str) -> str:
        return str(form.get(f"param-{i}-{key}", "")).strip()

    name = get("name")
    if not name:
        if any(get(k) for k in ("shape", "low", "high", "choices", "page")):
            draft.problems.append(_problem(f"params row {i + 1}", N_("give the parameter a name")))
        return
    if name in draft.param_rows:
        draft.problems.append(_problem(f"params.{name}", N_("this name is used twice")))
    page = _scalar(get("page"))
    if page is not None and not _numeric(page):
        draft.problems.append(_problem(f"params.{name}.page", N_("give a number or a list like [1, 2.5]")))
    random = {"low": _scalar(get("low")), "high": _scalar(get("high")), "decimals": _scalar(get("decimals")),
              "choices": _listy(get("choices")),
              "exclude_zero": True if form.get(f"param-{i}-exclude_zero") else None}  # fmt: skip
    draft.param_rows[name] = i
    draft.data["params"][name] = _dropped_none({
        "shape": _listy(get("shape")), "random": _dropped_none(random), "page": page,
        "show": False if form.get(f"param-{i}-hide") else None,
    })  # fmt: skip


def _misconceptions(form: Any, j: int) -> list[Any]:
    """The part's mistakes, each once, in the exercise's own order; ones added in the form come last."""
    required = list(dict.fromkeys(n for n in form.getlist(f"part-{j}-mistakes") if n))
    optional = [n for n in dict.fromkeys(form.getlist(f"part-{j}-optional")) if n and n not in required]
    # The lists offer mistakes in the model's order, but variants are built in the exercise's: read
    # in list order, an untouched exercise would come back as another one and save as a new version.
    order = list(dict.fromkeys(str(form.get(f"part-{j}-order", "")).split()))
    ordered = sorted([*required, *optional], key=lambda n: order.index(n) if n in order else len(order))
    reasons = _reasons(form.get(f"part-{j}-reasons", ""))
    return [name if name in required else _dropped_none({"name": name, "optional": True, "reason": reasons.get(name)})
            for name in ordered]  # fmt: skip


def _reasons(text: str) -> dict[str, str]:
    """The reasons an optional mistake may give the right answer, kept in a hidden field as JSON (the form
    shows none): anything but a mapping of texts is none at all, and the file's check then says so."""
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    return {k: v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else {}


def _part(form: Any, j: int, draft: Draft) -> None:
    def get(key: str) -> str:
        return str(form.get(f"part-{j}-{key}", "")).strip()

    if not (get("id") or get("label")):
        return
    kind = get("tol_kind") or "exact"
    tolerance = None if kind == "exact" else {kind: _scalar(get("tol_value"))}
    draft.part_rows.append(j)
    draft.data["parts"].append(_dropped_none({
        "id": get("id"), "label": get("label"), "type": get("type"), "quantity": get("quantity"),
        "tolerance": tolerance, "misconceptions": _misconceptions(form, j) or None,
        "partial_credit": True if form.get(f"part-{j}-partial_credit") else None,
        "weight": _scalar(get("weight")), "entry": _scalar(get("entry")), "skills": _listy(get("skills")),
    }))  # fmt: skip


def _steps(text: str) -> list[str]:
    """Solution steps: one per paragraph."""
    return [s.strip() for s in re.split(r"\n\s*\n", text) if s.strip()]


def _labels(form: Any) -> dict[str, dict[str, str]]:
    """Each language's part labels, keyed by the id typed in the same part row; blank ones are left out."""
    found: dict[str, dict[str, str]] = {}
    matches = [m for m in map(_LABEL_FIELD.fullmatch, form) if m]
    for match in sorted(matches, key=lambda m: int(m.group(2))):  # in the parts' order, as written in files
        part_id = str(form.get(f"part-{match.group(2)}-id", "")).strip()
        text = str(form.get(match.group(0), "")).strip()
        if part_id and text:  # a row without a part id is ignored, as in the Parts section
            found.setdefault(match.group(1), {})[part_id] = text
    return found


def _translations(form: Any) -> dict[str, dict[str, Any]]:
    """Each language's title, prompt, solution and part labels from the form; blank fields are left out."""
    found: dict[str, dict[str, Any]] = {}
    for key in form:
        match = _TRANSLATION_FIELD.fullmatch(key)
        text = str(form.get(key, "")).replace("\r\n", "\n").strip() if match else ""
        if match and text:
            locale, name = match.groups()
            value = _steps(text) if name == "solution" else text + "\n" if name == "prompt" else text
            found.setdefault(locale, {})[name] = value
    for locale, labels in _labels(form).items():
        found.setdefault(locale, {})["labels"] = labels
    return {locale: {k: t[k] for k in TRANSLATION_KEYS if k in t} for locale, t in sorted(found.items())}


def draft_from_form(form: Any) -> Draft:
    """Exercise data from the structured form (a MultiDict); blank rows are ignored."""
    def get(key: str) -> str:
        return str(form.get(key, "")).replace("\r\n", "\n").strip()

    draft = Draft(data=_dropped_none({
        "id": get("id"), "title": get("title"), "lesson": get("lesson"), "position": _scalar(get("position")),
        "model": get("model"), "params": {}, "prompt": get("prompt") + "\n" if get("prompt") else "",
        "parts": [], "solution": _steps(get("solution")), "opens": _scalar(get("opens")),
        "max_attempts": _scalar(get("max_attempts")),
        "penalty": _scalar(get("penalty")), "due": _scalar(get("due")), "late_credit": _scalar(get("late_credit")),
        "offer_hints": False if form.get("no_hints") else None, "hint_penalty": _scalar(get("hint_penalty")),
        "solution_after": _scalar(get("solution_after")), "translations": _translations(form) or None,
        "skills": _listy(get("skills")),
    }))  # fmt: skip
    for i in range(PARAM_ROWS):
        _param(form, i, draft)
    for j in range(PART_ROWS):
        _part(form, j, draft)
    return draft


# ---- data -> form -------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return str(value)


def _param_values(i: int, name: str, spec: dict[str, Any]) -> Values:
    random = spec.get("random", {})
    return {f"param-{i}-name": name, f"param-{i}-shape": ", ".join(map(str, spec.get("shape", []))),
            f"param-{i}-low": _text(random.get("low")), f"param-{i}-high": _text(random.get("high")),
            f"param-{i}-decimals": _text(random.get("decimals")),
            f"param-{i}-choices": ", ".join(map(str, random.get("choices") or [])),
            f"param-{i}-exclude_zero": bool(random.get("exclude_zero")),
            f"param-{i}-page": _text(spec.get("page")),
            f"param-{i}-hide": spec.get("show") is False}  # fmt: skip


def _part_values(j: int, part: dict[str, Any]) -> Values:
    tolerance = part.get("tolerance") or "exact"
    kind, value = (tolerance, None) if isinstance(tolerance, str) else next(iter(tolerance.items()))
    refs = [{"name": m} if isinstance(m, str) else m for m in part.get("misconceptions", [])]
    return {f"part-{j}-id": part.get("id", ""), f"part-{j}-label": part.get("label", ""),
            f"part-{j}-type": part.get("type", ""), f"part-{j}-quantity": part.get("quantity", ""),
            f"part-{j}-tol_kind": kind, f"part-{j}-tol_value": "" if kind == "exact" else _text(value),
            f"part-{j}-mistakes": [r["name"] for r in refs if not r.get("optional")],
            f"part-{j}-optional": [r["name"] for r in refs if r.get("optional")],
            f"part-{j}-order": " ".join(r["name"] for r in refs),
            f"part-{j}-reasons": json.dumps({r["name"]: r["reason"] for r in refs if r.get("reason")},
                                            ensure_ascii=False) if any(r.get("reason") for r in refs) else "",
            f"part-{j}-partial_credit": bool(part.get("partial_credit")),
            f"part-{j}-weight": _text(part.get("weight")),
            f"part-{j}-entry": _text(part.get("entry")),
            f"part-{j}-skills": ", ".join(map(str, part.get("skills") or []))}  # fmt: skip


def _fits(data: Any) -> bool:
    """Whether the structured form can hold this exercise without losing anything."""
    if not isinstance(data, dict) or not set(data) <= set(TOP_KEYS):
        return False
    params, parts = data.get("params") or {}, data.get("parts") or []
    if len(params) > PARAM_ROWS or len(parts) > PART_ROWS:
        return False
    ok_params = all(set(p) <= PARAM_KEYS and set(p.get("random", {})) <= RANDOM_KEYS for p in params.values())
    ok_parts = all(set(p) <= PART_KEYS and all(isinstance(m, str) or set(m) <= MISTAKE_KEYS
                                               for m in p.get("misconceptions") or []) for p in parts)
    ids = [p.get("id") for p in parts if isinstance(p, dict)]
    return ok_params and ok_parts and _one_paragraph_steps(data) and _translations_fit(data.get("translations"), ids)


def _one_paragraph_steps(data: Mapping[str, Any]) -> bool:
    return not any("\n\n" in str(s) for s in data.get("solution") or [])


def _translations_fit(translations: Any, part_ids: list[Any]) -> bool:
    if translations is None:
        return True
    return isinstance(translations, dict) and all(
        isinstance(t, dict) and set(t) <= set(TRANSLATION_KEYS) and _one_paragraph_steps(t)
        and _labels_fit(t.get("labels"), part_ids) for t in translations.values())  # fmt: skip


def _labels_fit(labels: Any, part_ids: list[Any]) -> bool:
    # The form keeps a label beside its part's row: one for a part the exercise lacks has nowhere to go.
    if labels is None:
        return True
    return isinstance(labels, dict) and all(k in part_ids and isinstance(v, str) for k, v in labels.items())


def values_from_source(source: str) -> Values | None:
    """Form values for an exercise source, or None when only the YAML editor can hold it."""
    try:
        data = parse_yaml(source)
        if not _fits(data):
            return None
    except (yaml.YAMLError, AttributeError, TypeError):  # not an exercise the form can read
        return None
    values: Values = {k: _text(data.get(k)) for k in TOP_KEYS if k not in ("params", "parts", "solution", "translations")}
    values["no_hints"] = data.get("offer_hints") is False
    values["skills"] = ", ".join(map(str, data.get("skills") or []))
    values["prompt"] = str(data.get("prompt", "")).rstrip("\n")
    values["solution"] = "\n\n".join(map(str, data.get("solution") or []))
    part_rows = {part.get("id"): j for j, part in enumerate(data.get("parts") or [])}
    for locale, translation in (data.get("translations") or {}).items():
        values[f"translation-{locale}-title"] = str(translation.get("title", ""))
        values[f"translation-{locale}-prompt"] = str(translation.get("prompt", "")).rstrip("\n")
        values[f"translation-{locale}-solution"] = "\n\n".join(map(str, translation.get("solution") or []))
        for part_id, label in (translation.get("labels") or {}).items():
            values[f"translation-{locale}-label-{part_rows[part_id]}"] = label
    for i, (name, spec) in enumerate((data.get("params") or {}).items()):
        values.update(_param_values(i, name, spec))
    for j, part in enumerate(data.get("parts") or []):
        values.update(_part_values(j, part))
    return values
