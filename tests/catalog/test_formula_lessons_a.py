"""The block lesson's formula exercises (attention by hand, causal rows, a row ten times larger): the lesson's
numbers at seed 0, plain numpy on many seeds, and each named mistake recognised when typed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from grader.catalog.catalog import Catalog

SEEDS = range(1, 61)
EPS = 1e-5
RMS_EPS = 1e-6  # the lesson's RMSNorm epsilon (its modern block's rmsnorm)


def typed(values: np.ndarray) -> str:
    """A vector or matrix as a learner types it, to 3 decimals."""
    if np.ndim(values) == 2:  # a matrix: entries by commas, rows by semicolons
        return "[" + "; ".join(", ".join(f"{v:.3f}" for v in row) for row in values) + "]"
    return "[" + "; ".join(f"{v:.3f}" for v in values) + "]"


def typed_set(indices: list[int]) -> str:
    return "{" + ", ".join(str(i) for i in indices) + "}"


def answers(catalog: Catalog, exercise: str, seed: int) -> dict[str, np.ndarray]:
    """The variant's expected answer per part, as arrays."""
    return {p.spec.id: np.asarray(p.answer_json(), dtype=float) for p in catalog.variant(exercise, seed).parts}


def named(catalog: Catalog, exercise: str, seed: int, **typed_answers: str) -> dict[str, str | None]:
    """Each answered part's named mistake; every answer must be graded incorrect."""
    parts = catalog.check(exercise, seed, typed_answers).to_json()["parts"]
    assert all(parts[p]["status"] == "incorrect" for p in typed_answers), parts
    return {p: parts[p]["misconception"] for p in typed_answers}


# --- plain numpy, written here without grader.formulas ------------------------------------------------


def row_softmax(s: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: bool = True, mask: bool = True,
              axis: int = -1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Scores, weights and the second token's output of one causal head."""
    s = q @ k.T / (math.sqrt(q.shape[1]) if scale else 1.0)
    hidden = np.triu(np.ones((3, 3), dtype=bool), 1) if mask else np.zeros((3, 3), dtype=bool)
    a = row_softmax(np.where(hidden, -1e30, s), axis=axis)
    return s, a, a[1] @ v


def layer_norm(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / math.sqrt(((x - x.mean()) ** 2).mean() + EPS)


def gelu(z: np.ndarray) -> np.ndarray:
    return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))


def toy_mlp(u: np.ndarray) -> np.ndarray:
    return gelu(u) + gelu(-u)


def rms_norm(x: np.ndarray, eps: float = EPS) -> np.ndarray:
    return x / math.sqrt((x**2).mean() + eps)


# --- attention-by-hand ---------------------------------------------------------------------------------


