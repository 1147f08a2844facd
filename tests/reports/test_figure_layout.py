"""Report figures are legible: no label over another label, another panel or the edge.

Every figure ``zoo check`` and ``zoo validate`` put in a report, for each zoo model's
shapes, drawn from real draws: a short Gibbs run per model, judged and turned into a
section's figures by :func:`zoo.reports.check_report.check_figures` (the path
``add_check_section`` takes). The Beta-Binomial runs on six homogeneous small groups
under the truncated proper prior (:data:`WIDE`), whose concentration is heavy-tailed:
``a`` and ``b`` reach hundreds of thousands, the six-digit tick labels that ran into
the next panel. Each check has a twin that
must fail: the same figures laid out as before (no layout engine, matplotlib's tick
labels), or a figure cramped on purpose.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import ticker

from tests.support.text_layout import assert_texts_legible, text_problems
from zoo.check import judge
from zoo.reports.check_report import check_figures
from zoo.reports.figures import (
    posterior_figure,
    quantities,
    sbc_ecdf_figure,
    select_elements,
    trace_figure,
)
from zoo.runs.model_run import sample_model

MODELS = ["beta-binomial", "naive-bayes", "gda", "lda"]


def _wide_beta_binomial():
    """Six homogeneous small groups: the data cannot bound the concentration a + b."""
    from zoo.models.beta_binomial import Data, Prior

    return Data([1, 4, 2, 7, 3, 9], [12, 15, 10, 14, 9, 20]), Prior(min_concentration=1.0)


#: The problem with the widest draws of each model (default problem otherwise).
WIDE = {"beta-binomial": _wide_beta_binomial}


def _problem(name):
    return WIDE[name]() if name in WIDE else None


def _gibbs_run(name):
    """200 draws x 2 chains of the Gibbs engine: enough for every figure."""
    return sample_model(
        name,
        draws=200,
        tune=50,
        chains=2,
        seed=1,
        engines=("gibbs",),
        problem=_problem(name),
        progress=False,
    )


@pytest.fixture(scope="module", params=MODELS)
def model_check(request):
    """A judged Gibbs run of one model, as ``zoo check`` judges it."""
    return judge(_gibbs_run(request.param))


def test_check_report_figures_have_legible_text(model_check):
    figures, chosen = check_figures(model_check)
    assert len(figures) == 3 and chosen  # posterior, rank, trace of the Gibbs engine
    try:
        for item in figures:
            assert item.caption, item.name
            assert_texts_legible(item.figure)
        if model_check.model == "beta-binomial":
            # The case this file is about is there: b's draws reach six digits, and its
            # trace's tick labels are the compact ones.
            assert float(model_check.run.trees["gibbs"]["posterior"]["b"].max()) > 1e5
            trace = figures[2].figure
            ticks = {t.get_text() for ax in trace.axes for t in ax.get_yticklabels()}
            assert any(t.endswith(("k", "M")) for t in ticks), ticks
    finally:
        for item in figures:
            plt.close(item.figure)


def test_posterior_figure_with_two_engines_and_every_quantity_kind(model_check):
    # Two engines (a two-entry legend) and the longest labels the selection can give.
    tree = model_check.run.trees["gibbs"]
    by_variable = quantities(tree["posterior"].to_dataset(), model_check.reference)
    longest = sorted((q for qs in by_variable.values() for q in qs), key=lambda q: -len(q.label))
    chosen = select_elements(by_variable, [q.label for q in longest[:6]], total=12)
    figure = posterior_figure({"Gibbs": tree, "PyMC": tree}, chosen, model_check.reference)
    try:
        assert_texts_legible(figure)
    finally:
        plt.close(figure)


def test_sbc_figure_has_legible_text(model_check):
    # The validate report's SBC figure with this model's quantity names; the ranks are
    # synthetic (the figure is what is under test), one quantity in four off its band.
    tree = model_check.run.trees["gibbs"]
    by_variable = quantities(tree["posterior"].to_dataset(), model_check.reference)
    names = [q.label for qs in by_variable.values() for q in qs][:40]
    rng = np.random.default_rng(0)
    max_rank, n_sims = 99, 100
    ranks = rng.integers(0, max_rank + 1, size=(n_sims, len(names)))
    ranks[:, ::4] = rng.integers(0, 20, size=(n_sims, len(names[::4])))
    grid = np.arange(1, max_rank + 1) / (max_rank + 1)
    half = 3.5 * np.sqrt(grid * (1 - grid) / n_sims)
    figure = sbc_ecdf_figure(
        ranks,
        max_rank=max_rank,
        grid=grid,
        lower=grid - half,
        upper=grid + half,
        quantities=names,
    )
    try:
        assert_texts_legible(figure)
    finally:
        plt.close(figure)


def _as_before(figure):
    """The figure as it was laid out before: no layout engine, matplotlib's tick labels."""
    figure.set_layout_engine(None)
    figure.subplots_adjust(left=0.125, right=0.9, bottom=0.11, top=0.88, wspace=0.2, hspace=0.2)
    for ax in figure.axes:
        ax.yaxis.set_major_formatter(ticker.ScalarFormatter())
    return figure


def test_twin_wide_tick_labels_without_room_are_caught():
    # b's draws as they come out of the heavy-tailed problem, in the old layout.
    run = _gibbs_run("beta-binomial")
    tree = run.trees["gibbs"]
    chosen = select_elements(quantities(tree["posterior"].to_dataset()), total=4)
    figure = _as_before(trace_figure(tree, chosen, title="cramped"))
    try:
        problems = text_problems(figure)
        assert any(
            "y tick label of panel 1" in p.text and "panel 0" in str(p.other) for p in problems
        ), problems
        with pytest.raises(AssertionError, match="text layout problem"):
            assert_texts_legible(figure)
    finally:
        plt.close(figure)


def test_twin_cramped_figure_is_caught_on_every_rule():
    figure, (left, right) = plt.subplots(1, 2, figsize=(3, 1.5))
    left.plot([0, 1], [0, 654321])
    right.set_title("a title far too long for its little panel, into the left one")
    left.set_xlabel("x label")
    left.set_xticks([0, 0.001, 0.002], ["0.000", "0.001", "0.002"])  # labels touch
    figure.text(0.98, 0.5, "past the right edge")
    try:
        problems = [str(p) for p in text_problems(figure)]
        assert any("x tick label of panel 0 '0.000' overlaps x tick label" in p for p in problems)
        assert any("y tick label of panel 0" in p and "past" not in p for p in problems)
        assert any("title of panel 1" in p for p in problems)
        assert any("'past the right edge' leaves the 300 x 150 px figure" in p for p in problems)
    finally:
        plt.close(figure)


def test_texts_that_are_not_drawn_are_not_judged():
    figure, (left, right) = plt.subplots(1, 2, figsize=(6, 3), layout="constrained")
    left.plot([0, 1], [0, 1])
    hidden = right.set_title("over everything " * 10)
    right.set_visible(False)  # the hidden panel's long title is not drawn
    left.set_xlim(0.2, 0.8)  # ticks at 0 and 1 exist but are outside the view
    try:
        assert hidden.get_visible()
        assert text_problems(figure) == []
    finally:
        plt.close(figure)
