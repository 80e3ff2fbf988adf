"""A formula's LaTeX as words to be spoken, in English, Portuguese or Russian.

Screen readers without MathML support (TalkBack; NVDA without MathCAT) read a formula's bare symbols
("ϵ = 10 − 5"); the pages give each formula these words as its accessible name instead ("epsilon equals
10 to the power minus 5"). It covers the LaTeX the exercises use (fractions, roots, scripts, sums, Greek
letters, named functions, matrices); anything else is read by its name rather than dropped.
"""

from __future__ import annotations

import re
from typing import Iterator

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[0-9]+(?:(?:\{,\}|[.,])[0-9]+)*|\s+|.", re.S)

GREEK = {
    "en": {"alpha": "alpha", "beta": "beta", "gamma": "gamma", "delta": "delta", "epsilon": "epsilon",
           "varepsilon": "epsilon", "zeta": "zeta", "eta": "eta", "theta": "theta", "kappa": "kappa",
           "lambda": "lambda", "mu": "mu", "nu": "nu", "xi": "xi", "pi": "pi", "rho": "rho", "sigma": "sigma",
           "tau": "tau", "phi": "phi", "varphi": "phi", "chi": "chi", "psi": "psi", "omega": "omega",
           "Delta": "capital delta", "Sigma": "capital sigma", "Pi": "capital pi", "Omega": "capital omega"},
    "pt": {"alpha": "alfa", "beta": "beta", "gamma": "gama", "delta": "delta", "epsilon": "épsilon",
           "varepsilon": "épsilon", "zeta": "zeta", "eta": "eta", "theta": "teta", "kappa": "capa",
           "lambda": "lambda", "mu": "mi", "nu": "ni", "xi": "csi", "pi": "pi", "rho": "rô", "sigma": "sigma",
           "tau": "tau", "phi": "fi", "varphi": "fi", "chi": "qui", "psi": "psi", "omega": "ômega",
           "Delta": "delta maiúsculo", "Sigma": "sigma maiúsculo", "Pi": "pi maiúsculo", "Omega": "ômega maiúsculo"},
    "ru": {"alpha": "альфа", "beta": "бета", "gamma": "гамма", "delta": "дельта", "epsilon": "эпсилон",
           "varepsilon": "эпсилон", "zeta": "дзета", "eta": "эта", "theta": "тета", "kappa": "каппа",
           "lambda": "лямбда", "mu": "мю", "nu": "ню", "xi": "кси", "pi": "пи", "rho": "ро", "sigma": "сигма",
           "tau": "тау", "phi": "фи", "varphi": "фи", "chi": "хи", "psi": "пси", "omega": "омега",
           "Delta": "большая дельта", "Sigma": "большая сигма", "Pi": "большая пи", "Omega": "большая омега"},
}  # fmt: skip

