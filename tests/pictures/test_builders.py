"""The picture builders: the learner's own numbers, the asked station, and never an answer before its time."""

from __future__ import annotations

import re

import numpy as np
import pytest

from grader.catalog.catalog import Catalog
from grader.catalog.scenarios import SCENARIOS
from grader.catalog.variants import make_variant
from grader.pictures import PICTURES, comparison, pictures_for, variant_pictures
from grader.pictures.block import BlockDiagram
from grader.pictures.curves import GeluCurve, gelu_curve, label_width
from grader.pictures.seen import Seen
from grader.pictures.heatmap import KeyHeatmap
from grader.pictures.stations import StationsPath

BLOCK = ("block-residual", "block-layernorm", "block-gelu", "block-mlp", "block-output")


def _only(pictures: tuple, kind: type) -> object:
    found = [p for p in pictures if isinstance(p, kind)]
    assert len(found) == 1, pictures
    return found[0]


def test_the_registry_names_real_scenarios_and_their_quantities() -> None:
    for model, rules in PICTURES.items():
        assert model in SCENARIOS
        for rule in rules:
            assert rule.about is None or rule.about <= set(SCENARIOS[model].quantities), (model, rule.about)


def test_block_residual_shows_the_given_x_and_a_and_asks_for_h(catalog: Catalog) -> None:
    variant = make_variant(catalog.get("block-residual"), 7)
    block = _only(variant_pictures(catalog.get("block-residual"), variant, reveal=False).prompt, BlockDiagram)
    stations = {s.key: s for s in block.stations}
    assert stations["x"].values == tuple(variant.params["x"]) and stations["x"].state == "shown"
    assert stations["attn"].values == tuple(variant.params["a"]) and stations["attn"].state == "shown"
    assert block.current is stations["add1"] and stations["add1"].state == "asked"
    assert stations["add1"].values == () and all(s.values == () for k, s in stations.items() if k not in ("x", "attn"))


def test_the_solution_diagram_shows_every_station_the_solution_prints_and_no_other(catalog: Catalog) -> None:
    spec = catalog.get("block-mlp")
    variant = make_variant(spec, 3)
    block = _only(variant_pictures(spec, variant, reveal=True).solution, BlockDiagram)
    for key, name in (("ln2", "u"), ("mlp", "m")):  # the worked solution prints u' and m
        station = next(s for s in block.stations if s.key == key)
        assert np.allclose(station.values, variant.quantities[name]) and station.state == "shown"
    # y is block-output's answer at the same numbers: block-mlp's solution does not print it, nor does its picture.
    assert next(s for s in block.stations if s.key == "add2").values == ()
    assert block.current is not None and block.current.key == "mlp"


@pytest.mark.parametrize("exercise", [s for s in ("block-residual", "block-layernorm", "block-gelu", "block-mlp",
                                                 "block-output", "ffn-keys", "ffn-edit", "microgpt-stations")])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_picture_shows_an_answer_before_the_solution(catalog: Catalog, exercise: str, seed: int) -> None:
    spec = catalog.get(exercise)
    variant = make_variant(spec, seed)
    pictures = variant_pictures(spec, variant, reveal=False)
    assert pictures.solution == ()
    answers = [np.asarray(variant.quantities[p.spec.quantity], dtype=float) for p in variant.parts
               if p.spec.type in ("vector", "scalar")]  # fmt: skip
    for picture in pictures.prompt:
        if isinstance(picture, BlockDiagram):
            drawn = [np.asarray(s.values) for s in picture.stations if s.values]
            assert not any(d.shape == a.shape and np.allclose(d, a) for d in drawn for a in answers)
        if isinstance(picture, GeluCurve):
            assert all(m.value is None for m in picture.marks)
        assert not isinstance(picture, (KeyHeatmap, StationsPath))  # these give the answer: solution only


def test_gelu_marks_minus_z_and_z_and_their_values_once_revealed(catalog: Catalog) -> None:
    spec = catalog.get("block-gelu")
    variant = make_variant(spec, 0)
    curve = _only(variant_pictures(spec, variant, reveal=True).solution, GeluCurve)
    z = float(variant.quantities["z1"])
    assert [m.z for m in curve.marks] == [-z, z]
    assert [m.value for m in curve.marks] == [variant.quantities["gelu_neg"], variant.quantities["gelu_pos"]]
    assert curve.marks[0].x < curve.zero_x < curve.marks[1].x
    assert curve.marks[0].y > curve.zero_y > curve.marks[1].y  # gelu(−z) < 0 < gelu(z): below and above the axis


def test_only_the_gelu_exercise_gets_the_curve(catalog: Catalog) -> None:
    for exercise in BLOCK:
        spec = catalog.get(exercise)
        kinds = [p.kind for p in variant_pictures(spec, make_variant(spec, 0), reveal=False).prompt]
        assert kinds == (["block", "gelu"] if exercise == "block-gelu" else ["block"])


def test_the_heatmap_outlines_exactly_the_keys_that_fire(catalog: Catalog) -> None:
    spec = catalog.get("ffn-keys")
    variant = make_variant(spec, 5)
    heat = _only(variant_pictures(spec, variant, reveal=True).solution, KeyHeatmap)
    fired = {j + 1 for j, cell in enumerate(heat.rows[0]) if cell.fires}
    assert fired == set(variant.quantities["active"])
    assert [c.value for c in heat.rows[0]] == list(variant.quantities["scores"])
    assert heat.edited is None