def test_attention_by_hand_at_seed_0_is_the_worked_head(catalog: Catalog) -> None:
    # The lesson's panel prints no numbers for its head, so seed 0 is a head small enough to do by hand:
    # row 2 scores q2·k = [3, 1, 2] / √2, softmax over the first two: 1 / (1 + e^(−√2)) = 0.804.
    got = answers(catalog, "attention-by-hand", 0)
    assert catalog.variant("attention-by-hand", 0).params["q"].tolist() == [[1, 0], [2, 1], [0, 1]]
    np.testing.assert_allclose(got["s"][1], [2.121, 0.707, 1.414], atol=5e-4)
    weights = np.array([[1, 0, 0], [0.804, 0.196, 0], [0.306, 0.074, 0.620]])
    np.testing.assert_allclose(got["a"], weights, atol=5e-4)
    np.testing.assert_allclose(got["o2"], [0.609, 1.804], atol=5e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_by_hand_matches_numpy(catalog: Catalog, seed: int) -> None:
    params = catalog.variant("attention-by-hand", seed).params
    q, k, v = (np.asarray(params[n], dtype=float) for n in ("q", "k", "v"))
    s, a, o2 = attention(q, k, v)
    got = answers(catalog, "attention-by-hand", seed)
    np.testing.assert_allclose(got["s"], s, atol=1e-9)
    np.testing.assert_allclose(got["a"], a, atol=1e-9)
    np.testing.assert_allclose(got["o2"], o2, atol=1e-9)
    assert np.allclose(a.sum(axis=1), 1) and np.all(np.triu(a, 1) == 0)


@pytest.mark.parametrize("seed", [0, 7, 23])
def test_attention_mistakes_are_named(catalog: Catalog, seed: int) -> None:
    q, k, v = (np.asarray(catalog.variant("attention-by-hand", seed).params[n], dtype=float) for n in "qkv")
    wrong = {"no-scaling": attention(q, k, v, scale=False), "no-causal-mask": attention(q, k, v, mask=False),
             "softmax-over-columns": attention(q, k, v, axis=0)}  # fmt: skip
    for mistake, (_, a, o2) in wrong.items():
        assert named(catalog, "attention-by-hand", seed, a=typed(a), o2=typed(o2)) == {"a": mistake, "o2": mistake}
    raw = attention(q, k, v, scale=False)[0]
    assert named(catalog, "attention-by-hand", seed, s=typed(raw)) == {"s": "no-scaling"}
    assert named(catalog, "attention-by-hand", seed, s=typed(raw / 2)) == {"s": "scale-dh"}


# --- causal-rows ---------------------------------------------------------------------------------------


def test_causal_rows_at_seed_0_is_the_lessons_sentence(catalog: Catalog) -> None:
    variant = catalog.variant("causal-rows", 0)
    assert (variant.params["n"], variant.params["j"]) == (5, 3)  # the lesson's 5 tokens, the middle one changed
    got = answers(catalog, "causal-rows", 0)
    assert got["changed"].tolist() == [3, 4, 5] and got["changed_no_attention"].tolist() == [3]


def changed_rows(n: int, j: int, with_attention: bool) -> list[int]:
    """Rows of one toy causal block's output that move when token j (1-based) is replaced, found by running it."""
    rng = np.random.default_rng(n * 10 + j)
    x = rng.normal(size=(n, 4))
    edited = x.copy()
    edited[j - 1] = rng.normal(size=4)

    def block(x: np.ndarray) -> np.ndarray:
        u = np.apply_along_axis(layer_norm, 1, x)
        s = np.where(np.triu(np.ones((n, n), dtype=bool), 1), -1e30, u @ u.T / 2)
        h = x + (row_softmax(s) @ u if with_attention else 0)
        return h + np.apply_along_axis(lambda r: toy_mlp(layer_norm(r)), 1, h)

    moved = np.any(np.abs(block(edited) - block(x)) > 1e-12, axis=1)
    return [int(i) + 1 for i in np.flatnonzero(moved)]


@pytest.mark.parametrize("seed", SEEDS)
def test_causal_rows_match_a_block_run_in_numpy(catalog: Catalog, seed: int) -> None:
    params = catalog.variant("causal-rows", seed).params
    n, j = int(params["n"]), int(params["j"])
    got = answers(catalog, "causal-rows", seed)
    assert got["changed"].tolist() == changed_rows(n, j, True) == list(range(j, n + 1))
    assert got["changed_no_attention"].tolist() == changed_rows(n, j, False) == [j]


def test_causal_rows_mistakes_are_named(catalog: Catalog) -> None:
    assert named(catalog, "causal-rows", 0, changed=typed_set([1, 2, 3, 4, 5])) == {"changed": "all-rows-change"}
    assert named(catalog, "causal-rows", 0, changed=typed_set([3])) == {"changed": "only-row-j"}
    assert named(catalog, "causal-rows", 0, changed_no_attention=typed_set([1, 2, 3, 4, 5])) == {
        "changed_no_attention": "all-rows-change"
    }


# --- layernorm-scale -----------------------------------------------------------------------------------

H5 = np.array([-1.239, 0.911, -1.021, 0.980])  # the lesson's h5, ␣no after the first residual


def test_layernorm_scale_at_seed_0_uses_the_lessons_row(catalog: Catalog) -> None:
    variant = catalog.variant("layernorm-scale", 0)
    assert variant.params["h"].tolist() == H5.tolist()
    got = answers(catalog, "layernorm-scale", 0)
    np.testing.assert_allclose(got["ln_big"], [-1.102, 0.964, -0.892, 1.030], atol=5e-4)  # the lesson's u'5
    # The lesson printed m5 and y5 from h5 before rounding; from the printed h5 one entry moves by 0.001.
    np.testing.assert_allclose(variant.quantities["m"], [0.803, 0.640, 0.560, 0.718], atol=1e-3)
    np.testing.assert_allclose(variant.quantities["y"], [-0.436, 1.551, -0.461, 1.698], atol=1e-3)
    np.testing.assert_allclose(got["y_big"], 10 * H5 + np.array([0.803, 0.641, 0.560, 0.718]), atol=5e-4)


@pytest.mark.parametrize(("locale", "m", "y"), [
    ("en", "[0.803; 0.640; 0.560; 0.718]", "[−0.436; 1.551; −0.461; 1.698]"),
    ("pt", "[0,803; 0,640; 0,560; 0,718]", "[−0,436; 1,551; −0,461; 1,698]"),
    ("ru", "[0,803; 0,640; 0,560; 0,718]", "[−0,436; 1,551; −0,461; 1,698]"),
])
def test_layernorm_scale_prints_the_lessons_m_and_y_at_seed_0(catalog: Catalog, locale: str, m: str, y: str) -> None:
    # The lesson (and block-mlp, block-output) print m5[2] = 0,640 and y5[2] = 1,551: its GELU values rounded,
    # then added. The prompt, the worked solution and y' = 10h + m follow the same numbers.
    variant = catalog.variant("layernorm-scale", 0)
    assert f"$m$ = {m}" in variant.prompt_in(locale)
    solution = " ".join(variant.solution_in(locale))
    assert f"= {y}" in solution and f", {m}." in solution
    ten_h_plus_m = "[−11,587; 9,750; −9,650; 10,518]" if locale != "en" else "[−11.587; 9.750; −9.650; 10.518]"
    assert f"= {ten_h_plus_m}" in solution
    mlp = catalog.variant("block-mlp", 0)
    assert m in " ".join(mlp.solution_in(locale))


@pytest.mark.parametrize("locale", ["en", "pt", "ru"])
def test_layernorm_scale_uses_the_lessons_rmsnorm_epsilon(catalog: Catalog, locale: str) -> None:
    variant = catalog.variant("layernorm-scale", 0)
    assert r"\epsilon = 10^{-6}" in variant.prompt_in(locale)
    got = answers(catalog, "layernorm-scale", 0)
    np.testing.assert_allclose(got["rms_small"], H5 / math.sqrt((H5**2).mean() + 1), atol=1e-9)  # 10^-6 / 10^-6


@pytest.mark.parametrize("seed", SEEDS)
def test_layernorm_scale_matches_numpy(catalog: Catalog, seed: int) -> None:
    h = np.asarray(catalog.variant("layernorm-scale", seed).params["h"], dtype=float)
    got = answers(catalog, "layernorm-scale", seed)
    np.testing.assert_allclose(got["ln_big"], layer_norm(10 * h), atol=1e-9)
    np.testing.assert_allclose(got["ln_big"], layer_norm(h), atol=1e-4)  # unchanged up to ε: not in 3 decimals
    np.testing.assert_allclose(got["y_big"], 10 * h + toy_mlp(layer_norm(10 * h)), atol=1e-9)
    np.testing.assert_allclose(got["rms_small"], rms_norm(h / 1000, eps=RMS_EPS), atol=1e-9)


@pytest.mark.parametrize("seed", [0, 11, 42])
def test_layernorm_scale_mistakes_are_named(catalog: Catalog, seed: int) -> None:
    h = np.asarray(catalog.variant("layernorm-scale", seed).params["h"], dtype=float)
    scaled = 10 * layer_norm(h)
    wrong = {"ln_big": typed(scaled), "y_big": typed(10 * h + toy_mlp(scaled)),
             "rms_small": typed(rms_norm(h, eps=RMS_EPS) / 1000)}
    assert named(catalog, "layernorm-scale", seed, **wrong) == dict.fromkeys(wrong, "scaled-output")
    assert named(catalog, "layernorm-scale", seed, y_big=typed(h + toy_mlp(layer_norm(h)))) == {
        "y_big": "output-unscaled"
    }
    assert named(catalog, "layernorm-scale", seed, rms_small=typed(rms_norm(h, eps=0))) == {"rms_small": "eps-ignored"}