WORDS = {
    "en": {"=": "equals", "+": "plus", "-": "minus", "/": "divided by", "<": "is less than", ">": "is greater than",
           "cdot": "times", "times": "times", "odot": "times elementwise", "approx": "is approximately",
           "le": "is at most", "leq": "is at most", "ge": "is at least", "geq": "is at least", "ne": "is not equal to",
           "neq": "is not equal to", "leftarrow": "becomes", "to": "to", "rightarrow": "to", "in": "in",
           "infty": "infinity", "(": "open paren", ")": "close paren", "[": "open bracket", "]": "close bracket",
           "|": "bar", "mid": "bar", "'": "prime", "prime": "prime", "dots": "and so on", "ldots": "and so on",
           "cdots": "and so on", "sub": "sub", "power": "to the power", "2": "squared", "3": "cubed",
           "top": "transposed", "over": "over", "fraction": "the fraction", "end fraction": "end fraction",
           "root": "the square root of", "nth root": "the root of order", "of": "of", "sum of": "of", "end root": "end root",
           "sum": "the sum", "sum over": "the sum over", "from": "from", "hat": "hat", "bar_accent": "bar",
           "tilde": "tilde", "matrix": "the matrix", "row": "row", "end matrix": "end matrix", "pm": "plus or minus",
           "sim": "is distributed as", "cap": "capital"},
    "pt": {"=": "igual a", "+": "mais", "-": "menos", "/": "dividido por", "<": "é menor que", ">": "é maior que",
           "cdot": "vezes", "times": "vezes", "odot": "vezes, elemento a elemento,", "approx": "é aproximadamente",
           "le": "é no máximo", "leq": "é no máximo", "ge": "é no mínimo", "geq": "é no mínimo", "ne": "é diferente de",
           "neq": "é diferente de", "leftarrow": "passa a ser", "to": "para", "rightarrow": "para", "in": "em",
           "infty": "infinito", "(": "abre parêntese", ")": "fecha parêntese", "[": "abre colchete",
           "]": "fecha colchete", "|": "barra", "mid": "barra", "'": "linha", "prime": "linha", "dots": "e assim por diante",
           "ldots": "e assim por diante", "cdots": "e assim por diante", "sub": "índice", "power": "elevado a",
           "2": "ao quadrado", "3": "ao cubo", "top": "transposta", "over": "sobre", "fraction": "fração",
           "end fraction": "fim da fração", "root": "raiz quadrada de", "nth root": "raiz de ordem", "of": "de", "sum of": "de",
           "end root": "fim da raiz", "sum": "soma", "sum over": "soma sobre", "from": "de", "hat": "chapéu",
           "bar_accent": "barra", "tilde": "til", "matrix": "matriz", "row": "linha", "end matrix": "fim da matriz",
           "pm": "mais ou menos", "sim": "segue a distribuição", "cap": "maiúsculo"},
    "ru": {"=": "равно", "+": "плюс", "-": "минус", "/": "делённое на", "<": "меньше", ">": "больше",
           "cdot": "умножить на", "times": "умножить на", "odot": "поэлементно умножить на", "approx": "примерно равно",
           "le": "не больше", "leq": "не больше", "ge": "не меньше", "geq": "не меньше", "ne": "не равно",
           "neq": "не равно", "leftarrow": "заменяется на", "to": "в", "rightarrow": "в", "in": "из",
           "infty": "бесконечность", "(": "открывающая скобка", ")": "закрывающая скобка",
           "[": "открывающая квадратная скобка", "]": "закрывающая квадратная скобка", "|": "черта", "mid": "черта",
           "'": "штрих", "prime": "штрих", "dots": "и так далее", "ldots": "и так далее", "cdots": "и так далее",
           "sub": "с индексом", "power": "в степени", "2": "в квадрате", "3": "в кубе", "top": "транспонированная",
           "over": "делённое на", "fraction": "дробь", "end fraction": "конец дроби", "root": "квадратный корень из",
           "nth root": "корень степени", "of": "из", "sum of": "от", "end root": "конец корня", "sum": "сумма", "sum over": "сумма по",
           "from": "от", "hat": "с крышкой", "bar_accent": "с чертой", "tilde": "с тильдой", "matrix": "матрица",
           "row": "строка", "end matrix": "конец матрицы", "pm": "плюс-минус", "sim": "распределено как",
           "cap": "большая"},
}  # fmt: skip

_SPACES = {"quad", "qquad", ",", ";", ":", "!", " ", "left", "right", "big", "Big", "bigg", "Bigg", "displaystyle",
           "textstyle", "limits", "nolimits"}  # fmt: skip
_STYLED = {"mathrm", "operatorname", "mathbf", "mathit", "mathsf", "mathtt", "boldsymbol", "mathcal", "text", "textrm"}
_FRACTIONS = {"frac", "tfrac", "dfrac"}
_ACCENTS = {"hat": "hat", "widehat": "hat", "bar": "bar_accent", "overline": "bar_accent", "tilde": "tilde"}


