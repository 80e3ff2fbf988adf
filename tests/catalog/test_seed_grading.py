"""The lesson pages' numbers, typed the way learners type them, graded through the catalogue."""

from __future__ import annotations

import pytest

from grader.catalog.catalog import DEFAULT_EXERCISES as EXERCISES
from grader.catalog.catalog import Catalog
from grader.catalog.loader import spec_from_text
from grader.catalog.variants import make_variant


def grade(catalog: Catalog, exercise: str, **answers: str) -> dict:
    return catalog.check(exercise, 0, answers).to_json()["parts"]


def test_page_residual_with_decimal_commas_is_correct(catalog: Catalog) -> None:
    parts = grade(catalog, "block-residual", h="[-1,239; 0,911; -1,021; 0,980]")
    assert parts["h"]["status"] == "correct"


def test_page_layernorm_numbers_are_correct(catalog: Catalog) -> None:
    parts = grade(catalog, "block-layernorm", mu="−0,092", sigma="1,041", u="-1.102 0.964 -0.892 1.030")
    assert {p["status"] for p in parts.values()} == {"correct"}


def test_rounding_mu_and_sigma_first_is_still_accepted_for_u(catalog: Catalog) -> None:
    # (0.911 + 0.092) / 1.041 = 0.9635: a learner carrying the rounded statistics writes 0.963.
    parts = grade(catalog, "block-layernorm", mu="-0.092", sigma="1.041", u="-1.102 0.963 -0.892 1.030")
    assert parts["u"]["status"] == "correct"


def test_sample_variance_is_named(catalog: Catalog) -> None:
    parts = grade(catalog, "block-layernorm", mu="-0.092", sigma="1.202", u="-0.954 0.835 -0.773 0.892")
    assert parts["sigma"]["status"] == "incorrect"
    assert parts["sigma"]["misconception"] == "sample-variance"
    assert parts["u"]["misconception"] == "sample-variance"


def test_page_gelu_values_are_correct(catalog: Catalog) -> None:
    parts = grade(catalog, "block-gelu", neg="-0.149", pos="0.952")
    assert parts["neg"]["status"] == parts["pos"]["status"] == "correct"


def test_relu_instead_of_gelu_is_named(catalog: Catalog) -> None:
    parts = grade(catalog, "block-gelu", neg="0.000", pos="1.102")
    assert parts["neg"]["misconception"] == parts["pos"]["misconception"] == "relu"


@pytest.mark.parametrize("m", ["[0.803; 0.640; 0.560; 0.718]", "[0.803; 0.641; 0.560; 0.718]"])
def test_page_mlp_output_and_full_precision_are_both_correct(catalog: Catalog, m: str) -> None:
    assert grade(catalog, "block-mlp", m=m)["m"]["status"] == "correct"


def test_relu_mlp_is_named(catalog: Catalog) -> None:
    part = grade(catalog, "block-mlp", m="[1.102; 0.964; 0.892; 1.030]")["m"]
    assert part["status"] == "incorrect" and part["misconception"] == "relu"


@pytest.mark.parametrize("y", ["[-0.436; 1.551; -0.461; 1.698]", "[-0.436; 1.552; -0.461; 1.698]"])
def test_page_block_output_and_full_precision_are_both_correct(catalog: Catalog, y: str) -> None:
    parts = grade(catalog, "block-output", y=y, y_no_attention="[-0.248; -0.248; -0.248; 3.088]")
    assert parts["y"]["status"] == parts["y_no_attention"]["status"] == "correct"


def test_forgetting_the_second_residual_is_named(catalog: Catalog) -> None:
    parts = grade(catalog, "block-output", y="[0.803; 0.641; 0.560; 0.718]",
                  y_no_attention="[0.252; 0.252; 0.252; 1.588]")  # fmt: skip
    assert parts["y"]["misconception"] == "no-residual-mlp"
    assert parts["y_no_attention"]["misconception"] == "no-residual-mlp"


