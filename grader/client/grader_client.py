"""grader's client: check your work from a Jupyter notebook or a terminal. One file, the standard library only.

In a notebook:

    import grader_client as g
    g.connect()                       # reads GRADER_URL and GRADER_TOKEN (or g.connect(URL, TOKEN))
    g.submit("code-layer-norm", layer_norm)
    g.answer("block-layernorm", mu=-1.114, sigma=1.316, u=[-1.102, 0.964, -0.892, 1.03])
    g.hint("block-layernorm"); g.give_up("block-layernorm"); g.practice("block-layernorm"); g.status()

In a terminal (exit status 0 passed, 1 not passed, 2 an error):

    python grader_client.py submit code-layer-norm solution.py
    python grader_client.py answer block-layernorm mu=-1.114 sigma=1.316 "u=[-1.102, 0.964, -0.892, 1.03]"
    python grader_client.py hint block-layernorm
    python grader_client.py status
"""

from __future__ import annotations

import argparse
import ast
import builtins
import html
import inspect
import json
import os
import socket
import sys
import textwrap
import time
import types
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable

CLIENT_VERSION = 1  # raised whenever the client changes; the service refuses versions older than it supports
API_VERSION = "1"
SERVICE_URL = ""  # filled in by the service that served this file
MAX_SOURCE_BYTES = 65536  # the service's limit on a code submission, filled in by it too
TIMEOUT = float(os.environ.get("GRADER_TIMEOUT") or 30)  # seconds to wait for one reply
GRADING_WAIT = float(os.environ.get("GRADER_GRADING_WAIT") or 180)  # seconds to wait for code to be graded
TOKEN_PAGE = "/profile"

_connection: Connection | None = None


class GraderError(Exception):
    """Something the service or this client refused, said in one line; nothing was stored."""


