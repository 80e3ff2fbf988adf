"""grader_client.py on its own: the source it collects for a function, the refusals it says in one line, what it
sends as typed answers, and its results as escaped HTML and plain text. No service, no database."""

from __future__ import annotations

import math
import subprocess
import sys
from math import sqrt
from typing import Any

import numpy as np
import numpy.linalg as la
import pytest

from grader.client import grader_client as client
from grader.code_grading import MAX_SOURCE_BYTES
from grader.web.api_client import CLIENT_FILE

EPS = 1e-5
SCALE = (1.0, 2.0)


def centred(x: Any) -> Any:
    return x - x.mean(-1, keepdims=True)


def variance(x: Any) -> Any:
    return (centred(x) ** 2).mean(-1, keepdims=True)


def layer_norm(x: Any, gamma: Any, beta: Any, eps: float = EPS) -> Any:
    return gamma * centred(x) / np.sqrt(variance(x) + eps) + beta


def uses_a_comprehension(xs: list[float]) -> list[float]:
    return [sqrt(abs(x)) * math.pi + la.norm(np.array(SCALE)) for x in xs]


def run(source: str, name: str, *args: Any) -> Any:
    """Call `name` as defined by `source` alone, in a namespace of its own."""
    space: dict[str, Any] = {}
    exec(compile(source, "<sent>", "exec"), space)  # noqa: S102 - the test's own code
    return space[name](*args)


def test_a_function_is_sent_with_its_helpers_their_helpers_imports_and_constants() -> None:
    source = client.source_of(layer_norm)
    assert "import numpy as np" in source and "EPS = 1e-05" in source
    assert "def centred(" in source and "def variance(" in source and source.rstrip().endswith("+ beta")
    assert "def uses_a_comprehension" not in source and "import pytest" not in source  # only what it uses
    x = np.arange(8.0).reshape(2, 4)
    assert np.allclose(run(source, "layer_norm", x, np.ones(4), np.zeros(4)), layer_norm(x, np.ones(4), np.zeros(4)))


def test_names_used_inside_a_comprehension_and_from_imports_are_found() -> None:
    source = client.source_of(uses_a_comprehension)
    assert "from math import sqrt" in source and "import math" in source
    assert "from numpy import linalg as la" in source or "import numpy.linalg as la" in source
    assert "SCALE = (1.0, 2.0)" in source
    assert run(source, "uses_a_comprehension", [4.0]) == uses_a_comprehension([4.0])


def test_a_string_is_sent_as_it_is() -> None:
    assert client.source_of("def f():\n    return 1\n") == "def f():\n    return 1\n"


@pytest.mark.parametrize(("function", "says"), [
    (lambda x: x, "A lambda cannot be sent: define the function with def in a cell"),
    (len, "len is a builtin_function_or_method, not a Python function written with def"),
    (np.sqrt, "is a ufunc, not a Python function written with def"),
])  # fmt: skip
def test_what_inspect_cannot_read_is_refused_in_one_line_saying_what_to_do(function: Any, says: str) -> None:
    with pytest.raises(client.GraderError) as refused:
        client.source_of(function)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_a_function_typed_at_the_interactive_prompt_is_refused_saying_what_to_do() -> None:
    space: dict[str, Any] = {}
    exec(compile("def typed(x):\n    return x\n", "<stdin>", "exec"), space)  # noqa: S102 - as the prompt does
    with pytest.raises(client.GraderError) as refused:
        client.source_of(space["typed"])
    assert str(refused.value) == ("The source of typed cannot be read (typed at the interactive prompt?): define it in "
                                  "a notebook cell or a file, or pass its source as a string.")


def test_a_real_interactive_prompt_gets_the_one_line_message(tmp_path: Any) -> None:
    (tmp_path / "grader_client.py").write_text(CLIENT_FILE.read_text())
    typed = "import grader_client as g\ndef f(x):\n    return x\n\ng.source_of(f)\n"
    done = subprocess.run([sys.executable, "-i", "-q"], input=typed, cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert "GraderError: The source of f cannot be read (typed at the interactive prompt?)" in done.stderr


def test_a_source_over_the_services_limit_is_refused_before_sending() -> None:
    assert client.MAX_SOURCE_BYTES == MAX_SOURCE_BYTES  # the served file carries the service's own figure
    with pytest.raises(client.GraderError, match=r"over the service's limit of 64 KB"):
        client._checked_size("x = 1\n" + "#" * MAX_SOURCE_BYTES)
    assert client._checked_size("x = 1\n") == "x = 1\n"


def test_answers_are_sent_as_a_learner_types_them() -> None:
    assert client._typed(np.array([-1.114, 0.5])) == "[-1.114, 0.5]"
    assert client._typed(np.float64(1.316)) == "1.316"
    assert client._typed((2, 3)) == "(2, 3)" and client._typed((4,)) == "(4,)"
    assert client._typed({3, 1}) == "{1, 3}" and client._typed([[1, 2], [3, 4]]) == "[[1, 2], [3, 4]]"
    assert client._typed("[1,5; 2]") == "[1,5; 2]"


def test_the_connection_never_shows_its_token() -> None:
    connection = client.Connection("http://127.0.0.1:1", "gr_secret-token-value")
    assert "secret" not in repr(connection) and "gr_" not in repr(connection) and "secret" not in str(connection)
    assert "gr_secret" not in str(vars(connection).get("token", ""))


def test_a_verdict_escapes_everything_in_its_html_and_reads_as_text() -> None:
    verdict = client.CodeVerdict({
        "exercise": "code-<b>", "status": "failed", "score": 0.5, "mistake": "<img src=x onerror=alert(1)>",
        "inputs": {"case <1>": "layer_norm(x=</pre><script>)"},
        "result": {"message": "<script>alert(1)</script>", "cases": [
            {"name": "case <1>", "status": "failed", "message": "<i>off</i>", "printed": ""}]},
    })  # fmt: skip
    page = verdict._repr_html_()
    assert "<script>" not in page and "<img" not in page and "<i>" not in page and "</pre><script>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;script&gt;" in page
    text = str(verdict)
    assert "Likely mistake: <img src=x onerror=alert(1)>" in text and "layer_norm(x=</pre><script>)" in text
    assert not verdict.passed
