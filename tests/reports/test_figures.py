"""Figure helpers: quantity labels wrapped to a panel, tick labels kept short."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from zoo.reports.figures import compact_formatter, wrap_label


@pytest.mark.parametrize(
    ("label", "width", "expected"),
    [
        ("a", 10, "a"),
        ("theta[group=3]", 40, "theta[group=3]"),
        (
            "class_probability[unlabelled=image 633,class=digit 5]",
            40,
            "class_probability[unlabelled=image 633,\nclass=digit 5]",
        ),
        (
            "Sigma[feature=petal_length,feature_bis=x]",
            20,
            "Sigma[\nfeature=petal_length,\nfeature_bis=x]",
        ),
        ("no_break_point_in_this_long_name", 5, "no_break_point_in_this_long_name"),
    ],
)
def test_wrap_label_breaks_after_brackets_and_commas(label, width, expected):
    wrapped = wrap_label(label, width)
    assert wrapped == expected
    assert wrapped.replace("\n", "") == label  # nothing lost or added


def test_wrap_label_checks_its_width():
    with pytest.raises(ValueError, match="width"):
        wrap_label("a", 0)


def _labels(values):
    figure, ax = plt.subplots()
    ax.plot([0, 1], [min(values), max(values)])
    ax.yaxis.set_major_formatter(compact_formatter())
    ax.set_yticks(values)
    figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    offset = ax.yaxis.get_offset_text().get_text()
    plt.close(figure)
    return labels, offset


def test_compact_formatter_shortens_large_and_small_ticks_only():
    assert _labels([0, 200000, 400000, 600000]) == (["0", "200k", "400k", "600k"], "")
    assert _labels([0, 1.5e6, 3e6]) == (["0", "1.5M", "3M"], "")
    # Below 10^4: matplotlib's own labels.
    labels, offset = _labels([0, 2500, 5000])
    assert labels == ["0", "2500", "5000"] and offset == ""
    # Small values: digits, and the power of ten once.
    labels, offset = _labels([0, 0.0002, 0.0004])
    assert (labels, offset) == (["0", "2", "4"], "1e\u22124")  # 1e-4, typographic minus