def test_too_few_decimals_is_invalid_and_asks_for_more(catalog: Catalog) -> None:
    part = grade(catalog, "block-layernorm", mu="-0.09", sigma="1.041", u="-1.102 0.964 -0.892 1.030")["mu"]
    assert part["status"] == "invalid"
    assert "3 decimal places" in part["message"]


def test_wrong_entry_count_is_invalid_with_the_count(catalog: Catalog) -> None:
    part = grade(catalog, "block-residual", h="-1.239; 0.911; -1.021")["h"]
    assert part["status"] == "invalid"
    assert "expected 4 numbers, got 3" in part["message"]


def test_modern_block_page_counts_are_exact(catalog: Catalog) -> None:
    parts = grade(catalog, "modern-params", attention="41,943,040", ffn="135 266 304", norm="8192",
                  block="177217536", model="5,670,961,152")  # fmt: skip
    assert {p["status"] for p in parts.values()} == {"correct"}


def test_rounded_count_asks_for_the_exact_number(catalog: Catalog) -> None:
    part = grade(catalog, "modern-params", attention="41.9M")["attention"]
    assert part["status"] == "invalid"
    assert "exact" in part["message"]


def test_full_kv_heads_and_forgetting_layers_are_named(catalog: Catalog) -> None:
    parts = grade(catalog, "modern-params", attention="67108864", model="177217536")
    assert parts["attention"]["misconception"] == "full-kv-heads"
    assert parts["model"]["misconception"] == "forget-layers"


def test_page_shapes(catalog: Catalog) -> None:
    parts = grade(catalog, "modern-shapes", q="(2, 5, 4)", kv="2×5×4", scores="[2, 5, 5]",
                  hidden="5x21", out="(5, 8)")  # fmt: skip
    assert {p["status"] for p in parts.values()} == {"correct"}


def test_transposed_shape_is_graded_incorrect_and_named(catalog: Catalog) -> None:
    # Tokens before heads has a name of its own, with the lesson's reason; any other order is "transposed".
    part = grade(catalog, "modern-shapes", q="(5, 2, 4)")["q"]
    assert part["status"] == "incorrect"
    assert part["misconception"] == "heads-not-first"
    part = grade(catalog, "modern-shapes", hidden="(21, 5)")["hidden"]
    assert part["status"] == "incorrect"
    assert part["misconception"] == "transposed-shape"


def test_swiglu_width_of_llama_7b(catalog: Catalog) -> None:
    assert grade(catalog, "swiglu-width", f="11008")["f"]["status"] == "correct"
    assert grade(catalog, "swiglu-width", f="16384")["f"]["misconception"] == "ffn-4d"


@pytest.mark.parametrize("share", ["2/3", "0.667", "66.7 %", "0,667"])
def test_ffn_share_two_thirds_in_every_form(catalog: Catalog, share: str) -> None:
    assert grade(catalog, "ffn-share", share=share)["share"]["status"] == "correct"


@pytest.mark.parametrize("share", ["0.5", "50 %", "1/2"])
def test_one_ffn_matrix_typed_as_its_exact_half_is_named(catalog: Catalog, share: str) -> None:
    part = grade_seed(catalog, "ffn-share", 0, share=share)["share"]
    assert (part["status"], part["misconception"]) == ("incorrect", "one-ffn-matrix")


def test_ffn_share_swapped_for_attention_is_named(catalog: Catalog) -> None:
    assert grade(catalog, "ffn-share", share="1/3")["share"]["misconception"] == "attention-share"


def test_microgpt_page_parameter_table(catalog: Catalog) -> None:
    parts = grade(catalog, "microgpt-params", wte="432", wpe="256", lm_head="432", attention="1024",
                  mlp="2048", total="4,192", outside_share="1120/4192")  # fmt: skip
    assert {p["status"] for p in parts.values()} == {"correct"}