def test_the_edit_heatmap_has_a_row_per_input_and_frames_the_edited_key(catalog: Catalog) -> None:
    spec = catalog.get("ffn-edit")
    variant = make_variant(spec, 4)
    heat = _only(variant_pictures(spec, variant, reveal=True).solution, KeyHeatmap)
    edited = int(variant.params["edited"])
    assert len(heat.rows) == len(variant.params["inputs"]) and heat.edited_key == f"k{'₀₁₂₃₄'[edited]}"
    changed = {i + 1 for i, row in enumerate(heat.rows) if row[edited - 1].fires}
    assert changed == set(variant.quantities["changed"])
    assert heat.edited is not None and heat.edited.x < heat.rows[0][edited - 1].box.x


@pytest.mark.parametrize("layers", [1, 3])
def test_the_stations_path_counts_norms_and_residual_adds(layers: int) -> None:
    values = {"n_layer": layers, "norms": 1 + 2 * layers, "residual_adds": 2 * layers, "fc1_shape": (64, 16),
              "fc2_shape": (16, 64)}  # fmt: skip
    path = pictures_for("microgpt", values, {"norms"}, set(), reveal=True).solution[0]
    assert isinstance(path, StationsPath) and path.n_layer == layers and path.norms == 1 + 2 * layers
    assert [s.label for s in path.stops].count("RMSNorm") == 3  # one before the layer, two in it
    assert dict(next(s for s in path.stops if s.label == "MLP").shapes) == {"fc1": (64, 16), "fc2": (16, 64)}
    assert len(path.skips) == 2


def test_microgpt_params_gets_no_stations_path() -> None:
    assert pictures_for("microgpt", {}, {"total", "wte"}, set(), reveal=True).solution == ()


def test_a_vector_comparison_marks_the_wrong_entries() -> None:
    pic = comparison([0.5, -1.0, 2.0], [0.5, 1.0, 2.0], [1])
    assert pic is not None and pic.wrong == 1 and len(pic.strips) == 1
    first, second, _ = pic.entries
    assert not first.wrong and first.expected_y == first.yours_y
    assert second.wrong and second.yours_y < pic.strips[0].zero_y < second.expected_y  # +1 above 0, −1 below


def test_a_matrix_comparison_has_a_strip_per_row_and_names_entries_by_row_and_column() -> None:
    pic = comparison([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 5.0]], [(1, 1)])
    assert pic is not None and len(pic.strips) == 2 and pic.wrong == 1
    assert [e.label for e in pic.entries] == ["(1, 1)", "(1, 2)", "(2, 1)", "(2, 2)"]
    assert [e.wrong for e in pic.entries] == [False, False, False, True]


def test_no_comparison_for_answers_of_another_shape_or_a_scalar() -> None:
    assert comparison([1.0, 2.0], [1.0, 2.0, 3.0], []) is None
    assert comparison(1.0, 2.0, [0]) is None


def _points(path: str) -> list[tuple[float, float]]:
    """The points of an SVG path made of M and L commands."""
    return [(float(x), float(y)) for x, y in re.findall(r"[ML]\s*(-?[\d.]+)[ ,](-?[\d.]+)", path)]


def _apart(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def _box(cx: float, baseline: float, width: float, size: float = 10.0) -> tuple[float, float, float, float]:
    """A centred text's box (left, top, right, bottom): its ascent above the baseline, a little descent."""
    return (cx - width / 2, baseline - 0.8 * size, cx + width / 2, baseline + 0.25 * size)


@pytest.mark.parametrize("z", [0.02, 0.1, 0.3, 0.75, 1.0, 1.438, 2.0, 2.4])
def test_the_gelu_chart_keeps_its_curves_inside_the_axes_and_off_the_labels(z: float) -> None:
    curve = gelu_curve({"z1": z, "gelu_neg": 0.0, "gelu_pos": 0.0}, Seen(frozenset(), frozenset(), reveal=True))
    plot = curve.plot
    for path in (curve.gelu, curve.relu):
        for x, y in _points(path):
            assert plot.x <= x <= plot.x + plot.w and plot.y <= y <= plot.y + plot.h, (x, y)
    ticks = [_box(x, curve.tick_y, label_width(str(t)), 9.5) for t, x in curve.z_ticks]
    labels = [_box(m.label_x, m.label_y, label_width(m.label)) for m in curve.marks]
    for left, top, right, bottom in ticks + labels:
        assert top > plot.y + plot.h and bottom <= curve.height and 0 <= left and right <= curve.width
    boxes = ticks + labels
    assert all(_apart(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])  # no text over another
    for mark, (left, _, right, _) in zip(curve.marks, labels):
        assert left <= mark.x <= right  # each label is under its own dot


def test_the_minus_z_label_is_centred_under_its_dot_when_there_is_room() -> None:
    curve = gelu_curve({"z1": 1.438, "gelu_neg": 0.0, "gelu_pos": 0.0}, Seen(frozenset(), frozenset(), reveal=False))
    assert [m.label_x for m in curve.marks] == [m.x for m in curve.marks]
    assert curve.marks[0].label_y == curve.marks[1].label_y > curve.tick_y
    assert curve.marks[0].label == "−z = −1.438"
