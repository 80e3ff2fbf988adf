"""Chart geometry from plain numbers: bars as long as their values, histogram columns as tall as their
counts, a line that ends where its last value is."""

from __future__ import annotations

from datetime import date, timedelta

from grader.pictures.charts import CHAR_W, LABEL_CHARS, LINE_H, VALUE_W, BarChart, bar_chart, histogram, line_chart


def test_bars_are_as_long_as_their_share_and_the_low_ones_are_marked() -> None:
    chart = bar_chart([("hard", 0.25), ("fine", 0.75), ("solved by all", 1.0)], share=True, low_below=0.5)
    full = chart.bars[2].box.w
    assert chart.bars[0].box.w == full / 4 and chart.bars[1].box.w == 3 * full / 4
    assert [b.tone for b in chart.bars] == ["low", "", ""]
    assert chart.bars[0].box.y < chart.bars[1].box.y < chart.bars[2].box.y  # one line each, in the given order
    assert chart.height > chart.bars[2].box.y + chart.bars[2].box.h


def test_counted_bars_scale_to_the_largest_and_a_zero_still_shows() -> None:
    chart = bar_chart([("relu", 6), ("Unexplained wrong answers", 2), ("never", 0)], quiet=["Unexplained wrong answers"])
    assert abs(chart.bars[1].box.w - chart.bars[0].box.w / 3) < 0.01 and chart.bars[1].tone == "quiet"  # rounded to 0.01
    assert 0 < chart.bars[2].box.w < 2
    assert not chart.share


def _label_boxes(chart: BarChart) -> list[tuple[float, float, float, float]]:
    """Each label line's box (left, top, right, bottom) at CHAR_W per character, its ascent above its baseline."""
    return [(chart.label_x, y - 0.75 * LINE_H, chart.label_x + CHAR_W * len(line), y + 0.25 * LINE_H)
            for bar in chart.bars for line, y in zip(bar.lines, bar.line_ys)]


def _apart(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


LONG = [("the temperature left out · Softmax with a temperature, second version for the course", 3),
        ("x" * 130, 2), ("ReLU in place of GELU · GELU by hand", 5), ("Unexplained wrong answers", 1)]


def test_a_long_name_is_written_whole_on_lines_inside_the_chart_clear_of_the_bars_and_each_other() -> None:
    chart = bar_chart(LONG)
    assert [" ".join(b.lines).replace(" ", "") for b in chart.bars] == [n.replace(" ", "") for n, _ in LONG]
    assert len(chart.bars[1].lines) == 3 and max(len(line) for b in chart.bars for line in b.lines) <= LABEL_CHARS
    boxes = _label_boxes(chart)
    for left, top, right, bottom in boxes:  # inside the picture: nothing clipped
        assert 0 <= left and right <= chart.width and 0 <= top and bottom <= chart.height
    bars = [(b.box.x, b.box.y, b.box.x + b.box.w + VALUE_W, b.box.y + b.box.h) for b in chart.bars]
    assert all(b[2] <= chart.width and b[3] <= chart.height for b in bars)  # the value's room too
    everything = boxes + bars
    assert all(_apart(a, b) for i, a in enumerate(everything) for b in everything[i + 1:])


def test_two_bars_are_never_named_alike() -> None:
    chart = bar_chart([("no temperature · Softmax", 3), ("no temperature · Softmax", 2), ("relu · GELU", 1)],
                      keys=["no-temperature, softmax", "no-temperature, softmax-copy", "relu, block-gelu"])
    names = [b.label for b in chart.bars]
    assert names == ["no temperature · Softmax (no-temperature, softmax)",
                     "no temperature · Softmax (no-temperature, softmax-copy)", "relu · GELU"]
    assert len({" ".join(b.lines) for b in chart.bars}) == 3


def test_histogram_columns_stand_on_the_baseline_as_tall_as_their_counts() -> None:
    chart = histogram([("1", 4), ("2", 2), ("3", 0)])
    tall, half, empty = chart.columns
    assert tall.box.y + tall.box.h == half.box.y + half.box.h == chart.baseline
    assert half.box.h == tall.box.h / 2 and empty.box.h == 0
    assert tall.box.x < half.box.x < empty.box.x and tall.box.w == half.box.w


def test_a_line_of_shares_runs_from_the_first_day_to_the_last() -> None:
    days = [date(2026, 11, 1) + timedelta(days=i) for i in range(30)]
    chart = line_chart([(d, i / 29) for i, d in enumerate(days)], share=True)
    first, last = chart.points[0], chart.points[-1]
    assert first.y == chart.baseline and last.y == chart.y_ticks[-1][1]  # 0 % at the bottom, 100 % at the top
    assert [v for v, _ in chart.y_ticks] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert chart.x_ticks[0] == (days[0], first.x) and chart.x_ticks[-1] == (days[-1], last.x)
    assert len(chart.x_ticks) == 5 and chart.line.startswith(f"M{first.x} {first.y}")


def test_a_line_of_counts_gets_whole_ticks_up_to_its_largest() -> None:
    chart = line_chart([(date(2026, 11, 1), 0), (date(2026, 11, 2), 10)])
    assert [v for v, _ in chart.y_ticks] == [0.0, 3.0, 6.0, 9.0, 12.0]
    assert chart.points[1].y > chart.y_ticks[-1][1]  # 10 sits under the top tick of 12