def test_microgpt_page_stations(catalog: Catalog) -> None:
    parts = grade(catalog, "microgpt-stations", norms="3", residual_adds="2", fc1_shape="(64, 16)",
                  fc2_shape="(16, 64)")  # fmt: skip
    assert {p["status"] for p in parts.values()} == {"correct"}
    wrong = grade(catalog, "microgpt-stations", norms="2", fc1_shape="(16, 64)")
    assert wrong["norms"]["misconception"] == "forget-initial-norm"
    assert wrong["fc1_shape"]["misconception"] == "weight-in-out"
    assert "[n_out][n_in]" in wrong["fc1_shape"]["hint"] and "heads" not in wrong["fc1_shape"]["hint"]


def test_microgpt_norms_of_one_layer_get_the_norms_rule_not_times_l(catalog: Catalog) -> None:
    seed = next(s for s in range(1, 200) if catalog._variant("microgpt-stations", s).params["n_layer"] == 4)
    part = grade_seed(catalog, "microgpt-stations", seed, norms="3")["norms"]
    assert part["misconception"] == "norms-of-one-layer" and "1 + 2L" in part["hint"]
    assert grade_seed(catalog, "microgpt-stations", seed, norms="9")["norms"]["status"] == "correct"


def grade_seed(catalog: Catalog, exercise: str, seed: int, **answers: str) -> dict:
    return catalog.check(exercise, seed, answers).to_json()["parts"]


@pytest.mark.parametrize("seed, typed", [(0, "5,670,961,147"), (56, "54862807000")])
def test_a_count_a_few_units_off_is_incorrect(catalog: Catalog, seed: int, typed: str) -> None:
    part = grade_seed(catalog, "modern-params", seed, model=typed)["model"]
    assert part["status"] == "incorrect"


def test_a_count_of_billions_rounded_with_a_suffix_asks_for_the_whole_number(catalog: Catalog) -> None:
    part = grade_seed(catalog, "modern-params", 56, model="54.862807B")["model"]
    assert part["status"] == "invalid" and "exact whole number" in part["message"]
    assert grade_seed(catalog, "modern-params", 56, model="54,862,807,040")["model"]["status"] == "correct"


def test_a_wrong_count_is_told_in_a_sentence(catalog: Catalog) -> None:
    part = grade(catalog, "modern-params", attention="41943041")["attention"]
    assert part["message"] == "Incorrect: this is not exactly the expected value."


def test_gelu_is_checked_at_the_z_the_prompt_prints(catalog: Catalog) -> None:
    assert "$z$ = 1.459" in catalog.variant("block-gelu", 263).prompt
    parts = grade_seed(catalog, "block-gelu", 263, neg="-0.106", pos="1.356")
    assert parts["neg"]["status"] == "correct"
    assert parts["pos"]["status"] == "incorrect"
    assert grade_seed(catalog, "block-gelu", 263, pos="1.353")["pos"]["status"] == "correct"


@pytest.mark.parametrize("share", ["0.940", "94.0 %", "0.9403"])
def test_the_inside_share_is_named_at_its_own_significant_figures(catalog: Catalog, share: str) -> None:
    part = grade_seed(catalog, "microgpt-params", 7, outside_share=share)["outside_share"]
    assert part["status"] == "incorrect" and part["misconception"] == "inside-share"


@pytest.mark.parametrize("share, status", [("75 %", "invalid"), ("0.75", "invalid"), ("3/4", "correct"),
                                           ("75.0 %", "correct"), ("0.750", "correct")])  # fmt: skip
def test_an_ffn_share_of_exactly_three_quarters_typed_short_asks_for_digits(catalog: Catalog, share: str,
                                                                             status: str) -> None:  # fmt: skip
    # As a wrong share typed short does: a short guess costs no attempt, so it must not reveal the answer.
    assert grade_seed(catalog, "ffn-share", 3, share=share)["share"]["status"] == status


def test_the_swiglu_hint_gives_the_rule_for_small_widths_too(catalog: Catalog) -> None:
    # modern-shapes has d = 8 on the page: 4d = 32 instead of floor(8d/3) = 21.
    part = grade(catalog, "modern-shapes", hidden="(5, 32)")["hidden"]
    assert part["misconception"] == "ffn-4d"
    assert "rounded down to a whole number when d < 256" in part["hint"]
    assert "nearest multiple of 256 when d ≥ 256" in part["hint"]


