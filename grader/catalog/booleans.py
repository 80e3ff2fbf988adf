"""YAML 1.1's booleans where a file meant a word: PyYAML reads an unquoted yes, no, on or off (and true, false)
as true or false, so a part id `no` or a step named `on` arrives as a boolean and pydantic's "Input should be a
valid string" hides why. The problem is said with the word as the file wrote it, and how to keep it a word.
"""

from __future__ import annotations

from typing import Any, Mapping

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from grader.texts import Text, say

BOOL_TAG = "tag:yaml.org,2002:bool"
TRUE_WORDS = ("yes", "true", "on")
NUMBER_TYPES = ("int_type", "float_type")
KEY = "[key]"  # the last place of pydantic's error about a mapping's key
Words = Mapping[tuple[str, ...], str]  # a boolean's place in the file (as _place writes it) -> the word written


def _place(part: Any) -> str:
    # pydantic places an error about the key True at 1, as a dict does not tell True from 1.
    return str(int(part)) if isinstance(part, bool) else str(part)


def _key_place(node: ScalarNode) -> str:
    return _place(node.value.lower() in TRUE_WORDS) if node.tag == BOOL_TAG else str(node.value)


def boolean_words(root: Node | None) -> dict[tuple[str, ...], str]:
    """Every boolean of a composed YAML document, values and mapping keys, with its place and the word written."""
    found: dict[tuple[str, ...], str] = {}
    stack: list[tuple[Node, tuple[str, ...]]] = [(root, ())] if root is not None else []
    seen: set[int] = set()  # an alias's node is walked once
    while stack:
        node, place = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode) and node.tag == BOOL_TAG:
            found[place] = str(node.value)
        elif isinstance(node, SequenceNode):
            stack.extend((child, (*place, str(i))) for i, child in enumerate(node.value))
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode):
                    if key.tag == BOOL_TAG:
                        found[(*place, _key_place(key), KEY)] = str(key.value)
                    stack.append((value, (*place, _key_place(key))))
    return found


def read_as_boolean(error: Mapping[str, Any], words: Words, problem: Text) -> tuple[str | None, Text] | None:
    """For a pydantic error whose input is a boolean where something else was expected: the field to name it at
    (the key as written, for a mapping key; None to keep pydantic's) and the sentence saying so; else None."""
    value = error.get("input")
    if not isinstance(value, bool) or error.get("type") == "bool_type":
        return None
    place = tuple(_place(p) for p in error.get("loc", ()))
    # A union's error ends with the member tried (choices.1.int): the boolean is at a shorter place.
    word = next((words[place[:n]] for n in range(len(place), 0, -1) if place[:n] in words), None)
    read = "true" if value else "false"
    if word is None:
        if error.get("type") in NUMBER_TYPES:
            return None
        return None, say("YAML read an unquoted yes, no, on or off here as %(value)s; to mean the word, quote it",
                         value=read)  # fmt: skip
    field = ".".join((*place[:-2], word)) if place[-1:] == (KEY,) else None
    if error.get("type") in NUMBER_TYPES:
        return field, say("`%(word)s` was read as %(value)s by YAML (yes, no, on and off are booleans there): "
                          "%(problem)s", word=word, value=read, problem=problem)  # fmt: skip
    return field, say("`%(word)s` was read as %(value)s by YAML (yes, no, on and off are booleans there); to mean "
                      "the word, quote it: '%(word)s'", word=word, value=read)  # fmt: skip
