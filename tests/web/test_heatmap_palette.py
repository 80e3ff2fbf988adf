"""The mastery heatmap's colours (grader/web/static/style.css) against WCAG: each band's figure is readable on it
(AA, 4.5:1 for text), the bands' order reads from lightness alone, and the key's bands are the map's."""

from __future__ import annotations

import re
from pathlib import Path

from grader.services.mastery_views import level, level_bands

CSS = Path(__file__).resolve().parents[2] / "grader" / "web" / "static" / "style.css"
AA_TEXT = 4.5


def relative_luminance(colour: str) -> float:
    """WCAG 2's relative luminance of a #rrggbb colour."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(one: str, other: str) -> float:
    """WCAG 2's contrast ratio of two #rrggbb colours, 1 to 21."""
    light, dark = sorted((relative_luminance(one), relative_luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_contrast_ratio_is_wcags() -> None:
    assert round(contrast_ratio("#000000", "#ffffff"), 2) == 21.0
    assert contrast_ratio("#777777", "#ffffff") < AA_TEXT < contrast_ratio("#767676", "#ffffff")  # the known edge


def palette() -> dict[str, dict[str, str]]:
    """Each heatmap band's declarations (var() resolved from :root), by band: "0" to "4" and "none"."""
    text = CSS.read_text(encoding="utf-8")
    root = dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", text[text.index(":root"):text.index("}")]))
    found: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}]*\.level-[\w-]+[^{}]*)\{([^}]*)\}", text):
        bands = set(re.findall(r"\.heatmap \.level-([\w-]+)", selectors))
        assert bands == set(re.findall(r"\.heat-legend \.level-([\w-]+)", selectors)), selectors  # the key is the map
        declared = {k.strip(): v.strip() for k, v in (d.split(":", 1) for d in body.split(";") if ":" in d)}
        resolved = {k: root.get(v[4:-1], v) if v.startswith("var(") else v for k, v in declared.items()}
        for band in bands:
            found.setdefault(band, {}).update(resolved)
    return found


def test_every_band_has_a_background_and_a_text_colour() -> None:
    assert set(palette()) == {"none", "0", "1", "2", "3", "4"}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c[k]) for c in palette().values() for k in ("background", "color"))


def test_every_bands_figure_meets_wcag_aa_on_it() -> None:
    ratios = {band: contrast_ratio(c["background"], c["color"]) for band, c in palette().items()}
    assert min(ratios.values()) >= AA_TEXT, ratios


def test_the_bands_darken_as_mastery_grows_so_their_order_needs_no_hue() -> None:
    colours = palette()
    order = [relative_luminance(colours[band]["background"]) for band in ("none", "0", "1", "2", "3", "4")]
    assert order == sorted(order, reverse=True) and len(set(order)) == len(order)
    assert colours["4"].get("font-weight") == "700"  # mastered is bold as well as darkest


def test_the_keys_bands_cover_every_percentage_once_as_the_cells_are_coloured() -> None:
    bands = level_bands()
    assert [(b, low, high) for b, low, high in bands] == [(0, 0, 24), (1, 25, 49), (2, 50, 74), (3, 75, 94),
                                                           (4, 95, 100)]  # fmt: skip
    assert all(level(low / 100) == level(high / 100) == band for band, low, high in bands)