def test_the_bias_hint_does_not_ask_microgpt_learners_for_norm_gains(catalog: Catalog) -> None:
    part = grade(catalog, "microgpt-params", lm_head="459")["lm_head"]  # 27 × 16 + 27 biases
    assert part["misconception"] == "count-biases"
    assert "norm gains only" not in part["hint"]
    assert "microGPT's RMSNorm has no weights" in part["hint"]


@pytest.mark.parametrize("locale, nearest", [("en", "nearest multiple of"), ("pt", "mais próximo"),
                                             ("ru", "ближайшего кратного")])  # fmt: skip
def test_the_modern_block_prompt_rounds_the_swiglu_width_to_the_nearest_multiple(
    catalog: Catalog, locale: str, nearest: str
) -> None:
    assert nearest in catalog.variant("modern-params", 0).prompt_in(locale)


def test_rounding_the_swiglu_width_up_is_named_where_it_differs_from_the_nearest(catalog: Catalog) -> None:
    # d = 5120: 8d/3 = 13653.3, nearest multiple of 256 = 13568, rounded up (as Llama's code does) = 13824.
    seed = next(s for s in range(200) if catalog.variant("modern-params", s).params["d"] == 5120)
    ffn = grade_seed(catalog, "modern-params", seed, ffn=str(3 * 5120 * 13824))["ffn"]
    assert ffn["status"] == "incorrect" and ffn["misconception"] == "swiglu-ceil"
    assert "nearest" in ffn["hint"]
    assert grade_seed(catalog, "modern-params", seed, ffn=str(3 * 5120 * 13568))["ffn"]["status"] == "correct"
    # d = 4096 rounds up to the nearest multiple anyway: the same number cannot be called a mistake.
    page = grade(catalog, "modern-params", ffn=str(3 * 4096 * 11008))["ffn"]
    assert page["status"] == "correct"
    seed = next(s for s in range(200) if catalog.variant("swiglu-width", s).params["d"] == 5120)
    width = grade_seed(catalog, "swiglu-width", seed, f="13824")["f"]
    assert width["status"] == "incorrect" and width["misconception"] == "swiglu-ceil"


@pytest.mark.parametrize(("part", "answer", "mistake"), [
    ("ffn", "134,209,536", "swiglu-unrounded"),  # 3 · 4096 · 10922: 8d/3 cut, not rounded to 256
    ("ffn", "134,221,824", "swiglu-unrounded"),  # 3 · 4096 · 10923: a calculator's 10922.67 rounded
    ("norm", "4,096", "one-norm"),
    ("norm", "0", "norm-without-gain"),
])
def test_modern_params_slips_in_the_ffn_width_and_the_norms_are_named(catalog: Catalog, part: str, answer: str,
                                                                      mistake: str) -> None:
    graded = grade(catalog, "modern-params", **{part: answer})[part]
    assert (graded["status"], graded["misconception"]) == ("incorrect", mistake)


def test_block_output_without_the_half_in_gelu_is_named(catalog: Catalog) -> None:
    part = grade(catalog, "block-output", y="[0.367; 2.192; 0.099; 2.415]")["y"]
    assert part["misconception"] == "gelu-no-half"


def test_a_microgpt_exercise_saved_with_the_older_mistake_name_still_makes_variants() -> None:
    # Before weight-in-out had its own name, microgpt-stations listed transposed-shape for it;
    # versions stored then (or edited on the web since) must keep working.
    text = (EXERCISES / "microgpt" / "microgpt-stations.yaml").read_text(encoding="utf-8")
    spec, errors = spec_from_text(text.replace("weight-in-out", "transposed-shape"), "old.yaml")
    assert errors == [] and spec is not None
    for seed in range(20):
        fc1 = next(p for p in make_variant(spec, seed).parts if p.spec.id == "fc1_shape")
        assert [m.name for m in fc1.target.mutants] == ["transposed-shape"]
