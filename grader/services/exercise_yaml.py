"""Exercise data written as YAML in the layout of the hand-written files under exercises/."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from grader.catalog.loader import parse_yaml


class _Dumper(yaml.SafeDumper):
    """Lays YAML out like the hand-written files: `|` blocks for text, short flow lists and maps."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _flat(value: Any) -> bool:
    """Whether a value reads well on one line (a flow list or map)."""
    if isinstance(value, (list, dict)):
        items = value.values() if isinstance(value, dict) else value
        return all(_flat(v) for v in items) and len(str(value)) <= 90
    return "\n" not in str(value) and len(str(value)) <= 60


def _reads_back(text: str) -> bool:
    # Our loader reads 1e5 as a number where plain YAML 1.1 sees text: quote whatever would change.
    try:
        return parse_yaml(text) == text
    except yaml.YAMLError:
        return False


_Dumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None if _reads_back(text) else "'"))
_Dumper.add_representer(list, lambda dumper, items: dumper.represent_sequence(
    "tag:yaml.org,2002:seq", items, flow_style=_flat(items)))
_Dumper.add_representer(dict, lambda dumper, mapping: dumper.represent_mapping(
    "tag:yaml.org,2002:map", mapping.items(), flow_style=_flat(mapping)))


def dump(data: Mapping[str, Any]) -> str:
    """YAML source for exercise data, in the layout of exercises/."""
    return yaml.dump(dict(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