class Connection:
    """The service and the token this client talks with; the token is never shown."""

    def __init__(self, url: str, token: str, course: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.__token = token
        self.course = course
        self.lang = "en"
        self.expires_at: str | None = None  # when the token stops working, as the service said

    def __repr__(self) -> str:
        course = f", course {self.course}" if self.course else ""
        return f"<grader connection to {self.url}{course}, messages in {self.lang}>"

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, lang: bool = False) -> Any:
        """The JSON reply to one API call; raises GraderError with the service's message when refused."""
        query = {k: v for k, v in (("course", self.course), ("lang", self.lang if lang else None)) if v}
        url = f"{self.url}/api/v{API_VERSION}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": f"Bearer {self.__token}", "Accept": "application/json",
            "X-Grader-Client": str(CLIENT_VERSION), "User-Agent": f"grader-client/{CLIENT_VERSION}",
            **({"Content-Type": "application/json"} if data is not None else {})})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
                return json.loads(reply.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            reply = _json_of(error)
            if error.code == 422 and isinstance(reply.get("parts"), dict):
                return reply  # answers that could not be read: a verdict, each part saying why
            raise GraderError(_refusal(error, reply, self.url)) from None
        except (socket.timeout, TimeoutError):
            raise GraderError(f"{self.url} did not answer within {TIMEOUT:g} seconds: try again later.") from None
        except urllib.error.URLError as error:
            raise GraderError(f"Cannot reach {self.url}: {error.reason}. Check GRADER_URL and your network.") from None
        except (OSError, ValueError) as error:
            raise GraderError(f"Cannot talk with {self.url}: {error}.") from None


def _json_of(error: urllib.error.HTTPError) -> dict[str, Any]:
    """The JSON object a refusal carries, or an empty one."""
    try:
        reply = json.loads(error.read().decode("utf-8"))
    except (ValueError, OSError):
        return {}
    return reply if isinstance(reply, dict) else {}


def _refusal(error: urllib.error.HTTPError, reply: dict[str, Any], url: str) -> str:
    """One line saying why the service refused a call."""
    message = " ".join(str(reply.get("message") or "").split())  # one line, whatever the service wrote
    if error.code == 401:
        return f"The token was refused: {message or 'it is not valid'} ({url}{TOKEN_PAGE})"
    if error.code == 429:
        wait = error.headers.get("Retry-After") or "60"
        return f"Too many requests: try again in {wait} seconds."
    if reply.get("error") == "client_outdated":
        return f"{message} Download it from {reply.get('download')}"
    return message or f"The service answered {error.code} {error.reason}."


def connect(url: str | None = None, token: str | None = None, course: str | None = None) -> Connection:
    """Connect to the service (GRADER_URL, GRADER_TOKEN and GRADER_COURSE by default) and check the token."""
    global _connection
    url = url or os.environ.get("GRADER_URL") or SERVICE_URL
    token = token or os.environ.get("GRADER_TOKEN")
    if not url:
        raise GraderError("No service address: pass it to connect() or set GRADER_URL.")
    if not token:
        raise GraderError("No token: pass it to connect() or set GRADER_TOKEN (make one on your profile page).")
    made = Connection(url, token.strip(), course or os.environ.get("GRADER_COURSE") or None)
    me = made.call("GET", "/me")
    made.lang = me.get("locale") or "en"
    made.expires_at = me.get("expires_at")
    _connection = made
    return made


def _current() -> Connection:
    return _connection if _connection is not None else connect()


# ----- source collection: a function, with the helpers, imports and constants it uses -----

def source_of(function: Callable[..., Any] | str) -> str:
    """The source to send for `function`: itself, then what it uses from its module; a string is sent as is."""
    if isinstance(function, str):
        return function
    main = _readable(function)
    imports: list[str] = []
    constants: list[str] = []
    helpers: list[str] = []
    seen = {function.__name__}
    todo = [function]
    while todo:
        for name in sorted(_names_used(todo.pop())):
            if name in seen or name not in function.__globals__:
                continue
            seen.add(name)
            value = function.__globals__[name]
            if isinstance(value, types.ModuleType):
                imports.append(_import_line(name, value))
            elif inspect.isfunction(value) and value.__module__ == function.__module__:
                helpers.append(_source(value))
                todo.append(value)
            elif inspect.isclass(value) and value.__module__ == function.__module__:
                helpers.append(_source(value))
            elif getattr(value, "__module__", None) not in (None, function.__module__, "builtins") and \
                    getattr(value, "__name__", None):
                imports.append(f"from {value.__module__} import {value.__name__}" +
                               (f" as {name}" if value.__name__ != name else ""))
            elif _is_literal(value):
                constants.append(f"{name} = {value!r}")
    parts = ["\n".join(sorted(set(imports))), "\n".join(constants), *helpers, main]
    return "\n\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"


def _readable(function: Any) -> str:
    """The function's own source, or a GraderError saying how to send it."""
    if not inspect.isfunction(function):
        kind = type(function).__name__
        raise GraderError(f"{getattr(function, '__name__', kind)} is a {kind}, not a Python function written with "
                          "def: pass your own function, or its source as a string.")
    if function.__name__ == "<lambda>":
        raise GraderError("A lambda cannot be sent: define the function with def in a cell (or a file), "
                          "or pass its source as a string.")
    return _source(function)


def _source(value: Any) -> str:
    try:
        return textwrap.dedent(inspect.getsource(value))
    except (OSError, TypeError):
        raise GraderError(f"The source of {value.__name__} cannot be read (typed at the interactive prompt?): define "
                          "it in a notebook cell or a file, or pass its source as a string.") from None


def _code_names(code: types.CodeType) -> set[str]:
    """Global and attribute names of a code object and the functions and comprehensions inside it."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _names_used(function: Any) -> set[str]:
    """The global names a function reads: in its body (names, not attributes: `np.sqrt` reads np, not sqrt), and in
    its decorators, defaults and annotations, which run where it is defined."""
    try:
        tree = ast.parse(_source(function))
    except SyntaxError:
        return _code_names(function.__code__) - set(dir(builtins))
    node = tree.body[0]
    loads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    header: list[Any] = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
        header = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults, node.returns,
                  *(a.annotation for a in arguments if a is not None)]
    in_header = {n.id for part in header if part is not None for n in ast.walk(part) if isinstance(n, ast.Name)}
    return ((loads & _code_names(function.__code__)) | in_header) - set(dir(builtins))


def _import_line(name: str, module: types.ModuleType) -> str:
    real = module.__name__
    if real == name:
        return f"import {real}"
    parent, _, last = real.rpartition(".")
    return f"from {parent} import {last}" if parent and last == name else f"import {real} as {name}"


def _is_literal(value: Any) -> bool:
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return True
    return isinstance(value, (tuple, frozenset)) and all(_is_literal(v) for v in value)


def _checked_size(source: str) -> str:
    size = len(source.encode("utf-8"))
    if size > MAX_SOURCE_BYTES:
        raise GraderError(f"The source is {size // 1024} KB, over the service's limit of {MAX_SOURCE_BYTES // 1024} "
                          "KB: send only the function and what it uses.")
    if not source.strip():
        raise GraderError("The source is empty.")
    return source


# ----- what learners call -----

def submit(exercise: str, function: Callable[..., Any] | str, wait: float = GRADING_WAIT) -> CodeVerdict:
    """Send a function (or source text) to a code exercise and wait for its verdict."""
    source = _checked_size(source_of(function))
    connection = _current()
    made = connection.call("POST", f"/exercises/{_quoted(exercise)}/submissions", {"source": source})
    deadline = time.monotonic() + wait
    while True:
        shown = connection.call("GET", f"/submissions/{made['submission_id']}", lang=True)
        if shown["status"] != "pending":
            return CodeVerdict(shown)
        if time.monotonic() > deadline:
            raise GraderError(f"Submission {made['submission_id']} is still being graded after {wait:g} seconds: "
                              "look at it later with status().")
        time.sleep(1.0)


def answer(exercise: str, **answers: Any) -> AnswerVerdict:
    """Send typed answers, one per part (numbers, lists, numpy arrays or text as you would type it)."""
    if not answers:
        raise GraderError("Give each answer by its part's name, e.g. answer('block-layernorm', mu=-1.114).")
    sent = {part: _typed(value) for part, value in answers.items()}
    return AnswerVerdict(_current().call("POST", f"/exercises/{_quoted(exercise)}/attempts", {"answers": sent},
                                         lang=True))


def hint(exercise: str) -> Help:
    """Take the next hint (it costs later attempts what the exercise says)."""
    return Help(_current().call("POST", f"/exercises/{_quoted(exercise)}/hints", lang=True))


def give_up(exercise: str) -> Help:
    """Stop scoring on your numbers: the worked solution and practice open."""
    return Help(_current().call("POST", f"/exercises/{_quoted(exercise)}/give-up", lang=True))


def practice(exercise: str) -> Practice:
    """New numbers to practise with, once your own are done; check answers with .check(part=value, ...)."""
    connection = _current()
    return Practice(connection, exercise, connection.call("GET", f"/exercises/{_quoted(exercise)}/practice",
                                                          lang=True))


def status() -> Progress:
    """Your progress in the course."""
    connection = _current()
    return Progress(connection.call("GET", "/progress"), connection.expires_at)


def _quoted(exercise: str) -> str:
    return urllib.parse.quote(str(exercise), safe="")


def _typed(value: Any) -> str:
    """A value as a learner would type it: lists as [a, b], shapes as (a, b), sets as {a, b}."""
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        value = value.tolist()
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_typed(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(_typed(v) for v in sorted(value)) + "}"
    return repr(value)


# ----- results: HTML in a notebook, plain text in a terminal -----

STYLE = ("font-family:system-ui,sans-serif;font-size:14px;line-height:1.45;color:#1b1b1b;background:#fff;"
         "border:1px solid #c9c9c9;border-radius:6px;padding:10px 14px;max-width:100%;box-sizing:border-box")
OK, BAD = "color:#0a6b2b;font-weight:600", "color:#a4161a;font-weight:600"
PRE = "background:#f4f4f4;padding:6px 8px;border-radius:4px;overflow-x:auto;white-space:pre;font-size:13px"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


class Result:
    """A reply shown as HTML in a notebook and as text in a terminal; `passed` decides the exit status."""

    passed = True

    def lines(self) -> list[str]:
        """The reply as plain text lines."""
        raise NotImplementedError

    def html_body(self) -> str:
        """The reply as (escaped) HTML."""
        return "<pre style='%s'>%s</pre>" % (PRE, _e("\n".join(self.lines())))

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        return f"<div class='grader-result' style='{STYLE}'>{self.html_body()}</div>"


class CodeVerdict(Result):
    """The verdict on a code submission: each case, the named mistake, a failing case's inputs as Python."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.result = data.get("result") or {}
        self.verdict = self.result.get("status") or data.get("status")  # passed, failed, error, timeout, ...
        self.passed = self.verdict == "passed"

    def lines(self) -> list[str]:
        r = self.result
        out = [f"{self.data['exercise']}: {self.verdict}, score {_score(self.data.get('score'))}",
               *([r["message"]] if r.get("message") else [])]
        if self.data.get("mistake"):
            out.append(f"Likely mistake: {self.data['mistake']}")
        for case in r.get("cases", []):
            out.append(f"  {'ok  ' if case['status'] == 'passed' else 'FAIL'} {case['name']}: {case['message']}")
            if case.get("printed"):
                out.append(textwrap.indent(case["printed"].rstrip(), "       | "))
        shown = self.inputs()
        if shown:
            name, call = shown[0]
            out += [f"Inputs of {name}, to paste and run:", textwrap.indent(call, "    ")]
        if len(shown) > 1:
            out.append("Other failing cases with inputs to paste (in a notebook, or on the exercise page): "
                       + ", ".join(name for name, _ in shown[1:]))
        return out

    def inputs(self) -> list[tuple[str, str]]:
        """The failing cases' inputs as Python, shortest first: the easiest one to look at comes first."""
        return sorted((self.data.get("inputs") or {}).items(), key=lambda item: (len(item[1]), item[0]))

    def html_body(self) -> str:
        r, style = self.result, OK if self.passed else BAD
        head = (f"<div style='{style};font-size:16px'>{_e(self.data['exercise'])}: {_e(self.verdict)}"
                f" <span style='font-weight:400;color:#444'>(score {_e(_score(self.data.get('score')))})</span></div>")
        body = [head, *([f"<p style='margin:6px 0'>{_e(r['message'])}</p>"] if r.get("message") else [])]
        if self.data.get("mistake"):
            body.append(f"<p style='margin:6px 0;{BAD}'>Likely mistake: {_e(self.data['mistake'])}</p>")
        rows = "".join(
            f"<tr style='vertical-align:top'><td style='padding:2px 8px;{OK if c['status'] == 'passed' else BAD}'>{_e(c['status'])}</td>"
            f"<td style='padding:2px 8px'><code>{_e(c['name'])}</code></td>"
            f"<td style='padding:2px 8px;white-space:pre-wrap'>{_e(c['message'])}</td></tr>"
            for c in r.get("cases", []))  # fmt: skip
        if rows:
            body.append(f"<table style='border-collapse:collapse;margin:6px 0'>{rows}</table>")
        for number, (name, call) in enumerate(self.inputs()):
            body.append(f"<details{' open' if number == 0 else ''} style='margin:8px 0 2px'><summary>Inputs of "
                        f"<code>{_e(name)}</code>, to paste into a cell:</summary>"
                        f"<pre style='{PRE};max-height:24em;overflow-y:auto'>{_e(call)}</pre></details>")
        return "".join(body)


class AnswerVerdict(Result):
    """The verdict on typed answers, part by part."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.passed = all(p["status"] == "correct" for p in data.get("parts", {}).values()) and bool(data.get("parts"))

    def lines(self) -> list[str]:
        d = self.data
        left = "" if d.get("attempts_left") is None else f", attempts left {d['attempts_left']}"
        out = [f"{d.get('outcome', 'checked')}: score {_score(d.get('score'))}{left}"]
        for part, verdict in d.get("parts", {}).items():
            out.append(f"  {part}: {verdict['status']}: {verdict['message']}")
            if verdict.get("hint"):
                out.append(f"      {verdict['hint']}")
        return out

    def html_body(self) -> str:
        rows = "".join(
            f"<tr><td style='padding:2px 8px'><code>{_e(p)}</code></td>"
            f"<td style='padding:2px 8px;{OK if v['status'] == 'correct' else BAD}'>{_e(v['status'])}</td>"
            f"<td style='padding:2px 8px'>{_e(v['message'])}{'<br>' + _e(v['hint']) if v.get('hint') else ''}</td></tr>"
            for p, v in self.data.get("parts", {}).items())  # fmt: skip
        head = _e(self.lines()[0])
        return f"<div style='{OK if self.passed else BAD}'>{head}</div><table style='border-collapse:collapse'>{rows}</table>"


class Help(Result):
    """The hints taken so far, and what help is left."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def lines(self) -> list[str]:
        d = self.data
        out = [f"Hint {i}: {text}" for i, text in enumerate(d.get("hints", []), 1)]
        out.append(f"Hints left: {d.get('hints_left')}; each costs later attempts {_score(d.get('hint_penalty'))}."
                   + (" You gave up: the worked solution and practice are open." if d.get("gave_up") else ""))
        return out


class Practice(Result):
    """Practice numbers and their worked solution; .check(part=value, ...) checks answers, nothing stored."""

    def __init__(self, connection: Connection, exercise: str, data: dict[str, Any]) -> None:
        self.connection, self.exercise, self.data = connection, exercise, data

    def lines(self) -> list[str]:
        d = self.data
        params = [f"  {k} = {v}" for k, v in d.get("params", {}).items()]
        return [d.get("title", ""), d.get("prompt", ""), *params,
                "Answer with .check(" + ", ".join(f"{p['id']}=…" for p in d.get("parts", [])) + ")"]

    def check(self, **answers: Any) -> AnswerVerdict:
        """Check answers against these numbers; nothing is stored."""
        sent = {"numbers": self.data["numbers"], "answers": {k: _typed(v) for k, v in answers.items()}}
        return AnswerVerdict(self.connection.call("POST", f"/exercises/{_quoted(self.exercise)}/practice", sent,
                                                  lang=True))


class Progress(Result):
    """Your best score and attempts per exercise."""

    def __init__(self, data: list[dict[str, Any]], expires_at: str | None = None) -> None:
        self.data, self.expires_at = data, expires_at

    def lines(self) -> list[str]:
        rows = [f"  {p['exercise']}: best {_score(p['best_score'])}, {p['attempts']} attempts"
                + (", solved" if p.get("solved") else "") for p in self.data]
        expiry = [f"Your token expires on {self.expires_at}."] if self.expires_at else []
        return ["Your progress:", *(rows or ["  nothing graded yet"]), *expiry]


def _score(value: Any) -> str:
    return "-" if value is None else f"{float(value):.0%}"


def _quiet_errors_in_notebooks() -> None:
    """In IPython, show a GraderError as its one line rather than a traceback into this file."""
    shell = getattr(builtins, "get_ipython", lambda: None)()
    if shell is not None:
        shell.set_custom_exc((GraderError,), lambda self, etype, value, tb, tb_offset=None: print(
            f"grader: {value}", file=sys.stderr))


# ----- the terminal -----

def main(argv: list[str] | None = None) -> int:
    """Run one command; 0 passed, 1 not passed, 2 an error (said on stderr in one line)."""
    parser = argparse.ArgumentParser(prog="grader_client.py", description="Check your work with grader "
                                     "(GRADER_URL and GRADER_TOKEN are read from the environment).")
    commands = parser.add_subparsers(dest="command", required=True)
    sub = commands.add_parser("submit", help="send a Python file to a code exercise")
    sub.add_argument("exercise"), sub.add_argument("file")
    sub = commands.add_parser("answer", help="send answers: part=value ...")
    sub.add_argument("exercise"), sub.add_argument("answers", nargs="+", metavar="part=value")
    for name in ("hint", "give-up", "practice"):
        commands.add_parser(name, help=f"{name} on an exercise").add_argument("exercise")
    commands.add_parser("status", help="your progress")
    args = parser.parse_args(argv)
    try:
        shown = _run(args)
    except GraderError as error:
        print(f"grader: {error}", file=sys.stderr)
        return 2
    print(shown)
    return 0 if shown.passed else 1


def _run(args: argparse.Namespace) -> Result:
    if args.command == "submit":
        try:
            with open(args.file, encoding="utf-8") as file:
                source = file.read()
        except (OSError, UnicodeDecodeError) as error:
            raise GraderError(f"Cannot read {args.file}: {error}") from None
        _checked_size(source)
        connect()
        return submit(args.exercise, source)
    if args.command == "answer":
        pairs = [text.partition("=") for text in args.answers]
        if any(not sep or not part for part, sep, _ in pairs):
            raise GraderError("Give each answer as part=value, e.g. mu=-1.114.")
        connect()
        return answer(args.exercise, **{part: value for part, _, value in pairs})
    connect()
    actions: dict[str, Callable[[str], Result]] = {"hint": hint, "give-up": give_up, "practice": practice}
    return status() if args.command == "status" else actions[args.command](args.exercise)


if __name__ == "__main__":
    sys.exit(main())
else:  # imported: in a notebook, from the first call on (connect() included), a refusal is one line
    _quiet_errors_in_notebooks()