class _Reader:
    """Reads LaTeX tokens into words, one construct at a time."""

    def __init__(self, latex: str, locale: str) -> None:
        self.tokens = [t for t in _TOKEN.findall(latex) if not t.isspace()]
        self.at = 0
        self.words = WORDS.get(locale, WORDS["en"])
        self.greek = GREEK.get(locale, GREEK["en"])

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        self.at += 1
        return self.tokens[self.at - 1]

    def group(self) -> list[str]:
        """The words of a {…} group, or of the single construct that stands for one."""
        if self.peek() != "{":
            return self.atom()
        self.take()
        words: list[str] = []
        while self.peek() not in (None, "}"):
            words += self.construct()
        if self.peek() == "}":
            self.take()
        return words

    def raw_group(self) -> str:
        """A {…} group's text as written (\\text{…}, \\mathrm{…})."""
        if self.peek() != "{":
            return self.take() if self.peek() else ""
        self.take()
        parts = []
        depth = 1
        while self.peek() is not None:
            token = self.take()
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth == 0:
                break
            parts.append(token)
        return "".join(parts).replace("\\", "")

    def construct(self) -> list[str]:
        """One atom with its sub- and superscripts."""
        start = self.peek()
        if start in ("\\sum", "\\prod"):
            return self.big_operator()
        words = self.atom()
        while self.peek() in ("_", "^", "'"):
            mark = self.take()
            if mark == "'":
                words = words + [self.words["prime"]]
            elif mark == "_":
                words = words + [self.words["sub"]] + self.group()
            else:
                words = words + self.power(self.group())
        return words

    def power(self, exponent: list[str]) -> list[str]:
        if exponent in (["2"], ["3"]):
            return [self.words[exponent[0]]]
        if exponent == [self.words["top"]]:
            return exponent
        return [self.words["power"]] + exponent

    def big_operator(self) -> list[str]:
        self.take()
        below = above = None
        while self.peek() in ("_", "^"):
            if self.take() == "_":
                below = self.group()
            else:
                above = self.group()
        if below is None:
            return [self.words["sum"], self.words["sum of"]]
        words = [self.words["sum over"]] + below
        if above is not None:
            words += [self.words["to"]] + above
        return words + [self.words["sum of"]]

    def atom(self) -> list[str]:
        token = self.take()
        if token == "{":
            self.at -= 1
            return self.group()
        if not token.startswith("\\") or len(token) == 2 and not token[1].isalpha():
            name = token[1:] if token.startswith("\\") else token
            if name in _SPACES or name in "{}&":
                return []
            if re.fullmatch(r"[0-9].*", name):
                return [name.replace("{,}", ",")]
            return [self.words.get(name, name)]
        return self.command(token[1:])

    def command(self, name: str) -> list[str]:
        if name in _SPACES:
            return []
        if name in self.greek:
            return [self.greek[name]]
        if name in _FRACTIONS:
            top, bottom = self.group(), self.group()
            if len(top) == 1 and len(bottom) == 1:
                return top + [self.words["over"]] + bottom
            return [self.words["fraction"]] + top + [self.words["over"]] + bottom + [self.words["end fraction"]]
        if name == "sqrt":
            order = self.optional()
            inside = self.group()
            start = [self.words["nth root"]] + order + [self.words["of"]] if order else [self.words["root"]]
            return start + inside + ([self.words["end root"]] if len(inside) > 1 else [])
        if name in _STYLED:
            text = self.raw_group()
            return [text] if text.strip() else []
        if name in _ACCENTS:
            return self.group() + [self.words[_ACCENTS[name]]]
        if name == "begin":
            return self.matrix()
        if name == "end":
            self.raw_group()
            return []
        return [self.words.get(name, name)]

    def optional(self) -> list[str]:
        if self.peek() != "[":
            return []
        self.take()
        words: list[str] = []
        while self.peek() not in (None, "]"):
            words += self.construct()
        if self.peek() == "]":
            self.take()
        return words

    def matrix(self) -> list[str]:
        self.raw_group()  # the environment's name
        rows: list[list[str]] = [[]]
        while self.peek() is not None and self.peek() != "\\end":
            if self.peek() == "\\\\":
                self.take()
                rows.append([])
            elif self.peek() == "&":
                self.take()
                rows[-1].append(",")
            else:
                rows[-1] += self.construct()
        if self.peek() == "\\end":
            self.take()
            self.raw_group()
        said = [self.words["matrix"]]
        for number, row in enumerate((r for r in rows if r), start=1):
            said += [f"{self.words['row']} {number}:"] + row + [";"]
        return said + [self.words["end matrix"]]


def _joined(words: Iterator[str] | list[str]) -> str:
    text = " ".join(w for w in words if w)
    return re.sub(r"\s+([,;:])", r"\1", text).strip()


def spoken(latex: str, locale: str = "en") -> str:
    """The formula as words in the language `locale` (en, pt or ru; English for any other)."""
    reader = _Reader(latex, locale)
    words: list[str] = []
    while reader.peek() is not None:
        before = reader.at
        words += reader.construct()
        if reader.at == before:  # a stray closing brace: skip it rather than loop
            reader.take()
    return _joined(words)
